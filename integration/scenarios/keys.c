// scenario: the key management calls on this process's own keyring:
// add_key, request_key finding it, keyctl READ / DESCRIBE with large and
// too-small buffers, GET_SECURITY, CAPABILITIES, REVOKE, and an unknown key.
// Where the kernel (or a container's filter) refuses keys, the errors are
// what is recorded and replayed.
#include "scenario.h"

#include <linux/keyctl.h>
#include <sys/syscall.h>

int main(void) {
  errno = 0;
  long key = syscall(SYS_add_key, "user", "backstep:scenario", "payload-123", 11, KEY_SPEC_PROCESS_KEYRING);
  printf("add_key: %s\n", key > 0 ? "ok" : errname(errno));
  if (key <= 0) return 0;
  nd("key serial %ld\n", key);

  errno = 0;
  long found = syscall(SYS_request_key, "user", "backstep:scenario", NULL, 0);
  printf("request_key: %s\n", found == key ? "same key" : errname(errno));

  char buf[128];
  memset(buf, 'x', sizeof buf);
  long n = syscall(SYS_keyctl, KEYCTL_READ, key, buf, sizeof buf);
  printf("read: %ld '%.*s' then '%c'\n", n, n > 0 ? (int)n : 0, buf, buf[n > 0 ? n : 0]);

  char small[4];
  memset(small, 'x', sizeof small);
  n = syscall(SYS_keyctl, KEYCTL_READ, key, small, sizeof small);
  printf("read(4): %ld '%.4s'\n", n, small);

  memset(buf, 'x', sizeof buf);
  n = syscall(SYS_keyctl, KEYCTL_DESCRIBE, key, buf, sizeof buf);
  printf("describe: %ld %s\n", n, n > 0 ? "ok" : errname(errno));
  if (n > 0) nd("description %s\n", buf);  // type;uid;gid;perm;description

  memset(buf, 'x', sizeof buf);
  errno = 0;
  n = syscall(SYS_keyctl, KEYCTL_GET_SECURITY, key, buf, sizeof buf);
  printf("get_security: %s\n", n >= 0 ? "ok" : errname(errno));
  if (n > 0) nd("security label %.*s\n", (int)n, buf);

  unsigned char caps[8];
  memset(caps, 0xee, sizeof caps);
  errno = 0;
  n = syscall(SYS_keyctl, KEYCTL_CAPABILITIES, caps, sizeof caps);
  printf("capabilities: %s\n", n >= 0 ? "ok" : errname(errno));
  if (n >= 0) nd_hex("capabilities", caps, sizeof caps);

  n = syscall(SYS_keyctl, KEYCTL_REVOKE, key);
  printf("revoke: %ld\n", n);
  errno = 0;
  n = syscall(SYS_keyctl, KEYCTL_READ, key, buf, sizeof buf);
  printf("read revoked: %ld %s\n", n, errname(errno));
  errno = 0;
  n = syscall(SYS_keyctl, KEYCTL_DESCRIBE, 0x7ffffff0, buf, sizeof buf);
  printf("describe unknown key: %ld %s\n", n, errname(errno));
  return 0;
}
