// scenario: a recorded program that traces its child the way strace -f
// does, with the recorder playing the kernel's part: PTRACE_SYSCALL stops
// at every call's entry and exit (PTRACE_GET_SYSCALL_INFO and the
// registers read there), and the event options, which make the child's
// fork, vfork, thread, exec and exits stop it and trace what it creates.
// The tracer counts what it saw, in an order the scheduling cannot change,
// and every line is compared with the native run's.
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static void* thread_main(void* arg) {
  syscall(SYS_getppid);
  return arg;
}

static void traced_child(void) {
  if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0) _exit(90);
  raise(SIGSTOP);
  syscall(SYS_getppid);
  if (chdir("") == 0) _exit(91);  // ENOENT
  pid_t g = fork();
  if (g == 0) {
    syscall(SYS_getppid);
    _exit(5);
  }
  int st;
  waitpid(g, &st, 0);
  pid_t v = vfork();
  if (v == 0) _exit(6);
  waitpid(v, &st, 0);
  pthread_t th;
  pthread_create(&th, NULL, thread_main, NULL);
  pthread_join(th, NULL);
  execl("/bin/true", "true", (char*)NULL);
  _exit(92);
}

enum { MAX_TRACEES = 16 };
static pid_t tids[MAX_TRACEES];
static int in_call[MAX_TRACEES];
static int ntids;

static int slot(pid_t tid) {
  for (int i = 0; i < ntids; ++i) {
    if (tids[i] == tid) return i;
  }
  tids[ntids] = tid;
  in_call[ntids] = 0;
  return ntids++;
}

int main(void) {
  pid_t child = fork();
  if (child == 0) traced_child();
  int status;
  if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP) {
    printf("first stop: %#x\n", status);
    return 1;
  }
  struct __ptrace_syscall_info info;
  long size = ptrace(PTRACE_GET_SYSCALL_INFO, child, (void*)sizeof(info), &info);
  printf("signal stop: op %d, size %ld, arch %s\n", info.op, size, info.arch == 0xc000003e ? "x86_64" : "?");
  long options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
                 PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | PTRACE_O_TRACEVFORKDONE;
  if (ptrace(PTRACE_SETOPTIONS, child, 0, options) != 0) perror("PTRACE_SETOPTIONS");
  slot(child);
  int getppid_entries = 0, getppid_exits = 0, chdir_exits = 0, execve_exits = 0, bad_entry_regs = 0;
  int unpaired = 0, events[16] = {0}, new_tracee_stops = 0, signals_passed = 0, deaths = 0;
  long chdir_rval = 0, fork_child_seen = 0, exec_former_ok = 0, exit_event_statuses = 0;
  int death_statuses = 0;
  ptrace(PTRACE_SYSCALL, child, 0, 0);
  for (;;) {
    pid_t tid = waitpid(-1, &status, __WALL);
    if (tid < 0) {
      if (errno == ECHILD) break;
      perror("waitpid");
      return 1;
    }
    int i = slot(tid);
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      deaths++;
      death_statuses += WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
      continue;
    }
    int sig = WSTOPSIG(status);
    int event = status >> 16;
    int give = 0;
    if (sig == (SIGTRAP | 0x80)) {
      long got = ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void*)sizeof(info), &info);
      struct user_regs_struct regs;
      ptrace(PTRACE_GETREGS, tid, 0, &regs);
      if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
        if (in_call[i]) unpaired++;
        in_call[i] = 1;
        if (got != offsetof(struct __ptrace_syscall_info, entry.args) + 6 * 8 || regs.orig_rax != info.entry.nr ||
            (long)regs.rax != -ENOSYS || regs.rdi != info.entry.args[0] || info.instruction_pointer != regs.rip) {
          bad_entry_regs++;
        }
        if (info.entry.nr == SYS_getppid) getppid_entries++;
      } else if (info.op == PTRACE_SYSCALL_INFO_EXIT) {
        if (!in_call[i]) unpaired++;
        in_call[i] = 0;
        long nr = ptrace(PTRACE_PEEKUSER, tid, offsetof(struct user_regs_struct, orig_rax), 0);
        if (nr == SYS_getppid) getppid_exits++;
        if (nr == SYS_chdir) {
          chdir_exits++;
          chdir_rval = info.exit.is_error ? info.exit.rval : 0;
        }
        if (nr == SYS_execve) execve_exits += info.exit.rval == 0;
      } else {
        unpaired += 100;
      }
    } else if (sig == SIGTRAP && event != 0) {
      events[event]++;
      unsigned long msg = 0;
      ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
      if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_CLONE) {
        fork_child_seen += msg > 0;
      } else if (event == PTRACE_EVENT_EXEC) {
        exec_former_ok = msg == (unsigned long)child;
      } else if (event == PTRACE_EVENT_EXIT) {
        exit_event_statuses += WEXITSTATUS(msg);
      }
    } else if (sig == SIGSTOP && !in_call[i] && i > 0) {
      new_tracee_stops++;  // an auto-attached task's first stop
    } else {
      signals_passed++;
      give = sig;
    }
    ptrace(PTRACE_SYSCALL, tid, 0, give);
  }
  printf("tracees: %d, deaths reported: %d (statuses %d)\n", ntids, deaths, death_statuses);
  printf("getppid: %d entries, %d exits; chdir: %d exits, rval %ld; execve exits with 0: %d\n", getppid_entries,
         getppid_exits, chdir_exits, chdir_rval, execve_exits);
  printf("entry registers unlike the call: %d, stops out of order: %d\n", bad_entry_regs, unpaired);
  printf("events: fork %d, vfork %d, clone %d, vfork-done %d, exec %d, exit %d\n", events[PTRACE_EVENT_FORK],
         events[PTRACE_EVENT_VFORK], events[PTRACE_EVENT_CLONE], events[PTRACE_EVENT_VFORK_DONE],
         events[PTRACE_EVENT_EXEC], events[PTRACE_EVENT_EXIT]);
  printf("new tracees stopped: %d, children named: %ld, exec former ok: %ld, exit event statuses: %ld\n",
         new_tracee_stops, fork_child_seen, exec_former_ok, exit_event_statuses);
  printf("signals passed on: %d\n", signals_passed);
  return 0;
}
