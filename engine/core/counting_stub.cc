#include "engine/core/counting_stub.h"

#include <sys/mman.h>
#include <sys/syscall.h>

#include <sys/user.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#include "values/log.h"
#include "engine/core/proc_maps.h"
#include "values/registers.h"
#include "engine/core/task.h"
#include "engine/core/tool_page.h"
#include "engine/core/x86_decoder.h"

namespace backstep {
namespace {

constexpr uint64_t kPage = 4096;
// Two pages: the code, then its data (a store to the page the CPU runs from
// is self-modifying code to it: a pipeline flush at every pass, ~150 ns).
constexpr uint64_t kCode = 0, kSaveSlot = kPage, kCountSlot = kPage + 8;
constexpr std::size_t kJmpLength = 5;
constexpr int kMaxMoved = 4;
// How far a direct jump may be looked for that lands inside the moved
// instructions (byte patterns: x86::may_be_jumped_into).
constexpr uint64_t kJumpReach = 4096;
// Instructions leave_count() may step: the counting ones are six.
constexpr int kMaxSteps = 48;

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
// shared mapping would write the file).
bool private_code(const std::vector<MapsEntry>& maps, uint64_t addr, uint64_t end) {
  for (const MapsEntry& m : maps) {
    if (addr >= m.start && end <= m.end) return !m.shared && (m.prot & PROT_EXEC);
  }
  return false;
}

// A page-aligned address no mapping holds, within a rel32 of `addr` both
// ways with room to spare; 0 if none.
uint64_t free_pages_near(const std::vector<MapsEntry>& maps, uint64_t addr, uint64_t span) {
  constexpr uint64_t kReach = (uint64_t{1} << 31) - (uint64_t{1} << 24);
  uint64_t best = 0, best_distance = UINT64_MAX;
  uint64_t prev_end = 1ull << 16;  // above mmap_min_addr
  auto consider = [&](uint64_t gap_start, uint64_t gap_end) {
    if (gap_end < gap_start + span) return;
    uint64_t candidate = addr >= gap_end ? gap_end - span : gap_start;
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

x86::ReadMemory reader_of(Task& task) {
  return [&task](uint64_t at, void* buf, std::size_t len) { return task.read_some(remote_ptr<void>(at), buf, len); };
}


// The stub's code for a plain count: rcx spilled to the save slot, the
// count decremented with lea (no flags), jrcxz to the trap.
void put_plain_count(std::vector<uint8_t>& s, uint64_t code, uint64_t page, std::vector<std::size_t>& to_trap,
                     std::size_t& undo_at) {
  put_rcx_slot(s, true, code + s.size(), page + kSaveSlot);
  put_rcx_slot(s, false, code + s.size(), page + kCountSlot);
  s.insert(s.end(), {0x48, 0x8d, 0x49, 0xff});  // lea -1(%rcx),%rcx
  put_rcx_slot(s, true, code + s.size(), page + kCountSlot);
  to_trap.push_back(s.size());
  s.insert(s.end(), {0xe3, 0x00});  // jrcxz trap (rel8, patched)
  undo_at = s.size();
  put_rcx_slot(s, false, code + s.size(), page + kSaveSlot);
}

// General-purpose registers as a ModRM reg field (with REX.R for r8-r15)
// and their offset in user_regs_struct, rsp apart.
struct GprSlot {
  uint8_t number;
  std::size_t offset;
};
constexpr GprSlot kGprs[] = {
    {0, offsetof(user_regs_struct, rax)}, {1, offsetof(user_regs_struct, rcx)},
    {2, offsetof(user_regs_struct, rdx)}, {3, offsetof(user_regs_struct, rbx)},
    {5, offsetof(user_regs_struct, rbp)}, {6, offsetof(user_regs_struct, rsi)},
    {7, offsetof(user_regs_struct, rdi)}, {8, offsetof(user_regs_struct, r8)},
    {9, offsetof(user_regs_struct, r9)},   {10, offsetof(user_regs_struct, r10)},
    {11, offsetof(user_regs_struct, r11)}, {12, offsetof(user_regs_struct, r12)},
    {13, offsetof(user_regs_struct, r13)}, {14, offsetof(user_regs_struct, r14)},
    {15, offsetof(user_regs_struct, r15)},
};
// Where the matching count keeps rax and the flags while it compares, and
// where the registers to match lie, in the data page.
constexpr uint64_t kSaveRax = kPage + 16, kSaveFlags = kPage + 24, kMatchSlots = kPage + 32;

// `cmp slot(%rip), %reg` (64-bit) at `at`.
void put_cmp_slot(std::vector<uint8_t>& out, uint8_t reg, uint64_t at, uint64_t slot) {
  out.push_back(reg >= 8 ? 0x4c : 0x48);
  out.push_back(0x3b);
  out.push_back(static_cast<uint8_t>(((reg & 7) << 3) | 5));
  x86::append_rel32(out, at + 7, slot);
}

// `mov %rax, slot(%rip)` or `mov slot(%rip), %rax` at `at`.
void put_rax_slot(std::vector<uint8_t>& out, bool store, uint64_t at, uint64_t slot) {
  out.insert(out.end(), {0x48, static_cast<uint8_t>(store ? 0x89 : 0x8b), 0x05});
  x86::append_rel32(out, at + 7, slot);
}

// Puts the flags back from the save slot (lahf's SF ZF AF PF CF in AH,
// OF in AL: adding 0x7f to AL overflows exactly when it was 1), then rax.
void put_flags_back(std::vector<uint8_t>& s, uint64_t code, uint64_t page) {
  put_rax_slot(s, false, code + s.size(), page + kSaveFlags);
  s.insert(s.end(), {0x04, 0x7f});  // add $0x7f,%al
  s.push_back(0x9e);                // sahf
  put_rax_slot(s, false, code + s.size(), page + kSaveRax);
}

// The stub's code for a count of matching arrivals. It writes nothing
// outside its page (the digest reads the stack, even below the red zone):
// the flags that the comparisons change are kept with lahf and seto; each
// register is compared with its slot, a difference skips the count; the
// count is a decq, and its zero goes to the trap. The values to compare go
// to the data page (`slots`, from kMatchSlots).
void put_matching_count(std::vector<uint8_t>& s, uint64_t code, uint64_t page, const Registers& match,
                        std::vector<uint64_t>& slots, std::vector<std::size_t>& to_skip,
                        std::vector<std::size_t>& to_trap32) {
  const user_regs_struct& r = match.raw();
  put_rax_slot(s, true, code + s.size(), page + kSaveRax);
  s.push_back(0x9f);                      // lahf
  s.insert(s.end(), {0x0f, 0x90, 0xc0});  // seto %al
  put_rax_slot(s, true, code + s.size(), page + kSaveFlags);
  put_rax_slot(s, false, code + s.size(), page + kSaveRax);
  uint64_t slot = page + kMatchSlots;
  put_cmp_slot(s, 4, code + s.size(), slot);  // rsp
  slots.push_back(r.rsp);
  slot += 8;
  to_skip.push_back(s.size());
  s.insert(s.end(), {0x0f, 0x85, 0, 0, 0, 0});  // jne skip
  for (const GprSlot& g : kGprs) {
    uint64_t value;
    std::memcpy(&value, reinterpret_cast<const uint8_t*>(&r) + g.offset, 8);
    put_cmp_slot(s, g.number, code + s.size(), slot);
    slots.push_back(value);
    slot += 8;
    to_skip.push_back(s.size());
    s.insert(s.end(), {0x0f, 0x85, 0, 0, 0, 0});  // jne skip
  }
  s.insert(s.end(), {0x48, 0xff, 0x0d});  // decq count(%rip)
  x86::append_rel32(s, code + s.size() + 4, page + kCountSlot);
  to_trap32.push_back(s.size());
  s.insert(s.end(), {0x0f, 0x84, 0, 0, 0, 0});  // jz trap
}

void patch_rel32(std::vector<uint8_t>& s, std::size_t jcc_at, std::size_t to) {
  int32_t rel = static_cast<int32_t>(static_cast<int64_t>(to) - static_cast<int64_t>(jcc_at + 6));
  std::memcpy(&s[jcc_at + 2], &rel, 4);
}

}  // namespace

std::optional<CountingStub> CountingStub::arm(Task& task, uint64_t addr, uint64_t countdown,
                                              std::vector<siginfo_t>* held, const Registers* match) {
  std::optional<Moved> moved = plan_moves(addr, reader_of(task));
  if (!moved) {
    BS_LOG(Replay, "counting stub at 0x" << std::hex << addr << ": the code there cannot move");
    return std::nullopt;
  }
  std::vector<MapsEntry> maps = read_proc_maps(task.tid());
  if (!private_code(maps, addr, addr + moved->bytes.size())) return std::nullopt;
  uint64_t page = free_pages_near(maps, addr, kPages);
  if (page == 0) return std::nullopt;
  CountingStub cs;
  cs.addr_ = addr;
  cs.page_ = page;
  cs.original_ = moved->bytes;
  cs.initial_ = countdown;
  // The count, the moved instructions, the jump back; the trap.
  uint64_t code = page + kCode;
  std::vector<uint8_t> s;
  std::vector<std::size_t> to_trap8, to_trap32, to_skip;
  std::vector<uint64_t> slots;
  std::size_t undo_at = 0;
  if (match) {
    put_matching_count(s, code, page, *match, slots, to_skip, to_trap32);
    undo_at = s.size();
    put_flags_back(s, code, page);
  } else {
    put_plain_count(s, code, page, to_trap8, undo_at);
  }
  for (std::size_t at : to_skip) patch_rel32(s, at, undo_at);
  cs.counted_end_ = code + s.size();
  std::size_t off = 0;
  bool reach = true;
  for (const x86::Instruction& insn : moved->insns) {
    reach = reach && x86::reaches_from(insn, code + s.size());
    cs.moved_.emplace_back(code + s.size(), addr + off);
    x86::append_moved(s, insn, moved->bytes.data() + off, code + s.size());
    off += insn.length;
  }
  cs.jump_back_ = code + s.size();
  s.push_back(0xe9);
  x86::append_rel32(s, code + s.size() + 4, addr + off);
  std::size_t trap_at = s.size();
  for (std::size_t at : to_trap8) {
    if (trap_at - (at + 2) > 127) return std::nullopt;
    s[at + 1] = static_cast<uint8_t>(trap_at - (at + 2));
  }
  for (std::size_t at : to_trap32) patch_rel32(s, at, trap_at);
  cs.trap_path_ = code + s.size();
  if (match) {
    put_flags_back(s, code, page);
  } else {
    put_rcx_slot(s, false, code + s.size(), page + kSaveSlot);
  }
  cs.trap_ = code + s.size();
  s.push_back(0xcc);
  if (!reach || s.size() > kPage || !x86::within_rel32(addr + kJmpLength, code)) return std::nullopt;
  int64_t mapped = task.remote_syscall(kToolSyscallInsn, SYS_mmap,
                                       {page, kPages, PROT_READ | PROT_WRITE | PROT_EXEC,
                                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, static_cast<uint64_t>(-1), 0},
                                       held);
  if (mapped != static_cast<int64_t>(page)) {
    BS_LOG(Replay, "counting stub at 0x" << std::hex << addr << ": mmap near it refused (" << std::dec << mapped << ")");
    return std::nullopt;
  }
  std::vector<uint64_t> data = {0, countdown, 0, 0};
  data.insert(data.end(), slots.begin(), slots.end());
  task.write_bytes(remote_ptr<void>(page + kSaveSlot), data.data(), data.size() * 8);
  task.write_bytes(remote_ptr<void>(code), s.data(), s.size());
  std::vector<uint8_t> jump = {0xe9};
  x86::append_rel32(jump, addr + kJmpLength, code);
  jump.resize(cs.original_.size(), 0x90);  // never run: the stub comes back after them
  task.write_bytes(remote_ptr<void>(addr), jump.data(), jump.size());
  BS_LOG(Replay, "counting stub at 0x" << std::hex << addr << " (page 0x" << page << ", " << std::dec
                                       << moved->insns.size() << " instructions moved, countdown " << countdown
                                       << (match ? ", matching registers" : "") << ")");
  return cs;
}

bool CountingStub::possible(Task& task, uint64_t addr) { return possible(task, addr, read_proc_maps(task.tid())); }

bool CountingStub::possible(Task& task, uint64_t addr, const std::vector<MapsEntry>& maps) {
  std::optional<Moved> moved = plan_moves(addr, reader_of(task));
  return moved && private_code(maps, addr, addr + moved->bytes.size());
}

std::optional<uint64_t> CountingStub::patched_end(Task& task, uint64_t addr) {
  std::optional<Moved> moved = plan_moves(addr, reader_of(task));
  if (!moved || !private_code(read_proc_maps(task.tid()), addr, addr + moved->bytes.size())) return std::nullopt;
  return addr + moved->bytes.size();
}

uint64_t CountingStub::arrivals(Task& task) const {
  uint64_t left = 0;
  task.read_some(remote_ptr<void>(page_ + kCountSlot), &left, sizeof left);
  return initial_ - left;
}

void CountingStub::set_countdown(Task& task, uint64_t left) {
  uint64_t so_far = arrivals(task);
  task.write_bytes(remote_ptr<void>(page_ + kCountSlot), &left, sizeof left);
  initial_ = so_far + left;
}

void CountingStub::leave_count(Task& task, std::vector<siginfo_t>& held) const {
  for (int i = 0; i < kMaxSteps; ++i) {
    uint64_t ip = task.regs().ip();
    bool counting = (ip >= page_ + kCode && ip < counted_end_) || (ip >= trap_path_ && ip < trap_);
    if (!counting) {
      return;
    }
    task.resume(ResumeHow::SingleStep);
    WaitStatus ws = task.wait();
    if (ws.is_gone()) throw TaskGone("thread " + std::to_string(task.tid()) + " ended inside a counting stub");
    if (ws.is_signal() && ws.signal != SIGTRAP) held.push_back(task.siginfo());
  }
  throw std::runtime_error("thread " + std::to_string(task.tid()) + " did not leave the counting stub at 0x" +
                           std::to_string(addr_));
}

uint64_t CountingStub::program_ip(uint64_t ip) const {
  if (!contains(ip)) return ip;
  if (ip == trap_ || ip == trap_ + 1) return addr_;
  if (ip == jump_back_) return end();
  for (const auto& [in_stub, in_program] : moved_) {
    if (ip == in_stub) return in_program;
  }
  return ip;  // in the counting instructions: leave_count() first
}

bool CountingStub::leave(Task& task, std::vector<siginfo_t>& held) const {
  leave_count(task, held);
  Registers regs = task.regs();
  bool trapped = trapped_at(regs.ip());
  uint64_t ip = program_ip(regs.ip());
  if (ip != regs.ip()) {
    regs.set_ip(ip);
    task.set_regs(regs);
  }
  return trapped;
}

void CountingStub::disarm(Task& task, std::vector<siginfo_t>* held) {
  put_code_back(task);
  unmap(task, held);
}

void CountingStub::put_code_back(Task& task) {
  task.write_bytes(remote_ptr<void>(addr_), original_.data(), original_.size());
}

void CountingStub::unmap(Task& task, std::vector<siginfo_t>* held) {
  int64_t r = task.remote_syscall(kToolSyscallInsn, SYS_munmap, {page_, kPages, 0, 0, 0, 0}, held);
  if (r != 0) throw std::runtime_error("unmapping the counting stub's pages failed: " + std::to_string(r));
}

}  // namespace backstep
