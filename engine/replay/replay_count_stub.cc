// Counting a loop's passes in the replayed process itself: the instructions
// at an address move into a stub that counts down a word in its own page
// and traps at zero, then runs them and jumps back. Without a hardware
// counter, the timeline counts the passes of the last stretch before a hit
// (timeline_approach.cc): with a debug register each costs a debug
// exception (~4.5 us here, a VM exit), with the stub about a nanosecond.
//
// The stub keeps every register and flag: it spills rcx to its page and
// counts with mov, lea and jrcxz, which leave the flags alone, and uses no
// stack (the red zone below rsp is the program's). Only a copy the timeline
// throws away runs it; at its stop, disarm_counting_stub() puts the code
// back, unmaps the page and puts the thread where the stub found it, so
// that the copy can become a checkpoint: the program's registers and
// memory are as before (the code page is the process's own copy now, with
// the same bytes; state digests read writable memory only).
#include <sys/mman.h>
#include <sys/syscall.h>

#include <climits>
#include <cstring>

#include "engine/core/log.h"
#include "engine/core/proc_maps.h"
#include "engine/core/tool_page.h"
#include "engine/core/x86_decoder.h"
#include "engine/replay/replay_session.h"

namespace backstep {
namespace {

constexpr uint64_t kPage = 4096;
// Two pages: the code, then its data (a store to the page the CPU runs from
// is self-modifying code to it: a pipeline flush at every pass, ~150 ns).
constexpr uint64_t kCode = 0, kSaveSlot = kPage, kCountSlot = kPage + 8;
constexpr uint64_t kPages = 2 * kPage;
constexpr std::size_t kJmpLength = 5;
constexpr int kMaxMoved = 4;
// Counting without a stop: a count that never reaches zero.
constexpr uint64_t kNoStop = uint64_t{1} << 62;
// How far a direct jump may be looked for that lands inside the moved
// instructions (byte patterns: x86::may_be_jumped_into).
constexpr uint64_t kJumpReach = 4096;

// `mov %rcx, slot(%rip)` or `mov slot(%rip), %rcx` at `at`.
void put_rcx_slot(std::vector<uint8_t>& out, bool store, uint64_t at, uint64_t slot) {
  out.insert(out.end(), {0x48, static_cast<uint8_t>(store ? 0x89 : 0x8b), 0x0d});
  x86::append_rel32(out, at + 7, slot);
}

struct Moved {
  std::vector<x86::Instruction> insns;
  std::vector<uint8_t> bytes;  // the original bytes, as many as the jump covers
};

// The instructions from `addr` that the 5-byte jump covers, if each can
// run in the stub and no jump lands between them.
std::optional<Moved> plan_moves(uint64_t addr, const x86::ReadMemory& read) {
  uint8_t code[kMaxMoved * 15];
  std::size_t got = read(addr, code, sizeof code);
  Moved m;
  std::size_t off = 0;
  std::vector<uint64_t> inside;
  while (off < kJmpLength) {
    if (m.insns.size() == kMaxMoved) return std::nullopt;
    std::optional<x86::Instruction> insn = x86::decode(code + off, got - off, addr + off);
    if (!insn || insn->placement == x86::Placement::FixedControlFlow) return std::nullopt;
    if (off > 0) inside.push_back(addr + off);
    m.insns.push_back(*insn);
    off += insn->length;
    // A jump ends what can move: what follows it may be another block.
    if (insn->placement == x86::Placement::RelativeJump && off < kJmpLength) return std::nullopt;
  }
  for (const x86::Instruction& insn : m.insns) {
    bool aims = insn.placement == x86::Placement::RelativeJump || insn.placement == x86::Placement::RipRelative;
    if (aims && insn.target > addr && insn.target < addr + off) return std::nullopt;
  }
  if (x86::may_be_jumped_into(inside, addr, kJumpReach, read)) return std::nullopt;
  m.bytes.assign(code, code + off);
  return m;
}

// Whether [addr, end) lies in one private executable mapping: the jump is
// written into the process's own copy of the page, never into a file (a
// shared mapping would write the trace's copy of it).
bool private_code(const std::vector<MapsEntry>& maps, uint64_t addr, uint64_t end) {
  for (const MapsEntry& m : maps) {
    if (addr >= m.start && end <= m.end) return !m.shared && (m.prot & PROT_EXEC);
  }
  return false;
}

// A page-aligned address no mapping holds, within a rel32 of `addr` both
// ways with room to spare; 0 if none.
uint64_t free_page_near(const std::vector<MapsEntry>& maps, uint64_t addr) {
  constexpr uint64_t kReach = (uint64_t{1} << 31) - (uint64_t{1} << 24);
  constexpr uint64_t kSpan = 2 * 4096;
  uint64_t best = 0, best_distance = UINT64_MAX;
  uint64_t prev_end = 1ull << 16;  // above mmap_min_addr
  auto consider = [&](uint64_t gap_start, uint64_t gap_end) {
    if (gap_end < gap_start + kSpan) return;
    uint64_t candidate = addr >= gap_end ? gap_end - kSpan : gap_start;
    uint64_t distance = candidate > addr ? candidate - addr : addr - candidate;
    if (distance < kReach && distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  };
  for (const MapsEntry& m : maps) {
    if (m.start > prev_end) consider(prev_end, m.start);
    prev_end = std::max(prev_end, m.end);
  }
  return best;
}

}  // namespace

bool ReplaySession::arm_counting_stub(uint64_t addr, uint64_t stop_at) {
  BS_ASSERT(!counting_stub_, "a counting stub is armed already at 0x" << std::hex << counting_stub_->addr);
  auto read = [&](uint64_t at, void* buf, std::size_t len) { return task_->read_some(remote_ptr<void>(at), buf, len); };
  std::optional<Moved> moved = plan_moves(addr, read);
  if (!moved) {
    BS_LOG(Replay, "counting stub at 0x" << std::hex << addr << ": the code there cannot move");
    return false;
  }
  for (uint64_t b : breakpoints_) {
    if (b > addr && b < addr + moved->bytes.size()) return false;
  }
  std::vector<MapsEntry> maps = read_proc_maps(task_->tid());
  if (!private_code(maps, addr, addr + moved->bytes.size())) return false;
  uint64_t page = free_page_near(maps, addr);
  if (page == 0) return false;
  int64_t mapped = task_->remote_syscall(kToolSyscallInsn, SYS_mmap,
                                         {page, kPages, PROT_READ | PROT_WRITE | PROT_EXEC,
                                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, static_cast<uint64_t>(-1), 0});
  if (mapped != static_cast<int64_t>(page)) {
    BS_LOG(Replay, "counting stub at 0x" << std::hex << addr << ": mmap near it refused (" << std::dec << mapped << ")");
    return false;
  }
  CountingStub cs;
  cs.addr = addr;
  cs.page = page;
  cs.original = moved->bytes;
  cs.offset = breakpoint_reported_ && task_->regs().ip() == addr ? 1 : 0;
  cs.initial = stop_at ? stop_at + cs.offset : kNoStop;
  // The countdown, the moved instructions, the jump back; the trap.
  uint64_t code = page + kCode;
  std::vector<uint8_t> s;
  put_rcx_slot(s, true, code + s.size(), page + kSaveSlot);
  put_rcx_slot(s, false, code + s.size(), page + kCountSlot);
  s.insert(s.end(), {0x48, 0x8d, 0x49, 0xff});  // lea -1(%rcx),%rcx
  put_rcx_slot(s, true, code + s.size(), page + kCountSlot);
  std::size_t jrcxz_at = s.size();
  s.insert(s.end(), {0xe3, 0x00});  // jrcxz trap (patched below)
  put_rcx_slot(s, false, code + s.size(), page + kSaveSlot);
  std::size_t off = 0;
  bool reach = true;
  for (const x86::Instruction& insn : moved->insns) {
    reach = reach && x86::reaches_from(insn, code + s.size());
    x86::append_moved(s, insn, moved->bytes.data() + off, code + s.size());
    off += insn.length;
  }
  s.push_back(0xe9);
  x86::append_rel32(s, code + s.size() + 4, addr + off);
  std::size_t trap_at = s.size();
  s[jrcxz_at + 1] = static_cast<uint8_t>(trap_at - (jrcxz_at + 2));
  put_rcx_slot(s, false, code + s.size(), page + kSaveSlot);
  cs.trap = code + s.size();
  s.push_back(0xcc);
  if (!reach || trap_at - (jrcxz_at + 2) > 127 || !x86::within_rel32(addr + kJmpLength, code)) {
    task_->remote_syscall(kToolSyscallInsn, SYS_munmap, {page, kPages, 0, 0, 0, 0});
    return false;
  }
  uint64_t slots[2] = {0, cs.initial};
  task_->write_bytes(remote_ptr<void>(page + kSaveSlot), slots, sizeof slots);
  task_->write_bytes(remote_ptr<void>(code), s.data(), s.size());
  std::vector<uint8_t> jump = {0xe9};
  x86::append_rel32(jump, addr + kJmpLength, code);
  jump.resize(cs.original.size(), 0x90);  // never run: the stub comes back after them
  task_->write_bytes(remote_ptr<void>(addr), jump.data(), jump.size());
  counting_stub_ = std::move(cs);
  BS_LOG(Replay, "counting stub at 0x" << std::hex << addr << " (page 0x" << page << ", " << std::dec
                                       << moved->insns.size() << " instructions moved, stop at " << stop_at << ")");
  return true;
}

bool ReplaySession::counting_stub_possible(uint64_t addr) {
  auto read = [&](uint64_t at, void* buf, std::size_t len) { return task_->read_some(remote_ptr<void>(at), buf, len); };
  std::optional<Moved> moved = plan_moves(addr, read);
  return moved && private_code(read_proc_maps(task_->tid()), addr, addr + moved->bytes.size());
}

uint64_t ReplaySession::counting_stub_count() {
  if (!counting_stub_) return 0;
  uint64_t left = 0;
  task_->read_some(remote_ptr<void>(counting_stub_->page + kCountSlot), &left, sizeof left);
  uint64_t arrivals = counting_stub_->initial - left;
  return arrivals > counting_stub_->offset ? arrivals - counting_stub_->offset : 0;
}

bool ReplaySession::counting_stub_reached() {
  if (!counting_stub_ || task_->regs().ip() != counting_stub_->trap + 1) return false;
  counting_stub_->trapped = true;
  return true;
}

void ReplaySession::disarm_counting_stub() {
  if (!counting_stub_) return;
  CountingStub cs = std::move(*counting_stub_);
  counting_stub_.reset();
  task_->write_bytes(remote_ptr<void>(cs.addr), cs.original.data(), cs.original.size());
  if (cs.trapped) {
    // Before the execution the countdown stopped at, every register as
    // there (rcx restored before the trap).
    Registers regs = task_->regs();
    regs.set_ip(cs.addr);
    task_->set_regs(regs);
    breakpoint_reported_ = true;
  }
  int64_t r = task_->remote_syscall(kToolSyscallInsn, SYS_munmap, {cs.page, kPages, 0, 0, 0, 0});
  if (r != 0) diverged("unmapping the counting stub's page failed: " + std::to_string(r));
}

}  // namespace backstep
