// Linux AIO (io_setup, io_submit, io_getevents...). io_setup maps a
// completion ring into the program ("[aio]"), where the kernel writes an
// io_event for each finished request and moves the ring's tail; reads also
// fill the request's buffer. Buffered file I/O finishes inside io_submit,
// so everything the kernel wrote is in place at some system call's exit:
// the recorder records, after each AIO call, the ring's header and the
// events not yet consumed, and the buffers of the reads those events (and
// the ones io_getevents returns) completed. Replay maps the ring as shared
// anonymous memory at the same address (engine/replay/address_space.cc)
// and writes all of that back.
//
// Requests that finish later, between system calls (O_DIRECT on a slow
// disk, IOCB_CMD_POLL), are recorded at the next AIO call; a program that
// polls the ring in user space for them meanwhile could diverge, which
// replay detects at its next event.
#include <linux/aio_abi.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include <algorithm>
#include <vector>

#include "engine/record/shared_anonymous.h"
#include "engine/core/proc_maps.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

// The ring's header (fs/aio.c, struct aio_ring), followed by the events.
struct AioRingHeader {
  uint32_t id, nr, head, tail, magic, compat_features, incompat_features, header_length;
};
constexpr uint32_t kAioRingMagic = 0xa10a10a1;
constexpr uint64_t kMaxBuffer = uint64_t{1} << 26;

// The maps entry of the ring at `ctx` (the context id is its address).
bool ring_mapping(SyscallContext& ctx, uint64_t ring, trace::Mapping& m) {
  for (const MapsEntry& e : read_proc_maps(ctx.task.tid())) {
    if (e.start != ring) continue;
    m = shared_anonymous_mapping(e);
    return true;
  }
  return false;
}

// The buffers a finished read filled: `res` bytes for IOCB_CMD_PREAD, over
// the iovecs for IOCB_CMD_PREADV.
void record_completion(SyscallContext& ctx, const io_event& ev) {
  if (ev.obj == 0 || ev.res <= 0) return;
  iocb cb{};
  if (ctx.task.read_some(remote_ptr<void>(ev.obj), &cb, sizeof(cb)) != sizeof(cb)) return;
  auto done = std::min<uint64_t>(static_cast<uint64_t>(ev.res), kMaxBuffer);
  if (cb.aio_lio_opcode == IOCB_CMD_PREAD) ctx.record_memory(cb.aio_buf, std::min<uint64_t>(done, cb.aio_nbytes));
  if (cb.aio_lio_opcode == IOCB_CMD_PREADV) ctx.record_iovecs(cb.aio_buf, cb.aio_nbytes, done);
}

// The ring's header and its events from head to tail (written by the
// kernel, not consumed yet), with the buffers those events filled.
void record_ring(SyscallContext& ctx, uint64_t ring) {
  AioRingHeader h{};
  if (ctx.task.read_some(remote_ptr<void>(ring), &h, sizeof(h)) != sizeof(h) || h.magic != kAioRingMagic) return;
  ctx.record_memory(ring, sizeof(h));
  if (h.nr == 0 || h.head >= h.nr || h.tail >= h.nr) return;
  uint64_t events = ring + h.header_length;
  for (uint32_t i = h.head; i != h.tail; i = (i + 1) % h.nr) {
    uint64_t at = events + uint64_t{i} * sizeof(io_event);
    io_event ev{};
    if (ctx.task.read_some(remote_ptr<void>(at), &ev, sizeof(ev)) != sizeof(ev)) return;
    ctx.record_memory(at, sizeof(ev));
    record_completion(ctx, ev);
  }
}

void exit_io_setup(SyscallContext& ctx) {
  if (ctx.failed()) return;
  uint64_t ring = 0;
  if (ctx.task.read_some(remote_ptr<void>(ctx.arg(1)), &ring, sizeof(ring)) != sizeof(ring)) return;
  ctx.record_memory(ctx.arg(1), sizeof(ring));
  trace::Mapping m;
  if (!ring_mapping(ctx, ring, m)) ctx.refuse_after_call("io_setup succeeded, but its ring is not in the process's maps");
  ctx.event.mappings.push_back(m);
  ctx.record_memory(m.start, m.end - m.start);  // the new ring, whole
}

// io_submit, io_cancel: what finished meanwhile is in the ring.
void exit_io_submit(SyscallContext& ctx) { record_ring(ctx, ctx.arg(0)); }

void exit_io_cancel(SyscallContext& ctx) {
  if (!ctx.failed()) ctx.record_memory(ctx.arg(2), sizeof(io_event));
  record_ring(ctx, ctx.arg(0));
}

// io_getevents and io_pgetevents: the events copied out, their buffers, and
// the ring (whose head moved).
void exit_io_getevents(SyscallContext& ctx) {
  if (!ctx.failed() && ctx.result() > 0) {
    auto n = static_cast<uint64_t>(ctx.result());
    ctx.record_memory(ctx.arg(3), n * sizeof(io_event));
    std::vector<io_event> events(n);
    size_t got = ctx.task.read_some(remote_ptr<void>(ctx.arg(3)), events.data(), n * sizeof(io_event));
    for (size_t i = 0; i < got / sizeof(io_event); ++i) record_completion(ctx, events[i]);
  }
  record_ring(ctx, ctx.arg(0));
}

// io_destroy unmaps the ring: its extent, read before the call, goes in
// the event for replay.
void enter_io_destroy(SyscallContext& ctx) {
  trace::Mapping m;
  if (ring_mapping(ctx, ctx.arg(0), m)) ctx.event.mappings.push_back(m);
}

void exit_io_destroy(SyscallContext& ctx) {
  if (ctx.failed()) {
    ctx.event.mappings.clear();
  } else if (ctx.event.mappings.empty()) {
    ctx.refuse_after_call("io_destroy succeeded where backstep saw no ring");
  }
}

}  // namespace

namespace recorders {
extern const SyscallRecorder io_setup{nullptr, exit_io_setup};
extern const SyscallRecorder io_destroy{enter_io_destroy, exit_io_destroy};
extern const SyscallRecorder io_submit{nullptr, exit_io_submit};
extern const SyscallRecorder io_cancel{nullptr, exit_io_cancel};
extern const SyscallRecorder io_getevents{nullptr, exit_io_getevents};
}  // namespace recorders

}  // namespace backstep
