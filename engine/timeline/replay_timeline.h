// The debugging timeline over one recording: the current replay, the
// checkpoints (forks of the replayed process along the way), the user's
// breakpoints and watchpoints, and the search that runs it backwards.
//
// Reverse execution restores a checkpoint before the current position and
// replays forward with the breakpoints armed, remembering the last hit
// before now (timeline_search.cc; one such search is a BackwardSearch,
// backward_search.h). Positions are Marks: exact without a hardware
// counter. What the reverse moves keep between them has owners of its own:
// the last search's hits (HitList), the approaches' state (ApproachState)
// and the forward continue's copy (StretchCopy).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/replay/replay_session.h"
#include "engine/timeline/checkpoint_policy.h"
#include "engine/timeline/checkpoint_store.h"
#include "engine/timeline/client_memory.h"
#include "engine/timeline/debug_target.h"
#include "engine/timeline/diversion.h"
#include "engine/timeline/hit_list.h"
#include "engine/timeline/mark.h"
#include "engine/timeline/stretch_copy.h"
#include "engine/timeline/timeline_approach.h"
#include "engine/timeline/trajectory.h"

namespace backstep {

// Which process of a recorded tree the debugger gets, and from when
// (`replay -p/--onfork/--onexec`). History starts there: reverse execution
// stops at that moment, and `run` comes back to it.
struct DebuggeeChoice {
  enum class From {
    Start,  // its first exec if it has one after its fork, else its fork
    Fork,   // its first instruction (the recording's first process: event 0)
    Exec,   // just after its first exec (for the first process: its second)
  };
  uint32_t pid = 0;  // 0: the recording's first process, from event 0
  From from = From::Start;
};

// A quarter of the machine's memory, in KiB (checkpoint_memory.cc).
uint64_t default_checkpoint_memory_limit_kib();
// Forks `from` for a new checkpoint, which then clones that fork and costs
// what its processes hold (checkpoint_memory.cc).
CheckpointStore::Fork fork_of(ReplaySession& from);

class BackwardSearch;

class ReplayTimeline : public DebugTarget {
 public:
  // Throws std::runtime_error when `choice` names no process of the trace
  // (or one that never execs, for From::Exec).
  explicit ReplayTimeline(const std::string& trace_dir, DebuggeeChoice choice = {});
  // The number of the event after which `choice` starts (0 for none), read
  // from the trace alone; throws std::runtime_error as the constructor does.
  static uint64_t start_event(const std::string& trace_dir, const DebuggeeChoice& choice);
  ~ReplayTimeline() override;

  pid_t process_id() const override { return pid_; }
  std::vector<pid_t> thread_ids() const override;
  std::string thread_name(pid_t tid) const override;
  std::string exe_path() const override;
  std::vector<std::string> command_line() const override;
  std::string start_directory() const override;
  const std::vector<CpuidLeaf>& cpu_features() const override;

  Registers registers(pid_t tid) override;
  std::vector<uint8_t> xstate(pid_t tid) override;
  std::vector<uint8_t> read_memory(uint64_t addr, std::size_t len) override;
  std::vector<uint8_t> auxv() override;
  std::vector<uint8_t> siginfo() override { return last_siginfo_; }

  bool set_breakpoint(uint64_t addr, TrapKind kind) override;
  bool remove_breakpoint(uint64_t addr, TrapKind kind) override;
  bool set_watchpoint(uint64_t addr, uint64_t len, WatchKind type) override;
  bool remove_watchpoint(uint64_t addr, uint64_t len, WatchKind type) override;
  void set_catch_syscalls(std::optional<std::vector<int>> syscalls) override;
  void set_pass_signals(const std::vector<int>& linux_signals) override;
  void set_report_exec(bool report) override { report_exec_ = report; }
  void set_report_forks(bool report) override { report_forks_ = report; }

  TargetStop resume(const ResumeRequest& request, const std::function<bool()>& interrupted) override;

  uint64_t current_event() const override { return position().event; }
  Activity activity() override;
  std::string describe_position() const override { return position().describe(); }
  void restart(std::optional<uint64_t> event) override;
  int create_checkpoint() override;
  bool delete_checkpoint(int id) override;
  std::vector<CheckpointInfo> checkpoints() const override;
  bool restart_checkpoint(int id) override;
  CheckpointStats checkpoint_stats() const override { return checkpoints_.stats(); }
  // Both throw std::invalid_argument out of range.
  void set_checkpoint_limit(std::size_t limit) override { checkpoints_.set_limit(limit); }
  void set_checkpoint_memory_limit(uint64_t kib) override { checkpoints_.set_memory_limit(kib); }

  // Diversions (timeline_diversion.cc).
  void write_registers(pid_t tid, const Registers& regs, const std::vector<uint8_t>& xstate) override;
  std::size_t write_memory(uint64_t addr, const std::vector<uint8_t>& bytes) override;
  std::optional<uint64_t> allocate_memory(uint64_t size, int prot) override;
  bool deallocate_memory(uint64_t addr) override;
  bool in_called_function() override;
  std::string take_note() override;
  bool diverted() const { return diversion_live(); }

  std::optional<std::string> recorded_file(const std::string& path) const override;
  std::string libraries_svr4_xml() override;  // link_map.cc
  std::optional<uint64_t> debug_pointer_address() override;  // link_map.cc
  std::vector<MemoryMapping> memory_map() override;  // memory_map.cc
  TlsAddress tls_address(pid_t tid, uint64_t link_map, uint64_t offset) override;  // thread_local_storage.cc

  // Where the user stands (the replay itself may stand elsewhere in the
  // same interval: timeline_lazy.cc).
  const Mark& position() const { return lazy_ ? *lazy_ : mark_; }
  std::size_t checkpoint_count() const { return checkpoints_.size(); }
  // The cache of the recent trajectory (timeline_lazy.cc). Off, every
  // reverse step moves the replay (for comparisons in tests).
  enum class TrajectoryUse { On, Off };
  void set_trajectory_use(TrajectoryUse use);
  const Trajectory& trajectory() const { return trajectory_; }
  // Reverse-continues answered from the last search's list of hits.
  uint64_t listed_hits_served() const { return hit_list_.served(); }
  // Breakpoint hits counted by the kernel while walking to a position and
  // while searching backwards (engine/core/hit_counter.h), or stopped at
  // one by one with int3 (Off: for comparisons in tests; also where the
  // kernel refuses). Either way the same positions are reached.
  enum class KernelCounting { On, Off };
  void set_kernel_counting(KernelCounting use) { kernel_counting_ = use == KernelCounting::On && HitCounter::enabled(); }
  bool kernel_counting() const { return kernel_counting_; }
  // Walk legs and search stretches whose hits the kernel counted.
  uint64_t counted_walks() const { return counted_walks_; }
  uint64_t counted_searches() const { return counted_searches_; }
  // Where the kernel does not count, walk legs of breakpoint hits are
  // counted by a counting stub in the program (timeline_counting.cc,
  // walk_by_stub), or stopped at one by one with int3 (Off: for
  // comparisons in tests; also where BACKSTEP_COUNTING_STUB=0, or where no
  // stub fits). Either way the same positions are reached.
  enum class StubWalks { On, Off };
  void set_stub_walks(StubWalks use) { use_stub_walks_ = use == StubWalks::On && counting_stubs_enabled(); }
  // Walk legs counted by a stub.
  uint64_t stub_walks() const { return stub_walks_; }
  // Reverse-stepi into a long stretch approaches the breakpoint hit at the
  // program's own speed (timeline_approach.cc); Off single-steps the whole
  // stretch as before (for comparisons in tests; also where the kernel has
  // no task clock). approaches() counts the approaches that got closer.
  enum class Approach { On, Off };
  void set_approach(Approach use) { approach_.on = use == Approach::On; }
  uint64_t approaches() const { return approach_.approaches; }
  // A forward continue through a long stretch leaves a copy on the way for
  // the first reverse-stepi back from its end (stretch_copy.h); Off
  // makes none (for comparisons in tests). stretch_copies_used() counts
  // the approaches that started from one.
  enum class StretchCopies { On, Off };
  void set_stretch_copies(StretchCopies use) {
    stretch_.set_use(use == StretchCopies::On ? StretchCopy::Use::On : StretchCopy::Use::Off);
  }
  uint64_t stretch_copies_used() const { return stretch_.used(); }

 private:
  // One backward search from a checkpoint (backward_search.h): it runs with
  // the timeline's helpers below.
  friend class BackwardSearch;
  // One approach to a breakpoint's hit (timeline_approach.h).
  friend class TrapApproach;
  using Checkpoint = CheckpointStore::Checkpoint;
  using Bound = CheckpointStore::Bound;
  using Where = CheckpointStore::Where;
  using Clock = std::chrono::steady_clock;

  TargetStop run(const ResumeRequest& request, const std::function<bool()>& interrupted);
  // The siginfo of a stop that is not a signal's.
  std::vector<uint8_t> trap_siginfo(const TargetStop& stop);
  // Runs until a user stop, or (with `until_turn_of`) until that thread is
  // the one due to run: then the result is a Step stop.
  TargetStop continue_forward(const std::function<bool()>& interrupted, pid_t until_turn_of = 0);
  // Steps `thread` (0: the thread due to run); the others run as recorded
  // until its turn, and stop there at a breakpoint or watchpoint.
  TargetStop step_forward(pid_t thread, const std::function<bool()>& interrupted);
  TargetStop step_once();
  TargetStop range_step_forward(pid_t thread, uint64_t start, uint64_t end, const std::function<bool()>& interrupted);
  TargetStop continue_backward(const std::function<bool()>& interrupted);
  // Back to the instruction `thread` (0: whichever ran last) ran before
  // now; the other threads go back with it. With Landing::Lazy the
  // replay may be left where it is when the cache answers for the
  // position reached (only for the client's own steps: internal callers
  // go on to use the replay there).
  enum class Landing { Seek, Lazy };
  TargetStop step_backward(pid_t thread, Landing landing = Landing::Seek);

  // The lazy position (timeline_lazy.cc). `lazy_`, when set, is where the
  // user stands; the replay (current_) stands at mark_, in the same
  // interval, and the cache answers for lazy_.
  Registers live_registers(pid_t tid);
  // Brings the replay to where the user stands (a seek), for whatever the
  // cache cannot answer.
  void materialize();
  void set_logical(const Mark& m);
  // A reverse step answered from the cache (filling it first when the
  // position before is not cached); nullopt when it cannot be.
  std::optional<TargetStop> step_backward_cached(pid_t thread);
  // Single-steps to `before` from the nearest checkpoint in its run of
  // steps (or the run's start), caching each position; the replay ends
  // at `before`.
  void fill_before(const Mark& before);
  // Caches the state where the replay stands now, if filling.
  void record_position();
  std::vector<std::pair<uint64_t, uint64_t>> read_only_mappings();
  // The position before the last instruction `tid` ran before event
  // `limit`: the one that caused its last event (a blocking call's return
  // runs none: its entry did). nullopt when it ran none since it started;
  // `otherwise` when its last event is a forced position (not searched).
  std::optional<Mark> thread_instruction_before(uint32_t tid, uint64_t limit, const Mark& otherwise);
  // The last of the user's stops by threads other than `thread` after
  // `own`, where the replay stands, and before `to`: what a step back of
  // `thread` from `to` to its instruction at `own` crosses of the others.
  std::optional<Candidate> others_stop_between(pid_t thread, const Mark& own, const Mark& to);
  TargetStop stop_at_program_end();
  Mark end_mark() const;
  bool catches(int syscall) const;  // `catch syscall` set for it
  bool stops_before(const trace::Event& e) const;
  // A signal's delivery that the user stops at (not a passed signal).
  bool stops_at_delivery(const trace::Event& e) const;
  // Going back from `at` (by `thread`, 0: any), a delivery the user stops at
  // comes before the instruction before: where it was reported going
  // forward ("event reached"), if there is one.
  std::optional<Mark> delivery_before(const Mark& at, pid_t thread);
  TargetStop pending_stop(const trace::Event& e);
  // Steps from `p` until `reached` says so; returns how many, or nullopt
  // after `limit` steps (the replay then stands there, mark_ naming it).
  std::optional<uint64_t> count_steps(const Mark& p, const std::function<bool(const ReplayStop&)>& reached,
                                      const ReplaySession::Resume& how, uint64_t limit);
  // Whether a long stretch before a breakpoint's hit can be approached at
  // the program's own speed (a TrapApproach, timeline_approach.h).
  bool approach_available() const;
  // The instruction before the next execution of `addr` from `p` (the
  // last anchor of a position): where the replay stands after stepping
  // there; the steps are counted from the returned mark's position.
  std::pair<Mark, uint64_t> steps_to_trap(const Mark& p, uint64_t addr, uint32_t runs);
  TargetStop make_stop(TargetStop::Kind kind, uint64_t address = 0);

  // Positions.
  void seek(const Mark& target);
  void walk(ReplaySession& session, const Mark& from, const Mark& to);
  // Forks `from` as an automatic checkpoint at `mark` (the store first
  // makes room within its bound).
  void add_automatic_checkpoint(const Mark& mark, ReplaySession& from) {
    checkpoints_.add(CheckpointStore::Kind::Automatic, mark, fork_of(from));
  }

  // Interrupts in user code and State anchors (timeline_interrupt.cc).
  // The program was stopped by the client's interrupt somewhere after
  // mark_: name that moment, and report it.
  TargetStop stop_at_interrupt();
  // Forks `session` as a checkpoint at State anchor `at`, kept when others
  // are thinned; beyond a few such, the oldest goes. Returns its id.
  int add_state_checkpoint(const Mark& at, ReplaySession& session);
  // Runs `session` from where it is to the first moment with `state`'s
  // state; returns how many times it passed the state's pc to get there.
  // At most `max_passes` passes: beyond, it throws.
  static constexpr uint64_t kMaxStatePasses = 100'000;
  uint64_t run_to_state(ReplaySession& session, const Anchor& state, const Mark& to,
                        uint64_t max_passes = kMaxStatePasses);
  // Seeks `from`, then runs a copy from there to `state`'s first moment:
  // the timeline stands there, named (and returned) as that many hits of
  // the state's pc after `from`. Throws as run_to_state does, the timeline
  // left at `from`.
  Mark reach_state_from(Mark from, const Anchor& state, const Mark& to, uint64_t max_passes);
  // The instruction before `at`, whose last anchor is a State with no steps
  // after it: found by counting passes from the anchor before.
  std::optional<Mark> mark_before_state(const Mark& at);
  // The instruction before Position event `e` (a signal delivered in a
  // loop, a thread handed over), which names the first moment with its
  // registers and digest since boundary e: found as a State anchor's. A
  // counted position, or one too many passes away, is not searched for
  // (nullopt, the timeline where it was).
  std::optional<Mark> mark_before_position(uint64_t e, const trace::Event& position);
  // A new session at `target` (the nearest checkpoint, walked on).
  std::unique_ptr<ReplaySession> session_at(const Mark& target);
  // The state at the user's first trap hit from where `session` is, up to
  // the next event (not replayed); nullopt if there is none.
  std::optional<StateKey> first_hit_state(ReplaySession& session);
  // The user's trap hits from `from` (where `session` is) up to the next
  // event (not replayed), or up to the hit in `until`'s state, which is
  // not counted.
  // With `until`, `*missed` (when given) says the next event came first,
  // the hit in that state not met (an assertion without it).
  std::vector<Candidate> hits_to_event(ReplaySession& session, const Mark& from,
                                       const std::optional<StateKey>& until, bool* missed = nullptr);
  // The user's trap hits from `from` (where `session` is) up to the
  // moment of State anchor `state` (not counted), stopping at every pass
  // through its pc as well: exact, at the cost of those stops.
  std::vector<Candidate> hits_to_state(ReplaySession& session, const Mark& from, const Anchor& state);

  // Diversions (timeline_diversion.cc). Starts one at the position unless
  // one is under way (and wakes a dormant one).
  Diversion& divert();
  // Drops the diversion (its processes are killed): back to the replay.
  void end_diversion();
  // A diversion under way that reads and resumes see (not dormant).
  bool diversion_live() const;
  // A diversion whose function ran, with every thread's registers back to
  // the replay's, goes dormant: the call is over.
  void settle_diversion();
  bool registers_restored();
  // Memory while a diversion is dormant (timeline_diversion.cc).
  std::vector<uint8_t> dormant_read(uint64_t addr, std::size_t len);
  // The mapping of the replayed process that holds the address, if any.
  std::optional<MemoryMapping> mapping_at(uint64_t addr);
  TargetStop resume_diversion(const ResumeRequest& request, const std::function<bool()>& interrupted);

  // A watch stop inside the preload library's copy of a buffered call's
  // outputs moves to the call's boundary (replay_timeline.cc).
  void out_of_buffered_call(TargetStop& stop, RunDirection direction);
  // What decides which stops a search finds (hit_list.h): the hit list
  // answers only for the traps it was searched with.
  TrapConfig trap_config() const;
  // A reverse-continue answered from the last search's list of hits
  // (hit_list_), if it can be.
  std::optional<TargetStop> continue_backward_listed();
  // Moves to a hit found going backwards (before a watched write).
  TargetStop land_backward(const Candidate& hit);
  // The trajectory cache's entry at `m` when a reverse move may land there
  // without a seek (no watchpoints; `thread` runs there, or 0 for any).
  const TrajectoryEntry* cached_landing(const Mark& m, pid_t thread) const;
  // The position one instruction before `at`. Not a query: it replays to
  // find it, so the replay (and mark_) no longer stands where it did.
  std::optional<Mark> search_mark_before(const Mark& at);
  // The position before `at` ("A xk"), with the steps of the passes from
  // "A x(k-B)" cached in one fill (B from the steps a pass took last
  // time); nullopt where that does not apply.
  std::optional<Mark> batched_before(const Mark& at);
  // The user's breakpoints and watchpoints, for a run that stops at them
  // (Resume::traps); watch_traps(): the watchpoints alone (a step stops at
  // a watched write, never at a breakpoint).
  Traps user_traps() const { return Traps{breakpoints_, watchpoints_, pending_breakpoints_, breakpoint_images_}; }
  Traps watch_traps() const { return Traps{{}, watchpoints_}; }
  std::optional<TargetStop> user_trap(const ReplayStop& stop, ReplaySession& session) const;
  const trace::Event& event_at(uint64_t number);
  // The anchor for a trap a session stopped at (`watches`: the watchpoints
  // it had armed).
  static Anchor trap_of(const ReplayStop& r, const std::vector<Watchpoint>& watches);

  std::string trace_dir_;
  std::unique_ptr<ReplaySession> current_;
  std::unique_ptr<Diversion> diversion_;
  bool diversion_dormant_ = false;
  // lldb's _M memory: at every position, in every diversion.
  ClientMemory client_memory_;
  // memory_map()'s last reading of the replay's mappings, and what it was
  // read at (the task and ReplaySession::moves()); the recorded files'
  // paths by their trace copies' names.
  using MapsKey = std::pair<pid_t, std::pair<uint64_t, uint64_t>>;
  std::optional<std::pair<MapsKey, std::vector<MemoryMapping>>> maps_cache_;
  std::optional<std::map<std::string, std::string>> recorded_names_;
  std::vector<MemoryMapping> with_client_memory(std::vector<MemoryMapping> maps) const;
  std::string note_;  // take_note()
  Mark mark_;
  std::optional<uint64_t> event_count_;  // event_count(), read once
  // The checkpoints, the start of history first (checkpoint_store.h); a
  // forward continue's copy (stretch_) counts towards their bound.
  CheckpointStore checkpoints_;
  HitList hit_list_;  // the last backward search's hits (hit_list.h)

  Trajectory trajectory_;
  TrajectoryUse trajectory_use_ = TrajectoryUse::On;
  bool kernel_counting_ = HitCounter::enabled();
  uint64_t counted_walks_ = 0;
  uint64_t counted_searches_ = 0;
  bool use_stub_walks_ = counting_stubs_enabled();
  uint64_t stub_walks_ = 0;
  ApproachState approach_;  // timeline_approach.h
  // The latest forward continue's stretch and the copy it left on the way
  // (stretch_copy.h).
  StretchCopy stretch_;
  // Walks the rest of a breakpoint leg with counted stops (timeline_counting.cc):
  // by the kernel, else by a counting stub (walk_by_stub); false (nothing
  // done) where neither can count.
  bool walk_counted(ReplaySession& session, const Anchor& a, uint64_t done, uint64_t n,
                    const std::function<void(uint64_t)>& leave_checkpoint);
  bool walk_by_stub(ReplaySession& session, const Anchor& a, uint64_t done, uint64_t n,
                    const std::function<void(uint64_t)>& leave_checkpoint);
  // The hits a counted walk from hit `done` to hit `n` stops at: `n`, and
  // those where it leaves checkpoints.
  static std::set<uint64_t> walk_stops(uint64_t done, uint64_t n);
  // A backward search (backward_search.h) with the user's breakpoints
  // counted by the kernel instead of stopped at (timeline_counting.cc),
  // where it can: no watchpoints, and no more breakpoints than debug
  // registers.
  struct HitTally {
    std::map<std::pair<uint32_t, uint64_t>, uint64_t> taken;  // (tid, address) -> hits made candidates
  };
  // Starts counting on `s` (its breakpoints and watchpoints disarmed);
  // false, with nothing changed, where the search cannot count.
  bool count_user_breakpoints(ReplaySession& s, HitTally& tally);
  // The hits counted since the last call, which all lie after `cur` and
  // before the stop `s` is at, go to `keep` in order (every one with
  // `every_hit`, else only the last) and `cur` moves past them. False when
  // they were of more than one breakpoint or thread: the kernel does not
  // say in which order; the caller replays that stretch stopping at each.
  bool take_counted_hits(ReplaySession& s, HitTally& tally, Mark& cur, bool every_hit,
                         const std::function<void(Candidate)>& keep);
  // The hits 1..k of breakpoint `addr` by thread `tid` after `base`, as
  // candidates to `keep` (the last kHitListSize of them with `every_hit`,
  // else only the k-th).
  void keep_counted_hits(const Mark& base, uint64_t addr, uint32_t tid, uint64_t k, bool every_hit,
                         const std::function<void(Candidate)>& keep);
  // One leg of the searched-to position's way: `n` hits of breakpoint `a`
  // from `prefix`, where `s` is, with the user's breakpoints counted (the
  // n-th hit a candidate only if `last_counts`). Refused: nothing done, the
  // caller stops at each hit. Ambiguous: `s` has moved on and the user's
  // hits were of several breakpoints; the caller starts the leg again.
  enum class CountedLeg { Done, Refused, Ambiguous };
  CountedLeg search_leg_counted(ReplaySession& s, const Anchor& a, uint64_t n, const Mark& prefix, bool last_counts,
                                bool every_hit, const std::function<void(Candidate)>& keep);
  std::optional<Mark> lazy_;     // where the user stands, when not at mark_
  // Forward single steps since the last breakpoint anchor of mark_, and
  // whether one of them stood on its address again (replay_timeline.cc):
  // a forward hit of the same breakpoint then extends that anchor.
  struct StepWatch {
    Mark base;             // mark_ without its steps
    uint64_t checked = 0;  // steps seen from base
    bool revisited = false;
  };
  StepWatch step_watch_;
  void note_forward_step();
  Mark after_forward_hit(const Anchor& a);

  std::set<uint64_t> breakpoints_;
  // The program each breakpoint was set in (ReplaySession::image()): an
  // exec replaces the code, and the int3 does not go into the new one.
  std::map<uint64_t, uint64_t> breakpoint_images_;
  bool report_exec_ = false;  // set_report_exec
  bool report_forks_ = false;  // set_report_forks
  // Software breakpoints outside the replay's code: for diversions only.
  std::set<uint64_t> diversion_breakpoints_;
  // Those of breakpoints_ set where nothing was mapped (Traps::pending).
  std::set<uint64_t> pending_breakpoints_;
  std::set<uint64_t> hw_breakpoints_;
  std::vector<Watchpoint> watchpoints_;
  std::optional<std::set<int>> catch_syscalls_;
  std::set<int> pass_signals_;  // Linux numbers: delivered without stopping
  bool end_reported_ = false;
  std::vector<uint8_t> last_siginfo_;

  pid_t pid_ = 0;
  std::map<std::string, std::string> recorded_files_;  // host path -> trace path
  std::unique_ptr<trace::TraceReader> lookup_;          // random access to events
  std::optional<std::pair<uint64_t, trace::Event>> looked_up_;
};

}  // namespace backstep
