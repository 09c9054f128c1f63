// scenario: syscall buffering across fork, exec, vfork and posix_spawn. The
// parent buffers calls on an input file, forks; the child buffers calls on
// the descriptor it inherited (its copy of the parent's buffer and patched
// sites), then execs this program again ("exec" mode), which loads the
// preload library anew and buffers again, and finally execs /bin/echo. The
// parent buffers calls while the child runs and waits for it. Then vfork +
// exec and posix_spawn of this program ("spawned" mode) with the same work.
// input-random: shared.bin 20000
// expect-buffered: 3000
#include "proc_util.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>

extern char** environ;

// Buffered work: preads and reads of shared.bin through fd, writes to
// /dev/null, getppid and fstat. Returns a checksum of what was read.
static uint64_t work(int fd, int rounds, int salt) {
  int null = SYS(open("/dev/null", O_WRONLY | O_CLOEXEC));
  unsigned char b[128];
  uint64_t h = FNV_INIT;
  for (int i = 0; i < rounds; i++) {
    off_t off = (off_t)(((i + salt) * 613) % (20000 - 128));
    CHECK(SYS(pread(fd, b, sizeof b, off)) == (ssize_t)sizeof b);
    h = fnv1a(b, sizeof b, h);
    CHECK(SYS(write(null, b, 50)) == 50);
    struct stat st;
    SYS(fstat(fd, &st));
    CHECK(st.st_size == 20000);
    CHECK(getppid() > 0);
  }
  SYS(close(null));
  return h;
}

// The exec'd program: a fresh process image with the descriptor it was given.
static int exec_mode(int argc, char** argv) {
  CHECK(argc == 4);
  int fd = atoi(argv[2]);
  uint64_t h = work(fd, 300, atoi(argv[3]));
  child_say("%s: 300 rounds on inherited fd, %016llx\n", argv[1], (unsigned long long)h);
  if (strcmp(argv[1], "exec") == 0) {
    execl("/bin/echo", "echo", "echo after two execs", (char*)NULL);
    _exit(127);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1) return exec_mode(argc, argv);

  // The descriptor survives exec (no O_CLOEXEC) so the exec'd image reads it.
  int fd = SYS(open("shared.bin", O_RDONLY));
  char fdtext[16];
  snprintf(fdtext, sizeof fdtext, "%d", fd);
  printf("parent before fork: %016llx\n", (unsigned long long)work(fd, 300, 0));

  pid_t pid = proc_fork();
  if (pid == 0) {
    uint64_t h = work(fd, 300, 1);
    child_say("child after fork: %016llx\n", (unsigned long long)h);
    execl("/proc/self/exe", argv[0], "exec", fdtext, "2", (char*)NULL);
    _exit(127);
  }
  uint64_t while_child = work(fd, 300, 3);
  int status = wait_for(pid);
  printf("parent while child ran: %016llx\n", (unsigned long long)while_child);
  printf("child: %s\n", status_text(status));

  fflush(stdout);
  pid = vfork();
  CHECK(pid != -1);
  if (pid == 0) {
    execl("/proc/self/exe", argv[0], "vforked", fdtext, "4", (char*)NULL);
    _exit(127);
  }
  uint64_t after_vfork = work(fd, 200, 5);
  status = wait_for(pid);
  printf("parent after vfork: %016llx\n", (unsigned long long)after_vfork);
  printf("vfork child: %s\n", status_text(status));

  fflush(stdout);
  char* spawn_argv[] = {argv[0], "spawned", fdtext, "6", NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  // The child gets its own descriptor of the file, at a fixed number.
  posix_spawn_file_actions_addopen(&fa, 40, "shared.bin", O_RDONLY, 0);
  spawn_argv[2] = "40";
  int err = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, spawn_argv, environ);
  CHECK(err == 0);
  posix_spawn_file_actions_destroy(&fa);
  uint64_t after_spawn = work(fd, 200, 7);
  status = wait_for(pid);
  printf("parent after posix_spawn: %016llx\n", (unsigned long long)after_spawn);
  printf("spawned child: %s\n", status_text(status));
  printf("parent at the end: %016llx\n", (unsigned long long)work(fd, 100, 9));
  SYS(close(fd));
  return 0;
}
