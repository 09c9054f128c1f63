// scenario: NUMA memory policy: get_mempolicy of the process and of an
// address (the node it is on), set_mempolicy and mbind to the default
// policy, set_mempolicy_home_node on it, migrate_pages and move_pages between node 0 and itself. On a
// kernel without NUMA every call fails with ENOSYS, which is recorded too.
#include "scenario.h"

#include <sys/mman.h>
#include <sys/syscall.h>

#define MPOL_DEFAULT 0
#define MPOL_F_NODE (1 << 0)
#define MPOL_F_ADDR (1 << 1)

int main(void) {
  int mode = -7;
  unsigned long mask[4];
  memset(mask, 0x5a, sizeof mask);
  errno = 0;
  long r = syscall(SYS_get_mempolicy, &mode, mask, 4 * 64, NULL, 0);
  printf("get_mempolicy: %ld %s mode %d\n", r, errname(errno), r == 0 ? mode : -7);
  if (r == 0) nd_hex("node mask", mask, sizeof mask);

  char* page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(page != MAP_FAILED);
  page[0] = 1;
  int node = -7;
  errno = 0;
  r = syscall(SYS_get_mempolicy, &node, NULL, 0, page, MPOL_F_NODE | MPOL_F_ADDR);
  printf("node of page: %ld %s\n", r, errname(errno));
  nd("node %d\n", node);

  errno = 0;
  r = syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0);
  printf("set_mempolicy(default): %ld %s\n", r, errname(errno));
  errno = 0;
  r = syscall(SYS_mbind, page, 4096, MPOL_DEFAULT, NULL, 0, 0);
  printf("mbind(default): %ld %s\n", r, errname(errno));

  // Only ranges with a BIND or PREFERRED_MANY policy have a home node.
  errno = 0;
  r = syscall(450 /* set_mempolicy_home_node */, (unsigned long)page, 4096, 0, 0);
  printf("set_mempolicy_home_node(default range): %ld %s\n", r, errname(errno));

  unsigned long node0 = 1;
  errno = 0;
  r = syscall(SYS_migrate_pages, 0, 64, &node0, &node0);
  printf("migrate_pages(0 -> 0): %ld %s\n", r, errname(errno));

  void* pages[1] = {page};
  int status[1] = {-99};
  errno = 0;
  r = syscall(SYS_move_pages, 0, 1, pages, NULL, status, 0);  // query: status = node of each page
  printf("move_pages(query): %ld %s\n", r, errname(errno));
  nd("page status %d\n", status[0]);
  printf("page still reads %d\n", page[0]);
  return 0;
}
