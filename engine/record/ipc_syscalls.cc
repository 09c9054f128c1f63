// System V message queues, semaphores and shared-memory control: what each
// command writes through its pointer argument. (POSIX message queues need
// no handler: their outputs are fixed, see the spec. Attaching and detaching
// shared memory is in shm_syscalls.cc.)
//
// Replay performs none of these calls, so an IPC object created while
// recording does not exist then; every answer the program got is in the
// trace.
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

#include <cstdint>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

// The flag old ABIs pass in the command to ask for the 64-bit layouts; on
// x86-64 those are the only layouts, with or without it.
constexpr int kIpc64 = 0x100;
// Sizes on x86-64 (checked with sizeof against glibc's headers, which
// follow the kernel's *64_ds layouts).
constexpr uint64_t kMsqidDs = 120, kMsginfo = 32;
constexpr uint64_t kSemidDs = 104, kSeminfo = 40;
constexpr uint64_t kShmidDs = 112, kShminfo = 72, kShmInfo = 48;

int command(const SyscallContext& ctx, int arg) { return static_cast<int>(ctx.arg(arg)) & ~kIpc64; }

void exit_msgctl(SyscallContext& ctx) {
  if (ctx.failed()) return;
  switch (command(ctx, 1)) {
    case IPC_STAT: case MSG_STAT: case MSG_STAT_ANY: ctx.record_memory(ctx.arg(2), kMsqidDs); break;
    case IPC_INFO: case MSG_INFO: ctx.record_memory(ctx.arg(2), kMsginfo); break;
    default: break;  // IPC_SET, IPC_RMID read or write nothing of ours
  }
}

// msgrcv fills a struct msgbuf: the long mtype, then the text, whose length
// is the return value.
void exit_msgrcv(SyscallContext& ctx) {
  if (ctx.failed()) return;
  ctx.record_memory(ctx.arg(1), sizeof(long) + static_cast<uint64_t>(ctx.result()));
}

// semctl's fourth argument is a union passed by value: for the commands
// that write, the pointer itself.
void exit_semctl(SyscallContext& ctx) {
  if (ctx.failed()) return;
  uint64_t out = ctx.arg(3);
  switch (command(ctx, 2)) {
    case IPC_STAT: case SEM_STAT: case SEM_STAT_ANY: ctx.record_memory(out, kSemidDs); break;
    case IPC_INFO: case SEM_INFO: ctx.record_memory(out, kSeminfo); break;
    case GETALL: {
      // One unsigned short per semaphore of the set. The count is the
      // set's, which the recorder asks the kernel for (it shares the
      // program's IPC namespace unless the program left it).
      struct semid_ds ds {};
      if (::semctl(static_cast<int>(ctx.arg(0)), 0, IPC_STAT, &ds) != 0) {
        ctx.refuse_after_call("semctl(GETALL) succeeded, but backstep cannot learn the size of the semaphore set");
      }
      ctx.record_memory(out, ds.sem_nsems * sizeof(unsigned short));
      break;
    }
    default: break;  // GETVAL, GETPID, GETNCNT, GETZCNT answer in the result
  }
}

void exit_shmctl(SyscallContext& ctx) {
  if (ctx.failed()) return;
  switch (command(ctx, 1)) {
    case IPC_STAT: case SHM_STAT: case SHM_STAT_ANY: ctx.record_memory(ctx.arg(2), kShmidDs); break;
    case IPC_INFO: ctx.record_memory(ctx.arg(2), kShminfo); break;
    case SHM_INFO: ctx.record_memory(ctx.arg(2), kShmInfo); break;
    default: break;  // IPC_SET, IPC_RMID, SHM_LOCK, SHM_UNLOCK
  }
}

}  // namespace

namespace recorders {
extern const SyscallRecorder msgctl{nullptr, exit_msgctl};
extern const SyscallRecorder msgrcv{nullptr, exit_msgrcv};
extern const SyscallRecorder semctl{nullptr, exit_semctl};
extern const SyscallRecorder shmctl{nullptr, exit_shmctl};
}  // namespace recorders

}  // namespace backstep
