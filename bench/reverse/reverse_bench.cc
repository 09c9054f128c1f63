// Reverse-execution benchmarks: records small workloads (reverse_workload.c)
// in-process and drives a ReplayTimeline over them, timing checkpoints,
// reverse-continue, reverse-stepi and a gdb-style reverse-next. Driven by
// bench/reverse.py, which prints the tables; see bench/README.md, section
// "Reverse execution".
//
//   reverse_bench EXPERIMENT --json OUT [options]
//
// EXPERIMENT is one of checkpoint, continue, stepi, next. Progress goes to
// stderr, the figures to OUT as one JSON object. Exit status 0 on success, 1
// when a measurement failed (the message says which check), 2 on bad usage.
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/reverse/bench_support.h"
#include "engine/record/record_session.h"
#include "engine/timeline/replay_timeline.h"
#include "engine/trace/reader.h"


using namespace backstep;
using namespace backstep::bench;

namespace {

// ------------------------------------------------- 1. checkpoint vs fork()

// The native side: a child of the benchmark that touches the same memory as
// the workload and forks on request. Commands on `in`: 'T' + int64 MiB
// (touch up to there; replies int64 VmRSS kB), 'F' (one fork: replies two
// int64 ns, fork() until it returned in the parent, then kill + waitpid of
// the child), 'Q'.
[[noreturn]] void native_child(int in, int out, long max_mb) {
  auto read_all = [&](void* p, size_t n) {
    char* c = static_cast<char*>(p);
    while (n) {
      ssize_t r = read(in, c, n);
      if (r <= 0) _exit(3);
      c += r;
      n -= static_cast<size_t>(r);
    }
  };
  auto write_all = [&](const void* p, size_t n) {
    if (write(out, p, n) != static_cast<ssize_t>(n)) _exit(4);
  };
  char* mem = static_cast<char*>(mmap(nullptr, static_cast<size_t>(max_mb) << 20, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (mem == MAP_FAILED) _exit(5);
  size_t touched = 0;
  for (;;) {
    char cmd;
    read_all(&cmd, 1);
    if (cmd == 'Q') _exit(0);
    if (cmd == 'T') {
      int64_t mb;
      read_all(&mb, 8);
      size_t upto = static_cast<size_t>(mb) << 20;
      for (; touched < upto; touched += 4096) mem[touched] = static_cast<char>(touched >> 12);
      int64_t rss = vm_rss_kb("/proc/self/status");
      write_all(&rss, 8);
    } else if (cmd == 'F') {
      timespec a, b, c;
      clock_gettime(CLOCK_MONOTONIC, &a);
      pid_t pid = fork();
      if (pid == 0) {
        for (;;) pause();
      }
      clock_gettime(CLOCK_MONOTONIC, &b);
      if (pid < 0) _exit(6);
      kill(pid, SIGKILL);
      int st;
      while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
      }
      clock_gettime(CLOCK_MONOTONIC, &c);
      int64_t r[2] = {(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec),
                      (c.tv_sec - b.tv_sec) * 1000000000LL + (c.tv_nsec - b.tv_nsec)};
      write_all(r, sizeof r);
    } else {
      _exit(7);
    }
  }
}

Json bench_checkpoint(const Config& cfg) {
  std::vector<long> sizes = cfg.list("sizes", "16,64,256,1024");
  long reps = std::max(1L, cfg.num("reps", 11));
  CHECK(std::is_sorted(sizes.begin(), sizes.end()), "--sizes must be ascending");
  Json out = Json::object();
  Json rec = Json::object();
  std::vector<std::string> args{"memtouch"};
  for (long s : sizes) args.push_back(std::to_string(s));
  std::string trace = record(cfg, "memtouch", args, rec);
  out.set("recording", rec);
  out.set("reps", reps);

  int cmd[2], res[2];
  CHECK(pipe2(cmd, O_CLOEXEC) == 0 && pipe2(res, O_CLOEXEC) == 0, "pipe");
  pid_t child = fork();
  CHECK(child >= 0, "fork");
  if (child == 0) {
    close(cmd[1]);
    close(res[0]);
    native_child(cmd[0], res[1], sizes.back());
  }
  close(cmd[0]);
  close(res[1]);
  auto send = [&](const void* p, size_t n) { CHECK(write(cmd[1], p, n) == static_cast<ssize_t>(n), "native child gone"); };
  auto recv = [&](void* p, size_t n) {
    char* c = static_cast<char*>(p);
    while (n) {
      ssize_t r = read(res[0], c, n);
      CHECK(r > 0, "native child gone");
      c += r;
      n -= static_cast<size_t>(r);
    }
  };
  auto finish_child = [&] {
    char q = 'Q';
    (void)!write(cmd[1], &q, 1);
    close(cmd[1]);
    close(res[0]);
    int st;
    waitpid(child, &st, 0);
  };

  Json rows = Json::array();
  try {
    ReplayTimeline t(trace);
    t.set_catch_syscalls(std::vector<int>{SYS_getppid});
    std::string status = replayed_status_path(t);
    for (long mb : sizes) {
      char c = 'T';
      int64_t m = mb, native_rss = 0;
      send(&c, 1);
      send(&m, 8);
      recv(&native_rss, 8);
      // Catch-syscall stops come at the entry and at the return of the
      // marker; the return is the event boundary after it.
      TargetStop s;
      do {
        s = go(t, kFwd);
        CHECK(s.kind == TargetStop::Kind::Syscall && s.syscall == SYS_getppid,
              "expected the getppid marker after touching " << mb << " MiB, got " << to_string(s.kind));
      } while (!s.syscall_return);
      long replay_rss = vm_rss_kb(status);
      CHECK(replay_rss >= mb * 1024, "the replayed process holds " << replay_rss << " kB at the marker for " << mb
                                                                   << " MiB: stopped at the wrong place?");

      std::vector<double> fork_ms, reap_ms, ckpt_ms, del_ms, reader_ms;
      for (long r = -1; r < reps; ++r) {  // r == -1: warm-up, not counted
        // Alternate which goes first, so that neither always follows the
        // other's teardown.
        int64_t ns[2];
        auto native_fork = [&] {
          c = 'F';
          send(&c, 1);
          recv(ns, sizeof ns);
        };
        if (r % 2 == 0) native_fork();
        auto t0 = Clock::now();
        int id = t.create_checkpoint();
        double create = seconds_since(t0) * 1e3;
        t0 = Clock::now();
        CHECK(t.delete_checkpoint(id), "checkpoint " << id << " not deleted");
        double del = seconds_since(t0) * 1e3;
        if (r % 2 != 0) native_fork();
        t0 = Clock::now();
        {
          trace::TraceReader reader(trace);
          reader.seek(t.current_event());
        }
        double rd = seconds_since(t0) * 1e3;
        if (r < 0) continue;
        fork_ms.push_back(static_cast<double>(ns[0]) / 1e6);
        reap_ms.push_back(static_cast<double>(ns[1]) / 1e6);
        ckpt_ms.push_back(create);
        del_ms.push_back(del);
        reader_ms.push_back(rd);
      }
      Json row = Json::object();
      row.set("size_mib", mb);
      row.set("event", t.current_event());
      row.set("replay_rss_kb", replay_rss);
      row.set("native_rss_kb", native_rss);
      row.set("checkpoint_ms", summary(ckpt_ms));
      row.set("checkpoint_delete_ms", summary(del_ms));
      row.set("fork_ms", summary(fork_ms));
      row.set("fork_reap_ms", summary(reap_ms));
      row.set("trace_reader_open_seek_ms", summary(reader_ms));
      row.set("checkpoint_ms_all", Json::array_of(ckpt_ms));
      row.set("fork_ms_all", Json::array_of(fork_ms));
      rows.push(row);
      std::ostringstream os;
      os << mb << " MiB (replay RSS " << replay_rss / 1024 << " MiB, native " << native_rss / 1024
         << " MiB): checkpoint " << median(ckpt_ms) << " ms, fork " << median(fork_ms) << " ms";
      progress(os.str());
    }
  } catch (...) {
    finish_child();
    throw;
  }
  finish_child();
  out.set("rows", rows);
  return out;
}

// ------------------------------------------- 2. reverse-continue vs distance

struct Pair {
  std::string region;
  long distance = 0;  // iterations = events between the two hits
  long first = 0;     // iteration of the earlier hit
};

Json bench_continue(const Config& cfg) {
  long n = cfg.num("iterations", 300000);
  std::vector<long> distances = cfg.list("distances", "10,100,1000,10000");
  long reps = std::max(1L, cfg.num("reps", 3));
  const long gap = 1500;  // iterations between one pair and the next

  // Hit schedule: for each distance D, `reps` pairs of calls to f D
  // iterations apart, at varying offsets from the ~1000-event checkpoint
  // grid; one block of pairs near the start, the same block near the end.
  std::vector<Pair> block;
  long pos = 0;
  for (long d : distances) {
    for (long r = 0; r < reps; ++r) {
      long off = (r * 379 + d * 7 + 150) % 1000;
      block.push_back({"", d, pos + off});
      pos += off + d + gap;
    }
  }
  long span = pos;
  long start_base = 2000;
  // Same position modulo 1000 as the start block, so that both blocks sit
  // alike on the checkpoint grid.
  long end_base = (n - span - 1000) / 1000 * 1000;
  CHECK(end_base > start_base + span + 2 * gap,
        "--iterations " << n << " too small for the schedule (needs more than " << 2 * span + 3 * gap + 3000 << ")");
  std::vector<Pair> pairs;
  for (const Pair& p : block) pairs.push_back({"start", p.distance, start_base + p.first});
  for (const Pair& p : block) pairs.push_back({"end", p.distance, end_base + p.first});
  std::vector<std::string> args{"calls", std::to_string(n)};
  for (const Pair& p : pairs) {
    args.push_back(std::to_string(p.first));
    args.push_back(std::to_string(p.first + p.distance));
  }
  Json out = Json::object();
  Json rec = Json::object();
  std::string trace = record(cfg, "calls", args, rec);
  out.set("recording", rec);
  out.set("iterations", n);
  out.set("reps", reps);
  uint64_t f = find_symbol(cfg.workload, "f").addr;

  ReplayTimeline t(trace);
  t.set_breakpoint(f, TrapKind::Software);
  double fwd_s = 0;
  uint64_t fwd_events = 0;
  auto forward_to_hit = [&](long iteration) {
    uint64_t e0 = t.current_event();
    auto t0 = Clock::now();
    TargetStop s = go(t, kFwd);
    fwd_s += seconds_since(t0);
    fwd_events += t.current_event() - e0;
    CHECK(s.kind == TargetStop::Kind::Breakpoint && s.address == f,
          "forward: expected f(" << iteration << "), got " << to_string(s.kind));
    long arg = static_cast<long>(t.registers(0).arg(0));
    CHECK(arg == iteration, "forward: expected f(" << iteration << "), stopped at f(" << arg << ")");
    return t.current_event();
  };

  Json rows = Json::array();
  auto measure = [&](const Pair& p, const std::string& phase) {
    uint64_t e_first = forward_to_hit(p.first);
    uint64_t e_second = forward_to_hit(p.first + p.distance);
    std::size_t cps_before = t.checkpoint_count();
    double c0 = cpu_seconds();
    auto t0 = Clock::now();
    TargetStop s = go(t, kBack);
    double ms = seconds_since(t0) * 1e3;
    double cpu_ms = (cpu_seconds() - c0) * 1e3;
    CHECK(s.kind == TargetStop::Kind::Breakpoint && s.address == f,
          "reverse-continue from f(" << p.first + p.distance << "): got " << to_string(s.kind));
    long arg = static_cast<long>(t.registers(0).arg(0));
    CHECK(arg == p.first, "reverse-continue from f(" << p.first + p.distance << ") landed in f(" << arg
                                                     << "), expected f(" << p.first << ")");
    CHECK(t.current_event() == e_first, "reverse-continue landed at event " << t.current_event()
                                                                            << ", the hit was at event " << e_first);
    Json row = Json::object();
    row.set("phase", phase);
    row.set("distance_iterations", p.distance);
    row.set("distance_events", e_second - e_first);
    row.set("from_event", e_second);
    row.set("to_event", e_first);
    row.set("reverse_continue_ms", ms);
    row.set("reverse_continue_cpu_ms", cpu_ms);
    row.set("checkpoints", cps_before);
    rows.push(row);
    // Back to the later hit, so that the next continue goes on to the next pair.
    forward_to_hit(p.first + p.distance);
    std::ostringstream os;
    os << phase << ": D=" << p.distance << " back from event " << e_second << ": " << ms << " ms (cpu " << cpu_ms
       << " ms), " << cps_before << " checkpoints";
    progress(os.str());
  };

  for (const Pair& p : pairs) measure(p, p.region);
  // Forward replay rate over the first pass (events replayed by continue,
  // automatic checkpoints included), for turning times into events.
  double us_per_event = fwd_events ? fwd_s * 1e6 / static_cast<double>(fwd_events) : NAN;
  out.set("forward_us_per_event", us_per_event);
  out.set("checkpoints_at_end", t.checkpoint_count());
  {
    // The bound on automatic checkpoints after all those reverse runs.
    CheckpointStats cs = t.checkpoint_stats();
    out.set("checkpoint_limit", cs.limit);
    out.set("checkpoints_live", cs.automatic);
    out.set("checkpoints_peak", cs.peak);
    out.set("checkpoints_evicted", static_cast<double>(cs.evicted));
  }

  // The start block again, now that the whole trace has been replayed: the
  // automatic checkpoints there have been thinned out.
  {
    t.remove_breakpoint(f, TrapKind::Software);
    auto t0 = Clock::now();
    t.restart(std::nullopt);
    t.set_breakpoint(f, TrapKind::Software);
    progress("restarted in " + std::to_string(seconds_since(t0)).substr(0, 5) + " s; revisiting the start block");
    for (const Pair& p : pairs) {
      if (p.region == "start") measure(p, "start-revisited");
    }
  }
  out.set("rows", rows);
  return out;
}

// ------------------------------------------------------- 3. reverse-stepi

Json stepi_scenario(const Config& cfg, const std::string& name, const std::vector<std::string>& args,
                    const std::string& symbol, long hit, long steps, bool hit_has_index = true) {
  Json out = Json::object();
  Json rec = Json::object();
  std::string trace = record(cfg, name, args, rec);
  out.set("recording", rec);
  out.set("breakpoint", symbol);
  out.set("hit", hit);
  uint64_t addr = find_symbol(cfg.workload, symbol).addr;
  ReplayTimeline t(trace);
  t.set_breakpoint(addr, TrapKind::Software);
  auto t0 = Clock::now();
  double last_forward_s = 0;
  for (long k = 1; k <= hit; ++k) {
    auto c0 = Clock::now();
    TargetStop s = go(t, kFwd);
    last_forward_s = seconds_since(c0);
    CHECK(s.kind == TargetStop::Kind::Breakpoint && s.address == addr,
          name << ": hit " << k << " of " << symbol << ": got " << to_string(s.kind));
  }
  out.set("forward_to_hit_s", seconds_since(t0));
  // The continue to the hit from the one before: across the stretch the
  // first reverse-stepi goes back into.
  out.set("last_forward_s", last_forward_s);
  if (hit_has_index) CHECK(static_cast<long>(t.registers(0).arg(0)) == hit - 1, name << ": not at the expected call");
  Registers start = t.registers(0);
  out.set("start_position", t.describe_position());

  std::vector<double> ms;
  std::vector<uint64_t> pcs;
  auto total0 = Clock::now();
  for (long i = 0; i < steps; ++i) {
    auto s0 = Clock::now();
    std::string before = t.describe_position();
    TargetStop s;
    try {
      s = go(t, kBack, ResumeRequest::How::Step);
    } catch (const std::exception& e) {
      throw BenchFailure(name + ": reverse-stepi " + std::to_string(i + 1) + " from " + before + ": " + e.what());
    }
    ms.push_back(seconds_since(s0) * 1e3);
    CHECK(s.kind == TargetStop::Kind::Step, name << ": reverse-stepi " << i + 1 << " gave " << to_string(s.kind));
    pcs.push_back(t.registers(0).ip());
  }
  double total = seconds_since(total0);
  out.set("end_position", t.describe_position());
  // Forward again over the same instructions must retrace them exactly. An
  // engine error here (not a wrong pc) is recorded, not fatal: the reverse
  // steps above were measured already (see "Known engine bugs" in
  // bench/README.md: a forward stepi onto a syscall instruction diverges).
  std::string retrace = "ok";
  for (long i = steps - 2; i >= -1; --i) {
    std::string before = t.describe_position();
    TargetStop s;
    try {
      s = go(t, kFwd, ResumeRequest::How::Step);
    } catch (const std::exception& e) {
      retrace = "ENGINE ERROR in forward stepi " + std::to_string(steps - 1 - i) + " (retracing the reverse steps) from " +
                before + " at pc 0x" + hex(t.registers(0).ip()) + ": " + e.what();
      progress(name + ": " + retrace);
      break;
    }
    CHECK(s.kind == TargetStop::Kind::Step, name << ": forward stepi gave " << to_string(s.kind));
    uint64_t want = i >= 0 ? pcs[static_cast<std::size_t>(i)] : start.ip();
    CHECK(t.registers(0).ip() == want, name << ": forward stepi " << steps - 1 - i << " at 0x" << std::hex
                                            << t.registers(0).ip() << ", reverse had 0x" << want);
  }
  if (retrace == "ok") {
    CHECK(Registers::differences(start, t.registers(0)).empty(),
          name << ": registers differ after stepping back and forth");
  }
  out.set("forward_retrace", retrace);
  out.set("steps", steps);
  out.set("total_s", total);
  out.set("step_ms", summary(ms));
  out.set("first_step_ms", ms.empty() ? NAN : ms[0]);
  std::vector<double> rest(ms.begin() + (ms.empty() ? 0 : 1), ms.end());
  out.set("later_steps_ms", summary(rest));
  out.set("over_50ms", static_cast<long>(std::count_if(ms.begin(), ms.end(), [](double x) { return x > 50; })));
  out.set("approaches", static_cast<long>(t.approaches()));
  out.set("live_checkpoints", static_cast<long>(t.checkpoint_count()));
  out.set("step_ms_all", Json::array_of(ms));
  std::ostringstream os;
  os << name << ": " << steps << " reverse-stepi, median " << median(ms) << " ms, p90 " << percentile(ms, 90)
     << " ms, max " << *std::max_element(ms.begin(), ms.end()) << " ms";
  progress(os.str());
  return out;
}

Json bench_stepi(const Config& cfg) {
  long steps = std::max(2L, cfg.num("steps", 200));
  long dense_hit = std::max(2L, cfg.num("dense-hit", 5000));
  std::vector<long> inner_hits = cfg.list("inner-hit", "1000");
  Json out = Json::object();
  Json sc = Json::array();
  Json a = stepi_scenario(cfg, "dense", {"dense", std::to_string(dense_hit + 1000)}, "f", dense_hit, steps);
  a.set("scenario", "syscall-loop");
  sc.push(a);
  for (long inner_hit : inner_hits) {
    inner_hit = std::max(2L, inner_hit);
    Json b = stepi_scenario(cfg, "inner", {"inner", std::to_string(inner_hit + 1000)}, "g", inner_hit, steps);
    b.set("scenario", "syscall-free-loop");
    sc.push(b);
  }
  // From spun(), called after spin() over ~10^8 instructions without an event
  // (spin is 9 instructions a pass): the first step goes back into the end
  // of that stretch (engine/timeline/timeline_approach.cc).
  long stretch = cfg.num("stretch-iterations", 0);
  if (stretch > 0) {
    Json c = stepi_scenario(cfg, "stretch", {"spin", std::to_string(stretch)}, "spun", 1, steps, false);
    c.set("scenario", "long-stretch");
    c.set("stretch_instructions", stretch * 9);
    sc.push(c);
  }
  out.set("scenarios", sc);
  return out;
}

// ------------------------------------------------------- 4. reverse-next

// Positions the timeline at the return address of spin() (reached by a
// breakpoint, or by forward range-stepping through spin as gdb's `next`
// over a one-line loop would), then reverse-steps while the pc is inside
// spin, as gdb's reverse-next does over a one-line loop.
Json next_run(const Config& cfg, long n, bool arrive_by_range_step, double max_s) {
  Json out = Json::object();
  Json rec = Json::object();
  std::string trace = record(cfg, "spin" + std::to_string(n), {"spin", std::to_string(n)}, rec);
  out.set("recording", rec);
  out.set("iterations", n);
  out.set("arrive_by", arrive_by_range_step ? "forward range-step (gdb next)" : "breakpoint");
  Symbol spin = find_symbol(cfg.workload, "spin");
  uint64_t lo = spin.addr, hi = spin.addr + spin.size;
  ReplayTimeline t(trace);
  t.set_breakpoint(lo, TrapKind::Software);
  TargetStop s = go(t, kFwd);
  CHECK(s.kind == TargetStop::Kind::Breakpoint && s.address == lo, "spin not reached");
  t.remove_breakpoint(lo, TrapKind::Software);
  uint64_t ret = read_u64(t, t.registers(0).sp());
  if (arrive_by_range_step) {
    ResumeRequest r;
    r.how = ResumeRequest::How::RangeStep;
    r.range_start = lo;
    r.range_end = hi;
    auto t0 = Clock::now();
    s = t.resume(r, nullptr);
    out.set("forward_range_step_s", seconds_since(t0));
    CHECK(s.kind == TargetStop::Kind::Step && t.registers(0).ip() == ret, "range-step did not end at the return address");
  } else {
    t.set_breakpoint(ret, TrapKind::Software);
    s = go(t, kFwd);
    CHECK(s.kind == TargetStop::Kind::Breakpoint && s.address == ret, "return address not reached");
    t.remove_breakpoint(ret, TrapKind::Software);
  }
  out.set("start_position", t.describe_position());

  std::vector<double> ms;
  uint64_t pc = 0;
  bool complete = false;
  auto t0 = Clock::now();
  for (;;) {
    auto s0 = Clock::now();
    s = go(t, kBack, ResumeRequest::How::Step);
    ms.push_back(seconds_since(s0) * 1e3);
    CHECK(s.kind == TargetStop::Kind::Step, "reverse-stepi " << ms.size() << " gave " << to_string(s.kind));
    pc = t.registers(0).ip();
    if (ms.size() > 1 && (pc < lo || pc >= hi)) {
      complete = true;
      break;
    }
    if (ms.size() == 1) CHECK(pc >= lo && pc < hi, "first reverse-stepi did not go back into spin");
    if (seconds_since(t0) > max_s) break;
    if (ms.size() % 1000 == 0) {
      progress("  ... " + std::to_string(ms.size()) + " steps, " + std::to_string(seconds_since(t0)).substr(0, 5) + " s");
    }
  }
  double total = seconds_since(t0);
  if (complete) CHECK(pc == ret - 5, "reverse-next ended at 0x" << std::hex << pc << ", not at the call 0x" << ret - 5);
  // The loop is 9 instructions per iteration at -O1 (see reverse_workload.c);
  // spin's entry and exit add 6, and the last step lands on the call.
  out.set("complete", complete);
  out.set("steps", ms.size());
  out.set("total_s", total);
  out.set("first_step_ms", ms[0]);
  std::vector<double> rest(ms.begin() + 1, ms.end());
  out.set("later_steps_ms", summary(rest));
  if (ms.size() <= 2000) out.set("step_ms_all", Json::array_of(ms));
  out.set("checkpoints_after", t.checkpoint_count());
  out.set("checkpoints_live", t.checkpoint_stats().automatic);
  out.set("checkpoint_limit", t.checkpoint_stats().limit);
  std::ostringstream os;
  os << "reverse-next over spin(" << n << ") arrived by " << (arrive_by_range_step ? "range-step" : "breakpoint") << ": "
     << ms.size() << " steps in " << total << " s" << (complete ? "" : " (INCOMPLETE: time limit)");
  progress(os.str());
  return out;
}

Json bench_next(const Config& cfg) {
  std::vector<long> iters = cfg.list("iterations", "100,1000");
  std::string range_list = cfg.str("range-iterations", "100");
  double max_s = static_cast<double>(cfg.num("max-seconds", 240));
  Json out = Json::object();
  Json runs = Json::array();
  for (long n : iters) runs.push(next_run(cfg, n, false, max_s));
  if (!range_list.empty() && range_list != "0") {
    for (long n : cfg.list("range-iterations", "100")) runs.push(next_run(cfg, n, true, max_s));
  }
  out.set("runs", runs);
  return out;
}

void usage(std::ostream& os) {
  os << "usage: reverse_bench {checkpoint|continue|stepi|next|hits} --json OUT [--tmp DIR] [--keep]\n"
        "                     [--workload PATH] [--OPTION VALUE ...]\n"
        "  checkpoint: --sizes 16,64,256,1024 --reps 11\n"
        "  continue:   --iterations 300000 --distances 10,100,1000,10000 --reps 3\n"
        "  stepi:      --steps 200 --dense-hit 5000 --inner-hit 1000[,N...] [--stretch-iterations N]\n"
        "  next:       --iterations 100,1000 --range-iterations 100 (0: none) --max-seconds 240\n"
        "  hits:       --hits 10000,100000,1000000,2000000 --forward-hits 100000 --int3-max-hits 100000\n";
}

}  // namespace

int main(int argc, char** argv) {
  // ReplaySession execs this binary as the stub of the replayed process
  // (and replaces its address space before it runs): never run as that.
  if (argc > 1 && std::strcmp(argv[1], "--backstep-replay-stub") == 0) _exit(1);
  Config cfg;
  try {
    if (argc < 2) {
      usage(std::cerr);
      return 2;
    }
    cfg.experiment = argv[1];
    for (int i = 2; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--keep") {
        cfg.keep = true;
        continue;
      }
      if (a.rfind("--", 0) != 0 || i + 1 >= argc) throw std::invalid_argument("bad argument '" + a + "'");
      std::string key = a.substr(2), value = argv[++i];
      if (key == "json") cfg.json_out = value;
      else if (key == "workload") cfg.workload = value;
      else if (key == "tmp") cfg.tmp = value;
      else cfg.opts[key] = value;
    }
    if (cfg.json_out.empty()) throw std::invalid_argument("--json OUT is required");
    if (cfg.workload.empty() || access(cfg.workload.c_str(), X_OK) != 0) {
      throw std::invalid_argument("workload binary '" + cfg.workload + "' missing (use --workload PATH)");
    }
    cfg.workload = std::filesystem::absolute(cfg.workload).string();
  } catch (const std::exception& e) {
    std::cerr << "reverse_bench: " << e.what() << "\n";
    usage(std::cerr);
    return 2;
  }

  bool own_tmp = cfg.tmp.empty();
  if (own_tmp) {
    const char* base = getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/backstep-reverse-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back(0);
    if (!mkdtemp(buf.data())) {
      std::cerr << "reverse_bench: mkdtemp failed\n";
      return 1;
    }
    cfg.tmp = buf.data();
  }
  Json result = Json::object();
  result.set("experiment", cfg.experiment);
  int rc = 0;
  auto t0 = Clock::now();
  try {
    Json body;
    if (cfg.experiment == "checkpoint") body = bench_checkpoint(cfg);
    else if (cfg.experiment == "continue") body = bench_continue(cfg);
    else if (cfg.experiment == "stepi") body = bench_stepi(cfg);
    else if (cfg.experiment == "next") body = bench_next(cfg);
    else if (cfg.experiment == "hits") body = bench_hits(cfg);
    else {
      std::cerr << "reverse_bench: unknown experiment '" << cfg.experiment << "'\n";
      usage(std::cerr);
      return 2;
    }
    result.set("result", body);
  } catch (const std::exception& e) {
    std::cerr << "reverse_bench: " << cfg.experiment << " FAILED: " << e.what() << "\n";
    result.set("error", std::string(e.what()));
    rc = 1;
  }
  result.set("wall_s", seconds_since(t0));
  if (own_tmp && !cfg.keep) std::filesystem::remove_all(cfg.tmp);
  std::ofstream f(cfg.json_out);
  result.write(f);
  f << "\n";
  if (!f) {
    std::cerr << "reverse_bench: cannot write " << cfg.json_out << "\n";
    return 1;
  }
  return rc;
}
