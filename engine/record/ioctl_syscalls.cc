// ioctl: each request says how much it writes. Requests not listed stop the
// recording before they run, rather than risk memory the trace does not hold.
#include <asm/termbits.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <cstdio>
#include <map>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

// request -> bytes written through the pointer argument
const std::map<unsigned long, uint64_t> kKnownRequests = {
    {TCGETS, sizeof(struct termios)},   {TCSETS, 0},  {TCSETSW, 0}, {TCSETSF, 0},
    {TCGETS2, sizeof(struct termios2)}, {TIOCGWINSZ, sizeof(struct winsize)},
    {TIOCSWINSZ, 0},                    {FIONREAD, sizeof(int)}, {FIONBIO, 0},
    {FIOASYNC, 0},                      {FIOCLEX, 0}, {FIONCLEX, 0},
    {TIOCGPGRP, sizeof(int)},           {TIOCSPGRP, 0}, {TIOCGSID, sizeof(int)},
    {TIOCOUTQ, sizeof(int)},            {TIOCGPTN, sizeof(unsigned)}, {TIOCSPTLCK, 0},
    {TIOCSCTTY, 0},                     {TCFLSH, 0}, {TCXONC, 0}, {TCSBRK, 0},
};

void enter_ioctl(SyscallContext& ctx) {
  unsigned long request = static_cast<unsigned int>(ctx.arg(1));
  if (!kKnownRequests.count(request)) {
    char text[64];
    std::snprintf(text, sizeof(text), "unsupported ioctl request 0x%lx on fd %d", request,
                  static_cast<int>(ctx.arg(0)));
    ctx.refuse(text);
  }
}

void exit_ioctl(SyscallContext& ctx) {
  if (ctx.failed()) return;
  auto it = kKnownRequests.find(static_cast<unsigned int>(ctx.arg(1)));
  if (it != kKnownRequests.end() && it->second) ctx.record_memory(ctx.arg(2), it->second);
}

}  // namespace

namespace recorders {
extern const SyscallRecorder ioctl{enter_ioctl, exit_ioctl};
}  // namespace recorders

}  // namespace backstep
