// Experiment 5 (`hits`): reverse-continue across N breakpoint hits, against
// the forward work over the same hits, with the hits counted by the kernel
// (engine/timeline/timeline_counting.cc) and with an int3 stop at each.
//
// The workload's `inner N` mode: a getppid marker, N calls of g(i) without
// a system call, a second marker. From the second marker's return:
//   - reverse-continue with a breakpoint on g: the search crosses all N
//     hits to find the last, then seeks there (g's argument must be N-1);
//   - from there, with g's breakpoint gone and catch syscall getppid on,
//     reverse-continue to the first marker: across the N hits that name
//     the position (the anchor "g x N").
// Forward work over the same span with the same breakpoint: forward
// continues from the first marker, each stopping at the next hit of g
// (measured over the first --forward-hits hits, per hit, times N), and one
// forward continue over the span with no breakpoint (the replay's own
// speed there).
//
// Then gdb's way over a conditional breakpoint false at every hit
// (--conditional-calls C, C-20 false hits each way): forwards a step off
// and a continue per hit, backwards a reverse step off and a
// reverse-continue per hit, the last landing checked (g's argument).
#include <sys/syscall.h>

#include "bench/reverse/bench_support.h"

namespace backstep::bench {
namespace {

// Runs forward to the return of the next getppid marker (catch syscall on
// for the way there only).
void to_next_marker(ReplayTimeline& t) {
  t.set_catch_syscalls(std::vector<int>{SYS_getppid});
  TargetStop s;
  do {
    s = go(t, kFwd);
    CHECK(s.kind == TargetStop::Kind::Syscall && s.syscall == SYS_getppid,
          "expected the getppid marker, got " << to_string(s.kind));
  } while (!s.syscall_return);
  t.set_catch_syscalls(std::nullopt);
}

struct Run {
  double reverse_continue_s = 0;  // from the second marker to the last hit of g
  double reverse_across_s = 0;    // from there back to the first marker
  double forward_per_hit_s = 0;   // a forward continue to the next hit of g
  long forward_measured = 0;      // over how many hits
  double forward_span_s = 0;      // marker to marker without breakpoints
  uint64_t checkpoints = 0;       // automatic, live at the end
  uint64_t counted_searches = 0, counted_walks = 0;
};

Run run_hits(const std::string& trace, uint64_t g, long n, bool counting, long forward_hits) {
  Run out;
  auto timeline = [&](ReplayTimeline& t) {
    t.set_kernel_counting(counting ? ReplayTimeline::KernelCounting::On : ReplayTimeline::KernelCounting::Off);
    // Not counting: an int3 stop at every hit, not a counting stub's walks.
    if (!counting) t.set_stub_walks(ReplayTimeline::StubWalks::Off);
    CHECK(t.kernel_counting() == counting, "the kernel does not count breakpoint hits here");
    to_next_marker(t);
  };
  if (forward_hits > 0) {
    // Forward continues, each to the next hit (only the first ones: the
    // cost per hit does not change along the loop), in a timeline of their
    // own (its checkpoints do not help the reverse runs).
    ReplayTimeline f(trace);
    timeline(f);
    long hits = std::min(n, forward_hits);
    f.set_breakpoint(g, TrapKind::Software);
    auto t0 = Clock::now();
    for (long k = 0; k < hits; ++k) {
      TargetStop s = go(f, kFwd);
      CHECK(s.kind == TargetStop::Kind::Breakpoint && s.address == g, "forward hit " << k << ": " << to_string(s.kind));
    }
    out.forward_per_hit_s = seconds_since(t0) / static_cast<double>(hits);
    out.forward_measured = hits;
  }
  ReplayTimeline t(trace);
  timeline(t);
  auto t0 = Clock::now();
  to_next_marker(t);
  out.forward_span_s = seconds_since(t0);

  // Reverse-continue to the last hit of g, across all N.
  t.set_breakpoint(g, TrapKind::Software);
  t0 = Clock::now();
  TargetStop s = go(t, kBack);
  out.reverse_continue_s = seconds_since(t0);
  CHECK(s.kind == TargetStop::Kind::Breakpoint && s.address == g,
        "reverse-continue from the second marker stopped: " << to_string(s.kind));
  uint64_t arg = t.registers(0).raw().rdi;
  CHECK(arg == static_cast<uint64_t>(n - 1), "reverse-continue landed on g(" << arg << "), not g(" << n - 1 << ")");

  // From the last hit back to the first marker: across the N hits of the
  // position's anchor.
  t.remove_breakpoint(g, TrapKind::Software);
  t.set_catch_syscalls(std::vector<int>{SYS_getppid});
  t0 = Clock::now();
  s = go(t, kBack);
  out.reverse_across_s = seconds_since(t0);
  CHECK(s.kind == TargetStop::Kind::Syscall && s.syscall == SYS_getppid && s.syscall_return,
        "reverse-continue from the last hit to the first marker stopped: " << to_string(s.kind));
  out.checkpoints = t.checkpoint_stats().automatic;
  out.counted_searches = t.counted_searches();
  out.counted_walks = t.counted_walks();
  return out;
}

// What gdb does at each hit of a conditional breakpoint whose condition is
// false: forwards, a step off the breakpoint and a continue; backwards, a
// reverse step off it and a reverse-continue (the hit list answers those).
// `m` hits each way over the same loop; returns {forward s, backward s}.
std::pair<double, double> run_conditional(const std::string& trace, uint64_t g, long n, long m) {
  ReplayTimeline t(trace);
  to_next_marker(t);
  t.set_breakpoint(g, TrapKind::Software);
  CHECK(go(t, kFwd).kind == TargetStop::Kind::Breakpoint, "the first hit of g");
  auto t0 = Clock::now();
  for (long k = 0; k < m; ++k) {
    go(t, kFwd, ResumeRequest::How::Step);
    TargetStop s = go(t, kFwd);
    CHECK(s.kind == TargetStop::Kind::Breakpoint && s.address == g, "forward false hit " << k);
  }
  double forward_s = seconds_since(t0);
  CHECK(t.registers(0).raw().rdi == static_cast<uint64_t>(m), "forward: at g(" << t.registers(0).raw().rdi << ")");
  // Backwards from after the loop: the first reverse-continue searches,
  // the rest are answered from its list.
  t.remove_breakpoint(g, TrapKind::Software);
  to_next_marker(t);
  t.set_breakpoint(g, TrapKind::Software);
  CHECK(go(t, kBack).kind == TargetStop::Kind::Breakpoint, "the last hit of g");
  t0 = Clock::now();
  for (long k = 0; k < m; ++k) {
    go(t, kBack, ResumeRequest::How::Step);
    TargetStop s = go(t, kBack);
    CHECK(s.kind == TargetStop::Kind::Breakpoint && s.address == g, "backward false hit " << k);
  }
  double backward_s = seconds_since(t0);
  uint64_t arg = t.registers(0).raw().rdi;
  CHECK(arg == static_cast<uint64_t>(n - 1 - m), "backward: at g(" << arg << "), not g(" << n - 1 - m << ")");
  return {forward_s, backward_s};
}

}  // namespace

Json bench_hits(const Config& cfg) {
  std::vector<long> sizes = cfg.list("hits", "10000,100000,1000000,2000000");
  long forward_hits = cfg.num("forward-hits", 100000);
  long int3_max = cfg.num("int3-max-hits", 100000);  // int3 runs only up to this many hits (slow)
  uint64_t g = find_symbol(cfg.workload, "g").addr;
  Json rows = Json::array();
  for (long n : sizes) {
    Json rec = Json::object();
    std::string trace = record(cfg, "hits" + std::to_string(n), {"inner", std::to_string(n)}, rec);
    for (bool counting : {true, false}) {
      if (!counting && n > int3_max) continue;
      progress(std::string(counting ? "counted" : "int3") + ", " + std::to_string(n) + " hits");
      Run r = run_hits(trace, g, n, counting, forward_hits);
      double forward_s = r.forward_per_hit_s * static_cast<double>(n);
      Json row = Json::object();
      row.set("hits", n);
      row.set("mode", std::string(counting ? "counted" : "int3"));
      row.set("reverse_continue_s", r.reverse_continue_s);
      row.set("reverse_across_s", r.reverse_across_s);
      row.set("forward_per_hit_us", r.forward_per_hit_s * 1e6);
      row.set("forward_measured_hits", r.forward_measured);
      row.set("forward_hits_s", forward_s);
      row.set("forward_span_s", r.forward_span_s);
      row.set("reverse_continue_vs_forward", r.reverse_continue_s / forward_s);
      row.set("reverse_across_vs_forward", r.reverse_across_s / forward_s);
      row.set("checkpoints", static_cast<double>(r.checkpoints));
      row.set("counted_searches", static_cast<double>(r.counted_searches));
      row.set("counted_walks", static_cast<double>(r.counted_walks));
      row.set("recording", rec);
      rows.push(row);
    }
  }
  Json out = Json::object();
  out.set("rows", rows);
  // gdb's way over a conditional breakpoint that is false at every hit.
  long cond_calls = cfg.num("conditional-calls", 5000);
  long cond_hits = std::max(1L, cond_calls - 20);
  Json rec = Json::object();
  std::string trace = record(cfg, "conditional", {"inner", std::to_string(cond_calls)}, rec);
  progress("conditional: " + std::to_string(cond_hits) + " false hits each way");
  auto [forward_s, backward_s] = run_conditional(trace, g, cond_calls, cond_hits);
  Json cond = Json::object();
  cond.set("false_hits", cond_hits);
  cond.set("forward_s", forward_s);
  cond.set("backward_s", backward_s);
  cond.set("backward_vs_forward", backward_s / forward_s);
  out.set("conditional", cond);
  return out;
}

}  // namespace backstep::bench
