// scenario: bpf where the kernel permits it: an array map created and
// updated, a two-instruction socket filter loaded with a verifier log (the
// kernel writes the log, also when a load fails), a program the verifier
// rejects, and a map freeze. Whatever the kernel answers (EPERM without
// privileges) is recorded and replayed.
#include "scenario.h"

#include <linux/bpf.h>
#include <sys/syscall.h>

static long bpf(int cmd, union bpf_attr* attr) { return syscall(SYS_bpf, cmd, attr, sizeof *attr); }

static char log_buf[4096];

static long load(const struct bpf_insn* insns, unsigned count) {
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
  attr.insns = (unsigned long)insns;
  attr.insn_cnt = count;
  attr.license = (unsigned long)"GPL";
  attr.log_buf = (unsigned long)log_buf;
  attr.log_size = sizeof log_buf;
  attr.log_level = 1;
  memset(log_buf, 0, sizeof log_buf);
  errno = 0;
  return bpf(BPF_PROG_LOAD, &attr);
}

int main(void) {
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.map_type = BPF_MAP_TYPE_ARRAY;
  attr.key_size = 4;
  attr.value_size = 8;
  attr.max_entries = 4;
  errno = 0;
  long map = bpf(BPF_MAP_CREATE, &attr);
  printf("map create: %s\n", map >= 0 ? "ok" : errname(errno));
  if (map < 0) return 0;

  unsigned key = 2;
  unsigned long long value = 0x1122334455667788ULL;
  memset(&attr, 0, sizeof attr);
  attr.map_fd = (unsigned)map;
  attr.key = (unsigned long)&key;
  attr.value = (unsigned long)&value;
  printf("update: %ld\n", bpf(BPF_MAP_UPDATE_ELEM, &attr));
  key = 9;  // beyond max_entries
  errno = 0;
  long r = bpf(BPF_MAP_UPDATE_ELEM, &attr);
  printf("update out of range: %ld %s\n", r, errname(errno));

  struct bpf_insn good[] = {
      {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
      {.code = BPF_JMP | BPF_EXIT},
  };
  long prog = load(good, 2);
  printf("load good: %s, log %s\n", prog >= 0 ? "ok" : errname(errno), log_buf[0] ? "written" : "empty");
  nd("log checksum %016llx\n", (unsigned long long)fnv1a(log_buf, sizeof log_buf, FNV_INIT));

  struct bpf_insn bad[] = {{.code = BPF_JMP | BPF_EXIT}};  // r0 never set
  long rejected = load(bad, 1);
  printf("load bad: %ld %s, log %s\n", rejected, errname(errno), log_buf[0] ? "written" : "empty");
  nd("log first line: %.*s\n", (int)strcspn(log_buf, "\n"), log_buf);

  memset(&attr, 0, sizeof attr);
  attr.map_fd = (unsigned)map;
  printf("freeze: %ld\n", bpf(BPF_MAP_FREEZE, &attr));
  return 0;
}
