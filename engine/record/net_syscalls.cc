// Sockets: the message-based receives scatter into caller-described buffers.
#include <sys/socket.h>
#include <sys/syscall.h>

#include <algorithm>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

constexpr uint64_t kMaxSockaddr = sizeof(sockaddr_storage);

// Records what recvmsg wrote for one msghdr, given the bytes received.
void record_received_msghdr(SyscallContext& ctx, uint64_t msg_addr, uint64_t received) {
  msghdr msg;
  if (ctx.task.read_some(remote_ptr<void>(msg_addr), &msg, sizeof(msg)) != sizeof(msg)) return;
  // The kernel updates msg_namelen, msg_controllen and msg_flags in place.
  ctx.record_memory(msg_addr, sizeof(msg));
  ctx.record_memory(reinterpret_cast<uint64_t>(msg.msg_name),
                    std::min<uint64_t>(msg.msg_namelen, kMaxSockaddr));
  ctx.record_iovecs(reinterpret_cast<uint64_t>(msg.msg_iov), msg.msg_iovlen, received);
  ctx.record_memory(reinterpret_cast<uint64_t>(msg.msg_control), msg.msg_controllen);
}

void exit_recvmsg(SyscallContext& ctx) {
  if (!ctx.failed()) record_received_msghdr(ctx, ctx.arg(1), static_cast<uint64_t>(ctx.result()));
}

void exit_recvmmsg(SyscallContext& ctx) {
  if (ctx.failed()) return;
  uint64_t received = static_cast<uint64_t>(ctx.result());
  for (uint64_t i = 0; i < received; ++i) {
    uint64_t entry = ctx.arg(1) + i * sizeof(mmsghdr);
    mmsghdr m;
    if (ctx.task.read_some(remote_ptr<void>(entry), &m, sizeof(m)) != sizeof(m)) break;
    record_received_msghdr(ctx, entry, m.msg_len);
    ctx.record_memory(entry + offsetof(mmsghdr, msg_len), sizeof(m.msg_len));
  }
  ctx.record_memory(ctx.arg(4), 16);  // timeout, updated in place
}

// What sendto, sendmsg and sendmmsg sent through a socket that is our
// stdout or stderr is output to re-emit.
void echo_sent(SyscallContext& ctx) {
  if (!ctx.failed() && ctx.written) ctx.echo_if_stdio(static_cast<int>(ctx.arg(0)), *ctx.written);
}

// The kernel stores each message's sent length in msg_len.
void exit_sendmmsg(SyscallContext& ctx) {
  if (ctx.failed()) return;
  echo_sent(ctx);
  uint64_t sent = static_cast<uint64_t>(ctx.result());
  for (uint64_t i = 0; i < sent; ++i) {
    ctx.record_memory(ctx.arg(1) + i * sizeof(mmsghdr) + offsetof(mmsghdr, msg_len), sizeof(unsigned));
  }
}

}  // namespace

namespace recorders {
extern const SyscallRecorder recvmsg{nullptr, exit_recvmsg};
extern const SyscallRecorder recvmmsg{nullptr, exit_recvmmsg};
extern const SyscallRecorder sendmmsg{nullptr, exit_sendmmsg};
extern const SyscallRecorder send{nullptr, echo_sent};
}  // namespace recorders

}  // namespace backstep
