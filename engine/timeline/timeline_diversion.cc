// Diversions on the timeline (diversion.h): when one starts, what reads see
// while it lasts, and when it ends.
//
// A debugger calls a function by saving the registers, writing arguments,
// a return address and a trap into the program, setting the pc, resuming
// until the trap, reading the result and writing the saved registers back.
// gdb does this with P/G and M packets, lldb with QSaveRegisterState,
// _M and QRestoreRegisterState. The first write that changes something
// forks the replay at the position into a Diversion; writes, reads and
// resumes go there from then on.
//
// Once a function ran there and every thread the debugger touched has the
// replay's registers again, the call is over: the diversion goes dormant,
// and reads see the recording again (a global the function changed shows
// its recorded value). The next write that changes something wakes it, so
// that calls made at one stop share one live copy: gdb calls malloc in the
// program for a string argument, writes the string there, then calls the
// function with it, and the memory malloc found must still be there.
//
// A dormant diversion still answers reads of memory the replay cannot
// observe: the stack below a thread's red zone (where gdb puts a struct a
// called function returns, read after the registers are back) and what the
// replay has not mapped (memory the call mapped). Everything else shows
// the recording.
//
// A diversion ends, its processes killed, at the next resume that finds
// the registers as they were (or every resume while it is dormant), at a
// reverse request and at a restart: the replay then goes on from where it
// stood. A diversion with writes but no call (`set var x = 5`) shows the
// new values until then.
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "engine/timeline/replay_timeline.h"

namespace backstep {
namespace {

// Registers the user sees alike: orig_rax aside (gdb writes -1 there with
// every pc it sets, and the replay restarts no system call either way).
bool same_registers(Registers a, Registers b) {
  a.set_syscallno(0);
  b.set_syscallno(0);
  return a.same_state(b);
}

std::string address_text(uint64_t addr) {
  char text[32];
  std::snprintf(text, sizeof text, "%#llx", static_cast<unsigned long long>(addr));
  return text;
}

std::string signal_text(int sig) {
  const char* name = sigabbrev_np(sig);
  return name ? std::string("SIG") + name : "signal " + std::to_string(sig);
}

// The parts of two XSAVE areas a debugger shows and restores: the x87
// control, status and tag words, MXCSR, st0-st7, xmm0-xmm15 and, with AVX,
// the upper halves of ymm0-ymm15. The rest (the last instruction and
// operand pointers, AVX-512 state, the header) no debugger writes back.
bool same_visible_xstate(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  constexpr std::pair<std::size_t, std::size_t> kRanges[] = {{0, 5}, {24, 28}, {32, 416}, {576, 832}};
  for (auto [from, to] : kRanges) {
    bool in_a = a.size() >= to, in_b = b.size() >= to;
    if (in_a != in_b) return false;
    if (in_a && !std::equal(a.begin() + static_cast<long>(from), a.begin() + static_cast<long>(to),
                            b.begin() + static_cast<long>(from))) {
      return false;
    }
  }
  return true;
}

}  // namespace

void ReplayTimeline::end_diversion() {
  // What the copy left in the debugger's memory stays (a result lldb reads
  // later); a copy whose process is gone leaves the bytes as they were.
  if (diversion_ && !diversion_->ended()) {
    for (const auto& [addr, region] : client_memory_.regions()) {
      std::vector<uint8_t> now = diversion_->read_memory(addr, region.size);
      if (now.size() == region.size) client_memory_.write(addr, now);
    }
  }
  diversion_.reset();
  diversion_dormant_ = false;
}

bool ReplayTimeline::diversion_live() const { return diversion_ && !diversion_dormant_; }

bool ReplayTimeline::registers_restored() {
  if (!diversion_) return true;
  for (uint32_t tid : diversion_->touched_threads()) {
    if (!current_->has_thread(tid)) continue;
    if (!same_registers(live_registers(static_cast<pid_t>(tid)), diversion_->registers(tid))) return false;
    if (!same_visible_xstate(current_->thread_xstate(tid), diversion_->xstate(tid))) return false;
  }
  return true;
}

void ReplayTimeline::settle_diversion() {
  if (diversion_live() && diversion_->has_run() && registers_restored()) diversion_dormant_ = true;
}

bool ReplayTimeline::in_called_function() { return diversion_live() && !registers_restored(); }

std::vector<uint8_t> ReplayTimeline::dormant_read(uint64_t addr, std::size_t len) {
  std::vector<uint8_t> out = current_->read_memory(addr, len);
  // What the replay has not mapped: the copy's.
  if (out.size() < len) {
    std::vector<uint8_t> rest = diversion_->read_memory(addr + out.size(), len - out.size());
    out.insert(out.end(), rest.begin(), rest.end());
  }
  // Below the red zone of a thread the debugger ran code in: the copy's.
  constexpr uint64_t kRedZone = 128, kDeadStack = 1 << 20;
  for (uint32_t tid : diversion_->touched_threads()) {
    if (!current_->has_thread(tid)) continue;
    uint64_t sp = live_registers(static_cast<pid_t>(tid)).sp();
    if (sp < kRedZone + kDeadStack) continue;
    uint64_t lo = std::max(addr, sp - kRedZone - kDeadStack), hi = std::min(addr + out.size(), sp - kRedZone);
    if (lo >= hi) continue;
    std::vector<uint8_t> dead = diversion_->read_memory(lo, hi - lo);
    std::copy(dead.begin(), dead.end(), out.begin() + static_cast<long>(lo - addr));
  }
  return out;
}

std::string ReplayTimeline::take_note() { return std::exchange(note_, std::string()); }

void ReplayTimeline::write_registers(pid_t tid, const Registers& regs, const std::vector<uint8_t>& xstate) {
  materialize();  // compared with the replay where the user stands
  uint32_t t = tid == 0 ? current_->stopped_thread() : static_cast<uint32_t>(tid);
  if (!current_->has_thread(t)) throw std::out_of_range("no thread " + std::to_string(t) + " at this point");
  if (!diversion_live() && same_registers(live_registers(static_cast<pid_t>(t)), regs) &&
      (xstate.empty() || same_visible_xstate(xstate, current_->thread_xstate(t)))) {
    return;  // nothing changes: no diversion (a dormant one stays asleep)
  }
  divert().set_registers(t, regs, xstate);
  settle_diversion();
}

std::size_t ReplayTimeline::write_memory(uint64_t addr, const std::vector<uint8_t>& bytes) {
  if (client_memory_.find(addr)) {
    // The debugger's own memory: the diversion's copy while there is one
    // (it does not wake a dormant one), else the bytes kept here.
    return diversion_ ? diversion_->write_memory(addr, bytes) : client_memory_.write(addr, bytes);
  }
  materialize();
  std::vector<uint8_t> now = current_->read_memory(addr, bytes.size());
  if (!diversion_) {
    if (now == bytes) return bytes.size();  // nothing changes
    if (now.empty()) return 0;               // nothing mapped there
  }
  // Memory only the diversion has (lldb's _M, what a call mapped) leaves a
  // dormant one asleep; anything else wakes it: the memory may be what an
  // earlier call found there (malloc's block for a string argument).
  if (diversion_ && !diversion_live() && now.empty()) return diversion_->write_memory(addr, bytes);
  return divert().write_memory(addr, bytes);
}

std::optional<uint64_t> ReplayTimeline::allocate_memory(uint64_t size, int prot) {
  // Kept outside the replay, so no diversion starts; one under way (dormant
  // or not) gets the region too.
  std::vector<MemoryMapping> taken = memory_map();
  if (diversion_) {
    for (const MemoryMapping& m : diversion_->memory_map()) taken.push_back(m);
  }
  std::optional<uint64_t> addr = client_memory_.allocate(size, prot, taken);
  if (addr && diversion_ && !diversion_->ended()) {
    const ClientMemory::Region& r = *client_memory_.find(*addr);
    if (!diversion_->map_client_region(*addr, r.prot, r.bytes)) {
      client_memory_.deallocate(*addr);
      return std::nullopt;
    }
  }
  return addr;
}

Diversion& ReplayTimeline::divert() {
  if (!diversion_) {
    materialize();  // the copy is made where the user stands
    diversion_ = std::make_unique<Diversion>(current_->clone(), current_->debuggee());
    for (const auto& [addr, region] : client_memory_.regions()) {
      if (!diversion_->map_client_region(addr, region.prot, region.bytes)) {
        note_ += "backstep: the debugger's memory at " + address_text(addr) +
                 " could not be mapped in the copy of the program (something is mapped there at this "
                 "position)\n";
      }
    }
  }
  diversion_dormant_ = false;
  return *diversion_;
}

bool ReplayTimeline::deallocate_memory(uint64_t addr) {
  // Only a region's start frees it (as _m's address is the one _M gave).
  auto region = client_memory_.regions().find(addr);
  if (region == client_memory_.regions().end()) return false;
  if (diversion_ && !diversion_->ended()) diversion_->unmap_client_region(addr, region->second.size);
  return client_memory_.deallocate(addr);
}

TargetStop ReplayTimeline::resume_diversion(const ResumeRequest& request, const std::function<bool()>& interrupted) {
  uint32_t tid = request.thread != 0 ? static_cast<uint32_t>(request.thread) : current_->stopped_thread();
  std::set<uint64_t> traps = breakpoints_;  // hardware ones included
  traps.insert(diversion_breakpoints_.begin(), diversion_breakpoints_.end());
  Diversion& d = *diversion_;
  TargetStop stop;
  int signal = request.signal;
  if (request.how == ResumeRequest::How::RangeStep) {
    // Steps while the pc stays in the range, as a forward range step does.
    do {
      stop = d.resume(tid, true, signal, traps, interrupted);
      signal = 0;
      if (stop.kind != TargetStop::Kind::Step) break;
      uint64_t pc = d.registers(tid).ip();
      if (traps.count(pc)) {
        stop.kind = TargetStop::Kind::Breakpoint;
        stop.address = pc;
        break;
      }
      if (pc < request.range_start || pc >= request.range_end) break;
    } while (!(interrupted && interrupted()));
  } else {
    stop = d.resume(tid, request.how == ResumeRequest::How::Step, signal, traps, interrupted);
  }
  if (stop.kind == TargetStop::Kind::Breakpoint) stop.hardware = hw_breakpoints_.count(stop.address) != 0;
  std::string refusals;
  for (const std::string& call : d.take_refused_calls()) {
    refusals += "backstep: a function called by the debugger tried " + call +
                ", refused (it failed with ENOSYS): a called function may only act inside its copy of the "
                "program (docs/user-guide.md, \"Calling functions during replay\")\n";
  }
  if (d.take_refused_fork()) {
    refusals +=
        "backstep: gdb's `checkpoint` command forks the program, which a replay cannot do; use `monitor "
        "checkpoint` instead, and `run cN` to go back to checkpoint N (`monitor info checkpoints` lists them)\n";
  }
  if (stop.kind == TargetStop::Kind::Signal) {
    last_siginfo_ = d.siginfo(tid);
  } else if (d.ended()) {
    // The called function ended the copy's process: that is the end of the
    // diversion, not of the program. Back to the replay, as it stood.
    std::string how = stop.kind == TargetStop::Kind::Exited
                          ? "exited with status " + std::to_string(stop.exit_code)
                          : "was killed by " + signal_text(stop.signal);
    note_ = "backstep: the program " + how +
            " while running a function called by the debugger; that call is abandoned and the replay is back "
            "where it stood, as recorded.\n";
    end_diversion();
    stop = make_stop(TargetStop::Kind::Step);
    last_siginfo_ = trap_siginfo(stop);
  } else {
    last_siginfo_ = trap_siginfo(stop);
  }
  note_ = refusals + note_;
  return stop;
}

}  // namespace backstep
