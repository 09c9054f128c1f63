// Replaying a Position event: the recorder stopped the program somewhere in
// user code and named the place by its registers and a digest of its state
// (engine/record/forced_position.cc). Replay runs to the first moment since
// the previous event where both match: a breakpoint at the instruction,
// registers compared at each hit, the digest computed only when they match.
//
// Running there costs one trap per pass through the loop since the previous
// event. A loop that changes something on every pass (a counter) can take
// hundreds of millions of passes before a timer's signal comes; after
// kSearchHits passes (or kSearchDigests digests), replay puts the program
// into the recorded state directly, from the state stored with the event
// and its registers, and checks the digest. A stored state may hold only
// the pages that changed since the process's previous one
// (trace::StoredState): replay keeps the image of each process's latest
// stored state, lays every state over it as it reaches the Position
// (whether it then takes it or not), and copies the images into the
// sessions it clones for checkpoints. Taking a state writes only the pages
// that differ from the program's. The program's future is the same,
// but the passes skipped run nowhere: while the debugged process has a
// breakpoint or a watchpoint (may_skip_passes()), the search goes on by
// running, trap by trap where no stub fits, so that each is reported at
// every pass; the debugger can interrupt it. Without a debugger
// (ReplayOptions::unwatched) nothing can see the passes, and the state is taken at once: a thread that
// computes in a loop is handed over at a forced position every 100 ms of
// recording, and the search cost up to 40 ms each.
//
// Searching would check no more than the jump does: the loop is user code
// alone, so from the state of the previous event it reaches the recorded
// state, and the digest checked after the jump is that state's. Only a
// fixpoint, which stores no state, must be found by running.
//
// A replay that can never get there must not hang. A search that digests
// for two minutes without a stored state to take ends as a divergence
// (give_up_search()). If two successive hits show exactly the same state
// (registers and digest), the program is in a loop that never changes
// anything and will not leave it: that is reported as a divergence. A
// system call or a signal before the position is one too.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "values/log.h"
#include "engine/core/state_digest.h"
#include "engine/replay/replay_session.h"

namespace backstep {
namespace {

constexpr uint64_t kSearchHits = 4000;
constexpr uint64_t kSearchDigests = 64;
// How long a search that digests at (nearly) every pass may go on when no
// state is stored to take instead: the recorder chose positions whose
// registers differ from the previous pass's (count_site_search.cc), so one
// that matches pass after pass is far from what recording saw.
// BACKSTEP_SEARCH_GIVE_UP_S sets another limit (to try a trace).
std::chrono::seconds search_give_up() {
  static const std::chrono::seconds limit = [] {
    const char* v = std::getenv("BACKSTEP_SEARCH_GIVE_UP_S");
    long s = v ? std::strtol(v, nullptr, 10) : 0;
    return std::chrono::seconds(s > 0 ? s : 120);
  }();
  return limit;
}
constexpr uint64_t kPage = trace::kStatePageSize;
// Pages written into the program at most at once when it takes a state.
constexpr std::size_t kWriteRun = 256;

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

}  // namespace

bool ReplaySession::at_position(const trace::Event& position, const Registers& live) {
  Registers want = Registers::from_block(*position.regs);
  if (without_trap_flags(live).to_block() != without_trap_flags(want).to_block()) return false;
  ++position_digests_;
  StateDigest d = state_digest(*task_, task_->xstate(), int3s_.originals());
  return d.combined() == position.position->digest;
}

bool ReplaySession::may_skip_passes() const {
  return !(in_debuggee() && (!traps_.breakpoints.empty() || !traps_.watchpoints.empty()));
}

void ReplaySession::give_up_search(uint64_t pc) {
  if (position_digests_ < kSearchDigests) return;
  if (std::chrono::steady_clock::now() - position_search_started_ < search_give_up()) return;
  diverged("the search for the position the recording chose at " + hex(pc) + " digested " +
           std::to_string(position_digests_) + " arrivals with its registers in " +
           std::to_string(search_give_up().count()) + " s and never found its state");
}

bool ReplaySession::follow_stored_state(const trace::Event& position) {
  if (!position.stored_state) return false;
  // The images of processes that ended or replaced their program go.
  std::erase_if(stored_states_, [&](const auto& entry) {
    auto exec = execs_.find(entry.first);
    return !processes_.count(entry.first) || exec == execs_.end() || exec->second != entry.second.exec;
  });
  const uint32_t pid = threads_.at(current_tid_).pid;
  auto exec = execs_.find(pid);
  if (exec == execs_.end()) return false;
  HeldState& held = stored_states_[pid];
  if (held.image && held.image->event() == event_number_) return true;  // an earlier run towards it laid it
  trace::StateImage::Applied next = trace::StateImage::apply(held.image, position, event_number_);
  if (!next.image) {
    BS_LOG(Replay, "event " << event_number_ << ": its stored state cannot be rebuilt (" << next.problem
                            << "): the position is found by running");
    stored_states_.erase(pid);
    return false;
  }
  held = HeldState{std::move(next.image), exec->second};
  return true;
}

std::optional<uint64_t> ReplaySession::stored_state_event(uint32_t pid) const {
  auto held = stored_states_.find(pid);
  if (held == stored_states_.end() || !held->second.image) return std::nullopt;
  return held->second.image->event();
}

bool ReplaySession::stored_state_held() const {
  auto thread = threads_.find(current_tid_);
  if (thread == threads_.end()) return false;
  auto held = stored_states_.find(thread->second.pid);
  return held != stored_states_.end() && held->second.image && held->second.image->event() == event_number_;
}

void ReplaySession::jump_to_position(const trace::Event& position) {
  const auto started = std::chrono::steady_clock::now();
  const trace::StateImage& image = *stored_states_.at(threads_.at(current_tid_).pid).image;
  BS_LOG(Replay, "event " << event_number_ << ": taking the recorded state of the position ("
                          << trace::to_string(position.stored_state->kind) << " state, " << image.bytes()
                          << " bytes of memory)");
  // Only the pages that differ are written: those of the image with other
  // bytes (or none) here, and the pages here it does not have (all zero
  // there). A page written costs a copy in every checkpoint that shares it.
  static const trace::StateImage::Page kZeroPage{};
  const std::vector<trace::StateImage::Entry>& pages = image.pages();
  std::vector<std::pair<uint64_t, const uint8_t*>> differ;  // in address order
  std::size_t next = 0;
  auto add = [&](const trace::StateImage::Entry& e) { differ.push_back({e.addr, e.page->data()}); };
  for_each_written_page(*task_, [&](uint64_t addr, const uint8_t* live) {
    for (; next < pages.size() && pages[next].addr < addr; ++next) add(pages[next]);
    if (next < pages.size() && pages[next].addr == addr) {
      if (std::memcmp(live, pages[next].page->data(), kPage) != 0) add(pages[next]);
      ++next;
    } else {
      differ.push_back({addr, kZeroPage.data()});
    }
  });
  for (; next < pages.size(); ++next) add(pages[next]);
  std::vector<uint8_t> run;
  uint64_t run_start = 0;
  auto write_run = [&] {
    if (!run.empty()) task_->write_bytes(remote_ptr<void>(run_start), run.data(), run.size());
    run.clear();
  };
  try {
    for (const auto& [addr, bytes] : differ) {
      if (run_start + run.size() != addr || run.size() >= kWriteRun * kPage) {
        write_run();
        run_start = addr;
      }
      run.insert(run.end(), bytes, bytes + kPage);
    }
    write_run();
  } catch (const TaskGone&) {
    throw;
  } catch (const std::runtime_error& e) {
    diverged(std::string("the recorded state of the position does not fit the program's memory: ") + e.what());
  }
  consume_buffered_records();
  task_->set_regs(without_trap_flags(Registers::from_block(*position.regs)));
  task_->set_xstate(position.xstate);
  // The program's memory is the image now, page for page: its digest is
  // the image's (computed without reading the memory again), and the
  // recorded digest was the recorded program's.
  StateDigestBuilder digest;
  for (const trace::StateImage::Entry& e : pages) digest.add(e.addr, e.page->data(), kPage);
  if (digest.finish(task_->xstate()).combined() != position.position->digest) {
    diverged("the state recorded with this position does not match its digest");
  }
  const auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
  BS_LOG(Replay, "event " << event_number_ << ": took it in " << took.count() << " us, " << differ.size()
                          << " pages written");
}

std::optional<ReplayStop> ReplaySession::run_to_position(const trace::Event& next, bool single_step) {
  if (next.position->counted()) return run_to_counted_position(next, single_step);
  arm_watchpoints();  // first, as in run_to_event()
  event_number_ = next_number_;
  position_search_started_ = std::chrono::steady_clock::now();
  const bool stored = follow_stored_state(next);
  if (options_.unwatched && stored && !single_step) {
    jump_to_position(next);
    return std::nullopt;
  }
  if (watching_in_software()) return run_to_position_by_steps(next, single_step);
  if (!single_step && !next.position->fixpoint) {
    if (std::optional<std::optional<ReplayStop>> done = run_to_position_by_match(next)) return *done;
  }
  const uint64_t pc = Registers::from_block(*next.regs).ip();
  std::optional<Registers> previous_regs;  // at the last hit that did not match
  std::optional<uint64_t> previous_digest;
  // The user's breakpoints are in the debugged process only; the position's
  // own trap goes into whichever process of the tree the position is in.
  bool user_breakpoint_at_pc = in_debuggee() && traps_.breakpoints.count(pc) != 0;
  uint64_t hits = 0;
  position_digests_ = 0;
  for (bool first = true;; first = false) {
    Registers live = task_->regs();
    // Already there: a step, a breakpoint or a watchpoint stopped on it.
    if (first && live.ip() == pc && at_position(next, live)) {
      if (without_trap_flags(live).to_block() != live.to_block()) task_->set_regs(without_trap_flags(live));
      breakpoint_reported_ = false;
      return std::nullopt;
    }
    open_counters_for_run();
    // Step off the instruction at pc before its breakpoint goes in, and off
    // a user breakpoint whose hit was reported.
    bool step_off = live.ip() == pc || (breakpoint_reported_ && traps_.breakpoints.count(live.ip()));
    breakpoint_reported_ = false;
    if (!step_off) {
      insert_breakpoints();
      insert_breakpoint_at(pc);
    } else {
      insert_breakpoints();
      int3s_.remove(*task_, live.ip());
    }
    task_->resume(single_step || step_off ? ResumeHow::SysemuSingleStep : ResumeHow::Sysemu);
    WaitStatus ws = wait_for_stop();
    remove_breakpoints();
    if (ws.requested) {
      // The debugger's interrupt (a long search under a breakpoint).
      if (step_off && task_->regs().ip() == live.ip() && traps_.breakpoints.count(live.ip())) breakpoint_reported_ = true;
      return ReplayStop{ReplayStop::Kind::Interrupted};
    }
    if (ws.is_gone()) diverged("the program ended early: " + ws.describe());
    if (ws.is_syscall()) {
      diverged("reached a system call before the position the recording chose at " + hex(pc));
    }
    if (ws.kind == WaitStatus::Kind::EventStop) diverged("unexpected ptrace event " + std::to_string(ws.event));
    if (ws.signal != SIGTRAP) {
      diverged(std::string("expected the position the recording chose at ") + hex(pc) + ", got " +
               ws.describe() + " at rip " + hex(task_->regs().ip()));
    }
    Registers after = task_->regs();
    if (!step_off && !user_breakpoint_at_pc && after.ip() == pc + 1 && trap_facts().int3()) {
      // Our own breakpoint at pc.
      after.set_ip(pc);
      task_->set_regs(after);
      if (at_position(next, after)) return std::nullopt;
      if (!stored) give_up_search(pc);
      if ((++hits >= kSearchHits || position_digests_ >= kSearchDigests) && stored &&
          may_skip_passes()) {
        jump_to_position(next);
        return std::nullopt;
      }
      Registers m = without_trap_flags(after);
      if (previous_regs && previous_regs->to_block() == m.to_block()) {
        uint64_t d = state_digest(*task_, task_->xstate(), int3s_.originals()).combined();
        if (previous_digest && *previous_digest == d && stored) {
          // Going round without changing anything, the loop loses nothing
          // a watchpoint or breakpoint could see by taking the recorded
          // state at once (a position the recorder took where the pass
          // could not be timed, as where debug registers never fire).
          jump_to_position(next);
          return std::nullopt;
        }
        if (previous_digest && *previous_digest == d) {
          diverged("the program went round a loop at " + hex(pc) +
                   " without changing anything, and never reached the state the recording chose there");
        }
        previous_digest = d;
      } else {
        previous_digest.reset();
      }
      previous_regs = m;
      continue;
    }
    ReplayStop trap;
    if (classify_trap(trap)) {
      if (step_off && !single_step && trap.kind == ReplayStop::Kind::Step) continue;  // our step
      return trap;
    }
    diverged("an unexpected trap before the position the recording chose at " + hex(pc));
  }
}

// The search under watchpoints emulated by single steps: every write on the
// way is reported, as in run_to_counted_position(); the digest is computed
// at each arrival at pc whose registers match.
std::optional<ReplayStop> ReplaySession::run_to_position_by_steps(const trace::Event& next, bool single_step) {
  const uint64_t pc = Registers::from_block(*next.regs).ip();
  std::optional<std::pair<Registers, uint64_t>> previous;  // the last arrival at pc, and its digest
  for (;;) {
    Registers live = task_->regs();
    if (live.ip() == pc) {
      if (at_position(next, live)) {
        if (without_trap_flags(live).to_block() != live.to_block()) task_->set_regs(without_trap_flags(live));
        breakpoint_reported_ = false;
        return std::nullopt;
      }
      // A pass that changed nothing will be followed by the same again:
      // as in run_to_position(), the stored state is taken (no write can
      // be missed), or that is a divergence.
      const bool same_registers = previous && without_trap_flags(previous->first).to_block() == without_trap_flags(live).to_block();
      uint64_t d = same_registers || !previous ? state_digest(*task_, task_->xstate(), int3s_.originals()).combined() : 0;
      if (same_registers && previous->second == d) {
        if (!stored_state_held()) {
          diverged("the program went round a loop at " + hex(pc) +
                   " without changing anything, and never reached the state the recording chose there");
        }
        jump_to_position(next);
        return std::nullopt;
      }
      previous.emplace(live, d);
    }
    if (!stored_state_held()) give_up_search(pc);
    open_counters_for_run();
    breakpoint_reported_ = false;
    insert_breakpoints();
    int3s_.remove(*task_, live.ip());  // over a user's breakpoint it stands on
    SoftWatchStop soft = step_while_watching(/*one_step=*/true);
    remove_breakpoints();
    const WaitStatus& ws = soft.status;
    if (ws.requested || soft.interrupted) return ReplayStop{ReplayStop::Kind::Interrupted};
    if (ws.is_gone()) diverged("the program ended early: " + ws.describe());
    if (ws.is_syscall()) diverged("reached a system call before the position the recording chose at " + hex(pc));
    if (ws.kind == WaitStatus::Kind::EventStop) diverged("unexpected ptrace event " + std::to_string(ws.event));
    if (soft.hit) return watch_stop(*soft.hit);
    if (ws.signal != SIGTRAP) {
      diverged(std::string("expected the position the recording chose at ") + hex(pc) + ", got " + ws.describe() +
               " at rip " + hex(task_->regs().ip()));
    }
    ReplayStop trap;
    if (classify_trap(trap, TrapAfter::SingleStep)) {
      if (!single_step && trap.kind == ReplayStop::Kind::Step) continue;  // our step
      return trap;
    }
    diverged("an unexpected trap before the position the recording chose at " + hex(pc));
  }
}

// The search with a counting stub that counts only the arrivals whose
// general-purpose registers are the recorded ones (counting_stub.h): the
// program runs at its own speed, and the digest is computed only where the
// registers match, usually once. Every pass through the loop runs, so a
// breakpoint or a watchpoint in it is reported at each. Nothing (outer
// nullopt) where no stub can be armed: the caller searches with a trap.
std::optional<std::optional<ReplayStop>> ReplaySession::run_to_position_by_match(const trace::Event& next) {
  const Registers want = without_trap_flags(Registers::from_block(*next.regs));
  const uint64_t pc = want.ip();
  std::optional<uint64_t> previous_miss;  // the digest of the last arrival whose registers matched
  position_digests_ = 0;
  bool step = false;
  for (bool first = true;; first = false) {
    Registers live = task_->regs();
    if (first && live.ip() == pc && at_position(next, live)) {
      if (without_trap_flags(live).to_block() != live.to_block()) task_->set_regs(without_trap_flags(live));
      breakpoint_reported_ = false;
      return std::optional<ReplayStop>();
    }
    const bool reported = breakpoint_reported_ && traps_.breakpoints.count(live.ip());
    // Standing at pc, the thread is not stepped off (a loop within the 5
    // bytes the jump covers would step for ever, replay_counted_position.cc):
    // the stub counts its arrival again if the registers match, one more
    // to count down.
    const bool standing = !step && !reported && live.ip() == pc;
    step = step || reported;
    std::optional<CountingStub> stub;
    if (!step) {
      stub = arm_position_stub(pc, standing && without_trap_flags(live).same_gprs(want) ? 2 : 1, &want);
      if (!stub) return std::nullopt;
      // Inside the code the jump covers, but not at its start (which the
      // jump enters): one step out. At pc itself a step would come back
      // to pc after every pass of a loop within those 5 bytes, and the
      // whole search would go by single steps.
      if (stub->patches(live.ip()) && live.ip() != pc) {
        stub->disarm(*task_);
        stub.reset();
        step = true;
      }
    }
    open_counters_for_run();
    breakpoint_reported_ = false;
    insert_breakpoints();
    if (step) {
      int3s_.remove(*task_, live.ip());
    }
    task_->resume(step ? ResumeHow::SysemuSingleStep : ResumeHow::Sysemu);
    WaitStatus ws = wait_for_stop();
    remove_breakpoints();
    // Read now: leaving the stub and its injected munmap replace them.
    std::optional<TrapFacts> facts;
    if (ws.is_signal() && ws.signal == SIGTRAP) facts = trap_facts();
    bool trapped = false, sampled = false;
    if (stub) {
      StubExit exit = retire_position_stub(*stub, ws, facts ? &*facts : nullptr);
      trapped = exit.trapped;
      sampled = exit.sampled;
    }
    const bool stepped = step;
    step = false;
    if (ws.requested || sampled) {
      if (stepped && task_->regs().ip() == live.ip() && traps_.breakpoints.count(live.ip())) breakpoint_reported_ = true;
      return std::optional<ReplayStop>(ReplayStop{ReplayStop::Kind::Interrupted});
    }
    if (ws.is_gone()) diverged("the program ended early: " + ws.describe());
    if (ws.is_syscall()) diverged("reached a system call before the position the recording chose at " + hex(pc));
    if (ws.kind == WaitStatus::Kind::EventStop) diverged("unexpected ptrace event " + std::to_string(ws.event));
    if (trapped) {
      Registers at = task_->regs();
      if (at_position(next, at)) {
        task_->set_regs(without_trap_flags(at));
        return std::optional<ReplayStop>();
      }
      uint64_t d = state_digest(*task_, task_->xstate(), int3s_.originals()).combined();
      if (previous_miss && *previous_miss == d) {
        if (stored_state_held()) {
          jump_to_position(next);
          return std::optional<ReplayStop>();
        }
        diverged("the program went round a loop at " + hex(pc) +
                 " without changing anything, and never reached the state the recording chose there");
      }
      previous_miss = d;
      if (position_digests_ >= kSearchDigests && stored_state_held() && may_skip_passes()) {
        jump_to_position(next);
        return std::optional<ReplayStop>();
      }
      if (!stored_state_held()) give_up_search(pc);
      continue;  // steps off the site, then counts again
    }
    if (ws.signal != SIGTRAP) {
      diverged(std::string("expected the position the recording chose at ") + hex(pc) + ", got " + ws.describe() +
               " at rip " + hex(task_->regs().ip()));
    }
    ReplayStop trap;
    if (classify_trap(trap, stepped ? TrapAfter::SingleStep : TrapAfter::Run, &*facts)) {
      if (stepped && trap.kind == ReplayStop::Kind::Step) continue;  // our step
      return std::optional<ReplayStop>(trap);
    }
    diverged("an unexpected trap before the position the recording chose at " + hex(pc));
  }
}

}  // namespace backstep
