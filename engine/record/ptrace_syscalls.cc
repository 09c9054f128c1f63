// ptrace: refused at its entry, whatever the request, until backstep
// emulates it. The program is backstep's tracee, so the kernel would refuse
// PTRACE_TRACEME (EPERM) and an attach to one of its own children (already
// traced by backstep); a program written to debug, sandbox or test
// processes then goes on as if it had succeeded and waits for a stop that
// never comes (a child that raised SIGSTOP for a tracer that is not there),
// and the recording hangs with it. Refusing the call before it runs ends
// the recording at once, with the request in the message, and replay runs
// up to it.
#include <sys/ptrace.h>

#include <string>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

struct RequestName {
  long request;
  const char* name;
};

// <sys/ptrace.h>'s requests on x86-64 (as of Linux 6.18), by number: the
// numbers are the kernel ABI, spelled out for those newer than some headers.
constexpr RequestName kRequests[] = {
    {0, "PTRACE_TRACEME"},
    {1, "PTRACE_PEEKTEXT"},
    {2, "PTRACE_PEEKDATA"},
    {3, "PTRACE_PEEKUSER"},
    {4, "PTRACE_POKETEXT"},
    {5, "PTRACE_POKEDATA"},
    {6, "PTRACE_POKEUSER"},
    {7, "PTRACE_CONT"},
    {8, "PTRACE_KILL"},
    {9, "PTRACE_SINGLESTEP"},
    {12, "PTRACE_GETREGS"},
    {13, "PTRACE_SETREGS"},
    {14, "PTRACE_GETFPREGS"},
    {15, "PTRACE_SETFPREGS"},
    {16, "PTRACE_ATTACH"},
    {17, "PTRACE_DETACH"},
    {18, "PTRACE_GETFPXREGS"},
    {19, "PTRACE_SETFPXREGS"},
    {24, "PTRACE_SYSCALL"},
    {25, "PTRACE_GET_THREAD_AREA"},
    {26, "PTRACE_SET_THREAD_AREA"},
    {30, "PTRACE_ARCH_PRCTL"},
    {31, "PTRACE_SYSEMU"},
    {32, "PTRACE_SYSEMU_SINGLESTEP"},
    {33, "PTRACE_SINGLEBLOCK"},
    {0x4200, "PTRACE_SETOPTIONS"},
    {0x4201, "PTRACE_GETEVENTMSG"},
    {0x4202, "PTRACE_GETSIGINFO"},
    {0x4203, "PTRACE_SETSIGINFO"},
    {0x4204, "PTRACE_GETREGSET"},
    {0x4205, "PTRACE_SETREGSET"},
    {0x4206, "PTRACE_SEIZE"},
    {0x4207, "PTRACE_INTERRUPT"},
    {0x4208, "PTRACE_LISTEN"},
    {0x4209, "PTRACE_PEEKSIGINFO"},
    {0x420a, "PTRACE_GETSIGMASK"},
    {0x420b, "PTRACE_SETSIGMASK"},
    {0x420c, "PTRACE_SECCOMP_GET_FILTER"},
    {0x420d, "PTRACE_SECCOMP_GET_METADATA"},
    {0x420e, "PTRACE_GET_SYSCALL_INFO"},
    {0x420f, "PTRACE_GET_RSEQ_CONFIGURATION"},
    {0x4210, "PTRACE_SET_SYSCALL_USER_DISPATCH_CONFIG"},
    {0x4211, "PTRACE_GET_SYSCALL_USER_DISPATCH_CONFIG"},
};
static_assert(PTRACE_TRACEME == 0 && PTRACE_ATTACH == 16 && PTRACE_SEIZE == 0x4206 && PTRACE_LISTEN == 0x4208,
              "the kernel's ptrace request numbers");

std::string request_name(uint64_t request) {
  for (const RequestName& r : kRequests) {
    if (static_cast<uint64_t>(r.request) == request) return r.name;
  }
  return "request " + std::to_string(static_cast<long>(request));
}

void enter_ptrace(SyscallContext& ctx) {
  ctx.refuse("the program called ptrace(" + request_name(ctx.arg(0)) +
             "): a recorded program cannot use ptrace yet");
}

}  // namespace

namespace recorders {
extern const SyscallRecorder ptrace{enter_ptrace, nullptr};
}  // namespace recorders

}  // namespace backstep
