// scenario: System V shared memory: two attachments of one segment alias
// (one read-only), a store seen through the other, IPC_STAT's attach count
// before and after shmdt, IPC_RMID while attached, a segment attached again
// after detaching keeps its bytes, SHM_INFO/IPC_INFO, a fault on the
// read-only attachment, SHM_REMAP over part of an anonymous mapping, and an
// attachment moved by mremap, then detached at its new address.
#include "scenario.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>

static sigjmp_buf back;
static void on_segv(int sig) {
  (void)sig;
  siglongjmp(back, 1);
}

int main(void) {
  size_t size = 3 * 4096 + 100;
  int id = SYS(shmget(IPC_PRIVATE, size, IPC_CREAT | 0600));
  char* rw = shmat(id, NULL, 0);
  CHECK(rw != (void*)-1);
  char* ro = shmat(id, NULL, SHM_RDONLY);
  CHECK(ro != (void*)-1);
  printf("new segment reads zero: %d\n", rw[5000] == 0 && ro[size - 1] == 0);
  strcpy(rw + 4096, "stored through the writable attachment");
  printf("read-only alias: '%s'\n", ro + 4096);
  struct shmid_ds ds;
  SYS(shmctl(id, IPC_STAT, &ds));
  printf("segsz %zu, attached %lu times\n", ds.shm_segsz, (unsigned long)ds.shm_nattch);
  nd("attach time %ld, creator pid %d\n", (long)ds.shm_atime, ds.shm_cpid);
  signal(SIGSEGV, on_segv);
  if (!sigsetjmp(back, 1)) {
    ro[0] = 1;
    printf("store to the read-only attachment did not fault\n");
  } else {
    printf("store to the read-only attachment faulted\n");
  }
  SYS(shmdt(ro));
  SYS(shmctl(id, IPC_STAT, &ds));
  printf("after shmdt: attached %lu times\n", (unsigned long)ds.shm_nattch);
  rw[size - 1] = 42;
  SYS(shmdt(rw));
  char* again = shmat(id, NULL, 0);
  CHECK(again != (void*)-1);
  printf("attached again: '%s', last byte %d\n", again + 4096, again[size - 1]);
  SYS(shmctl(id, IPC_RMID, NULL));
  again[0] = 'x';
  printf("still usable after IPC_RMID: %c\n", again[0]);
  SYS(shmdt(again));
  errno = 0;
  int r = shmdt(again);
  printf("second shmdt: %d %s\n", r, errname(errno));
  struct shminfo info;
  SYS(shmctl(0, IPC_INFO, (struct shmid_ds*)&info));
  printf("shmmni positive: %d\n", info.shmmni > 0);
  struct shm_info usage;
  SYS(shmctl(0, SHM_INFO, (struct shmid_ds*)&usage));
  nd("segments in use %d\n", usage.used_ids);
  int id2 = SYS(shmget(IPC_PRIVATE, 3 * 4096, IPC_CREAT | 0600));
  char* area = mmap(NULL, 8 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(area != MAP_FAILED);
  area[0] = 'p';
  char* over = shmat(id2, area + 4096, SHM_REMAP);
  CHECK(over == area + 4096);
  strcpy(over, "remapped");
  char* alias = shmat(id2, NULL, 0);
  CHECK(alias != (void*)-1);
  printf("SHM_REMAP: '%c' kept, alias reads '%s'\n", area[0], alias);
  char* moved = mremap(alias, 3 * 4096, 3 * 4096, MREMAP_MAYMOVE | MREMAP_FIXED, area + 5 * 4096);
  CHECK(moved == area + 5 * 4096);
  moved[1] = 'E';
  printf("through the moved attachment: '%s'\n", over);
  SYS(shmdt(moved));
  SYS(shmdt(over));
  SYS(shmctl(id2, IPC_RMID, NULL));
  char* after = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(after != MAP_FAILED);
  after[0] = 7;
  printf("mmap after the segments: %d\n", after[0]);
  return 0;
}
