#!/usr/bin/env python3
"""backstep reverse-execution benchmarks: checkpoints, reverse-continue, reverse-stepi, reverse-next.

    python3 bench/reverse.py [--quick] [--only NAME] [--json OUT] [--no-build]

Builds backstep and the benchmark (build/bench/reverse_bench, from
bench/reverse/) with ./scripts/build, copies the two binaries into a temporary
directory (so that one fixed binary is measured even if build/ is rebuilt
meanwhile), runs reverse_bench once per experiment, prints a table per
experiment and a summary of the targets, and writes every figure as JSON
(default bench/results/reverse.json).

Experiments (--only, repeatable or comma-separated): checkpoint, continue,
stepi, next, hits. Python standard library only. See bench/README.md, "Reverse
execution", for what is measured and how to read it.
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
BUILD_DIR = os.environ.get("BUILD_DIR", os.path.join(ROOT, "build"))
DEFAULT_JSON = os.path.join(BENCH_DIR, "results", "reverse.json")
EXPERIMENTS = ["checkpoint", "continue", "stepi", "next", "hits"]

# reverse_bench options per experiment: full run, then --quick.
PARAMS = {
    "checkpoint": (
        {"sizes": "16,64,256,1024", "reps": 11},
        {"sizes": "16,64,256,1024", "reps": 5},
    ),
    "continue": (
        {"iterations": 300000, "distances": "10,100,1000,10000", "reps": 3},
        {"iterations": 40000, "distances": "10,100,1000", "reps": 1},
    ),
    "stepi": (
        {"steps": 200, "dense-hit": 5000, "inner-hit": "1000,4000", "stretch-iterations": 11111111},
        {"steps": 200, "dense-hit": 1000, "inner-hit": 300, "stretch-iterations": 11111111},
    ),
    "next": (
        {"iterations": "100,1000", "range-iterations": "20,40", "max-seconds": 240},
        {"iterations": "100", "range-iterations": "20", "max-seconds": 30},
    ),
    "hits": (
        {"hits": "10000,100000,1000000,2000000", "forward-hits": 100000, "int3-max-hits": 100000,
         "conditional-calls": 5000},
        {"hits": "10000,100000", "forward-hits": 20000, "int3-max-hits": 10000, "conditional-calls": 1000},
    ),
}
TIMEOUT_S = {"checkpoint": 300, "continue": 900, "stepi": 300, "next": 900, "hits": 900}
HITS_TARGET_RATIO = 3.0
NEXT_TARGET_ITERATIONS = 10000
# spin()'s loop is 9 instructions an iteration at -O1, plus 6 for its entry
# and exit and 1 for the step back onto the call (reverse_workload.c).
INSNS_PER_ITERATION, INSNS_FIXED = 9, 7
STEPI_TARGET_MS = 50.0


class BenchError(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="smaller sizes, under a minute")
    p.add_argument("--only", action="append", default=[], metavar="NAME",
                   help=f"run only this experiment ({', '.join(EXPERIMENTS)}; repeatable or comma-separated)")
    p.add_argument("--json", default=DEFAULT_JSON, help="where to write the figures (default %(default)s)")
    p.add_argument("--no-build", action="store_true", help="do not run ./scripts/build (the binaries must exist)")
    p.add_argument("--next-iterations", default=None, metavar="N,N",
                   help="loop sizes for reverse-next (default 100,1000; 10000 takes ~10 min here)")
    p.add_argument("--next-range-iterations", default=None, metavar="N,N",
                   help="loop sizes for reverse-next after a forward range-step (default 20,40); "
                        "the forward range-step (gdb's `next`) is timed in the same run for the ratio")
    p.add_argument("--keep-temp", action="store_true", help="keep the temporary directory (binaries, traces)")
    p.add_argument("--report", metavar="JSON", default=None,
                   help="only print the tables of an earlier run's JSON (nothing is built or run)")
    a = p.parse_args()
    wanted = [n for item in a.only for n in item.split(",") if n]
    for n in wanted:
        if n not in EXPERIMENTS:
            p.error(f"unknown experiment '{n}' (known: {', '.join(EXPERIMENTS)})")
    a.experiments = [e for e in EXPERIMENTS if not wanted or e in wanted]
    return a


def build(no_build):
    bench = os.path.join(BUILD_DIR, "bench", "reverse_bench")
    workload = os.path.join(BUILD_DIR, "bench", "reverse_workload")
    if not no_build:
        log("building with ./scripts/build")
        r = subprocess.run([os.path.join(ROOT, "scripts", "build")], cwd=ROOT)
        if r.returncode != 0:
            raise BenchError(f"./scripts/build failed (exit {r.returncode})")
    for path in (bench, workload):
        if not os.access(path, os.X_OK):
            raise BenchError(f"{path} missing: is BACKSTEP_BENCH off in {BUILD_DIR}/CMakeCache.txt?")
    return bench, workload


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def git_rev():
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip() != ""
        return rev + ("-dirty" if dirty else "") if rev else None
    except OSError:
        return None


def read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def run_experiment(name, params, bench, workload, tmp):
    out = os.path.join(tmp, f"{name}.json")
    cmd = [bench, name, "--json", out, "--workload", workload, "--tmp", os.path.join(tmp, f"traces-{name}")]
    os.makedirs(cmd[-1], exist_ok=True)
    for k, v in params.items():
        cmd += [f"--{k}", str(v)]
    log(f"== {name}: {' '.join(os.path.basename(c) if i == 0 else c for i, c in enumerate(cmd))}")
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, timeout=TIMEOUT_S[name], stdin=subprocess.DEVNULL)
        rc = r.returncode
    except subprocess.TimeoutExpired:
        raise BenchError(f"{name}: reverse_bench ran past {TIMEOUT_S[name]} s")
    wall = time.perf_counter() - t0
    try:
        with open(out) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise BenchError(f"{name}: reverse_bench exited {rc} without a readable result ({e})")
    doc["driver_wall_s"] = wall
    doc["params"] = params
    if rc != 0 or "error" in doc:
        raise BenchError(f"{name}: {doc.get('error', f'reverse_bench exited {rc}')}")
    return doc


def percentile(values, p):
    """Linear interpolation between closest ranks, as reverse_bench computes its own."""
    v = sorted(values)
    if not v:
        return None
    rank = p / 100 * (len(v) - 1)
    lo = int(rank)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (rank - lo)


def fmt_ms(x):
    if x is None:
        return "-"
    return f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:.0f}"


def rng(s):
    return f"{fmt_ms(s['min'])}..{fmt_ms(s['max'])}"


# ---------------------------------------------------------------- tables

def table_checkpoint(res, summary):
    rows = res["rows"]
    print("\n== 1. Checkpoint (ReplayTimeline::create_checkpoint) vs fork() of a process as large ==")
    print(f"resident size = anonymous memory touched by the workload (plus ~1-2 MiB of program); "
          f"median of {res['reps']} after one warm-up")
    hdr = (f"{'MiB':>5} {'RSS replay/native':>17} {'checkpoint ms':>13} {'min..max':>15} {'fork ms':>8} "
           f"{'min..max':>15} {'ckpt/fork':>9} {'ckpt-fork ms':>12} {'delete ms':>9} {'reap ms':>8} {'reader ms':>9}")
    print(hdr)
    print("-" * len(hdr))
    out = []
    for r in rows:
        c, f = r["checkpoint_ms"], r["fork_ms"]
        ratio = c["median"] / f["median"]
        print(f"{r['size_mib']:>5} {r['replay_rss_kb'] / 1024:>8.0f}/{r['native_rss_kb'] / 1024:<8.0f} "
              f"{fmt_ms(c['median']):>13} {rng(c):>15} {fmt_ms(f['median']):>8} {rng(f):>15} {ratio:>8.2f}x "
              f"{c['median'] - f['median']:>+12.3f} {fmt_ms(r['checkpoint_delete_ms']['median']):>9} "
              f"{fmt_ms(r['fork_reap_ms']['median']):>8} {fmt_ms(r['trace_reader_open_seek_ms']['median']):>9}")
        out.append({"size_mib": r["size_mib"], "checkpoint_ms": c["median"], "fork_ms": f["median"],
                    "ratio": ratio, "met": c["median"] <= f["median"],
                    "met_within_min_max": c["min"] <= f["max"]})
    print("delete = delete_checkpoint (kill + reap of the checkpoint process); reap = kill + waitpid of the forked "
          "child; reader = opening the trace and seeking to the event, which every checkpoint also does")
    summary["checkpoint"] = out


def table_continue(res, summary):
    us = res["forward_us_per_event"]
    print("\n== 2. Reverse-continue back to the previous hit of a breakpoint, D events back ==")
    print(f"trace: {res['recording']['events']} events (one getpid per iteration; f called only at the hits); "
          f"forward replay {us:.1f} us/event (incl. automatic checkpoints); "
          f"{res['checkpoints_at_end']} checkpoints held at the end; "
          f"automatic checkpoints live after the reverse runs: {res.get('checkpoints_live', '?')} "
          f"(limit {res.get('checkpoint_limit', '?')}, peak {res.get('checkpoints_peak', '?')}, "
          f"{res.get('checkpoints_evicted', '?')} evicted)")
    groups = {}
    for r in res["rows"]:
        groups.setdefault((r["phase"], r["distance_events"]), []).append(r)
    hdr = (f"{'phase':<16} {'D events':>8} {'at events':>15} {'n':>2} {'median ms':>10} {'min..max ms':>15} "
           f"{'cpu ms':>8} {'~events replayed':>16} {'ckpts':>6}")
    print(hdr)
    print("-" * len(hdr))
    out = {}
    for phase in ("start", "end", "start-revisited"):
        for (ph, d), rs in sorted(groups.items(), key=lambda kv: kv[0][1]):
            if ph != phase:
                continue
            ms = [r["reverse_continue_ms"] for r in rs]
            cpu = [r["reverse_continue_cpu_ms"] for r in rs]
            med = statistics.median(ms)
            at = f"{min(r['to_event'] for r in rs)}..{max(r['from_event'] for r in rs)}"
            print(f"{phase:<16} {d:>8} {at:>15} {len(rs):>2} {fmt_ms(med):>10} "
                  f"{fmt_ms(min(ms)) + '..' + fmt_ms(max(ms)):>15} {fmt_ms(statistics.median(cpu)):>8} "
                  f"{med * 1000 / us:>16.0f} {rs[0]['checkpoints']:>6}")
            out.setdefault(phase, {})[str(d)] = {"median_ms": med, "min_ms": min(ms), "max_ms": max(ms),
                                                 "events_equivalent": med * 1000 / us}
    print("~events replayed = median time / forward us per event: how many events' worth of forward replay the "
          "search cost (it replays from the checkpoint before the hit to the start position, then seeks back "
          "to the hit)")
    cmp = {}
    for d, s in out.get("start", {}).items():
        e = out.get("end", {}).get(d)
        if e:
            cmp[d] = e["median_ms"] / s["median_ms"]
    if cmp:
        print("end/start median ratio by D: " + ", ".join(f"D={d}: {r:.2f}" for d, r in cmp.items()))
    summary["continue"] = {"medians": out, "end_over_start": cmp, "forward_us_per_event": us}


def table_stepi(res, summary):
    print("\n== 3. Reverse-stepi: 200 consecutive steps back from a breakpoint in a loop body ==")
    hdr = (f"{'scenario':<18} {'from':<28} {'median ms':>9} {'p90 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8} "
           f"{'mean ms':>8} {'first ms':>8} {'>50ms':>6}")
    print(hdr)
    print("-" * len(hdr))
    out = []
    for s in res["scenarios"]:
        st = s["step_ms"]
        p95 = percentile(s["step_ms_all"], 95)
        p99 = percentile(s["step_ms_all"], 99)
        met = st["median"] <= STEPI_TARGET_MS and st["p90"] <= STEPI_TARGET_MS
        print(f"{s['scenario']:<18} {s['start_position']:<28} {fmt_ms(st['median']):>9} {fmt_ms(st['p90']):>8} "
              f"{fmt_ms(p95):>8} {fmt_ms(p99):>8} {fmt_ms(st['max']):>8} {fmt_ms(st['mean']):>8} {fmt_ms(s['first_step_ms']):>8} "
              f"{s['over_50ms']:>6}")
        out.append({"scenario": f"{s['scenario']} (hit {s['hit']})", "median_ms": st["median"], "p90_ms": st["p90"],
                    "p95_ms": p95, "p99_ms": p99, "max_ms": st["max"], "over_50ms": s["over_50ms"], "steps": s["steps"],
                    "met": met, "forward_retrace": s["forward_retrace"]})
    print("syscall-loop: f(i); getpid() per iteration, breakpoint on f at the hit shown (the steps cross "
          "system calls); syscall-free-loop: g(i) per iteration, no events at all (from: the position, as "
          "event + breakpoint hits since it); long-stretch: from spun(), called after spin() over ~10^8 "
          "instructions without an event (the first step goes back into the end of the stretch)")
    for s in res["scenarios"]:
        if s["scenario"] == "long-stretch":
            ratio = s["first_step_ms"] / (s["last_forward_s"] * 1e3)
            print(f"long-stretch: first reverse-stepi {fmt_ms(s['first_step_ms'])} ms back into "
                  f"{s['stretch_instructions']:,} instructions; the forward continue across them "
                  f"{fmt_ms(s['last_forward_s'] * 1e3)} ms ({ratio:.1f}x); approaches {s['approaches']}, "
                  f"live checkpoints {s['live_checkpoints']}")
            out[-1]["first_step_ms"] = s["first_step_ms"]
            out[-1]["forward_ms"] = s["last_forward_s"] * 1e3
    for s in res["scenarios"]:
        if s["forward_retrace"] != "ok":
            print(f"!! {s['scenario']}: {s['forward_retrace']}")
    summary["stepi"] = out


def table_next(res, summary):
    print("\n== 4. Reverse-next over a one-line loop (reverse-stepi while the pc is inside spin()) ==")
    hdr = (f"{'iterations':>10} {'arrived by':<12} {'steps':>7} {'total s':>9} {'first ms':>9} {'median ms':>9} "
           f"{'mean ms':>8} {'p90 ms':>8} {'max ms':>8} {'done':>5}")
    print(hdr)
    print("-" * len(hdr))
    by_arrival = {}
    for r in res["runs"]:
        arrival = "range-step" if r["arrive_by"].startswith("forward") else "breakpoint"
        s = r["later_steps_ms"]
        print(f"{r['iterations']:>10} {arrival:<12} {r['steps']:>7} {r['total_s']:>9.2f} "
              f"{fmt_ms(r['first_step_ms']):>9} {fmt_ms(s['median']):>9} {fmt_ms(s['mean']):>8} "
              f"{fmt_ms(s['p90']):>8} {fmt_ms(s['max']):>8} {'yes' if r['complete'] else 'NO':>5}")
        by_arrival.setdefault(arrival, []).append(r)
    print("breakpoint: stopped at spin()'s return address by a breakpoint (continue), then stepped back; "
          "range-step: reached it by forward range-stepping through spin (gdb's `next` over a one-line loop)")
    out = {"runs": [{"iterations": r["iterations"], "arrived_by": r["arrive_by"], "steps": r["steps"],
                     "total_s": r["total_s"], "complete": r["complete"]} for r in res["runs"]]}
    n_target = NEXT_TARGET_ITERATIONS
    steps_target = INSNS_PER_ITERATION * n_target + INSNS_FIXED
    for r in res["runs"]:
        if r["complete"] and r["steps"] != INSNS_PER_ITERATION * r["iterations"] + INSNS_FIXED:
            print(f"!! spin({r['iterations']}): {r['steps']} steps, expected "
                  f"{INSNS_PER_ITERATION * r['iterations'] + INSNS_FIXED} (compiler changed the loop?)")
    bp = [r for r in by_arrival.get("breakpoint", []) if r["complete"]]
    measured = [r for r in bp if r["iterations"] == n_target]
    if measured:
        out["at_10000"] = {"total_s": measured[0]["total_s"], "steps": measured[0]["steps"], "extrapolated": False}
        print(f"reverse-next over {n_target} iterations (breakpoint arrival): measured {measured[0]['total_s']:.1f} s, "
              f"{measured[0]['steps']} steps")
    elif bp:
        big = max(bp, key=lambda r: r["iterations"])
        # First step: single-steps the whole loop forward once (linear in n);
        # each later step: a checkpoint clone plus <= 255 single-steps.
        first_s = big["first_step_ms"] / 1000 * n_target / big["iterations"]
        est = first_s + (steps_target - 1) * big["later_steps_ms"]["mean"] / 1000
        out["at_10000"] = {"total_s": est, "steps": steps_target, "extrapolated": True,
                           "from_iterations": big["iterations"]}
        print(f"reverse-next over {n_target} iterations (breakpoint arrival): NOT measured; extrapolated from "
              f"{big['iterations']} iterations: {steps_target} steps x {big['later_steps_ms']['mean']:.2f} ms mean "
              f"+ first step {first_s:.1f} s = ~{est:.0f} s ({est / 60:.1f} min)")
    rs = sorted([r for r in by_arrival.get("range-step", []) if r["complete"]], key=lambda r: r["steps"])
    for r in rs:
        # The same loop forwards (gdb's `next`: one range-step) and backwards
        # (gdb's reverse-next: one reverse-stepi per instruction), same run.
        fwd = r.get("forward_range_step_s")
        if fwd:
            ratio = r["total_s"] / fwd
            out.setdefault("reverse_vs_forward", []).append(
                {"iterations": r["iterations"], "forward_s": fwd, "reverse_s": r["total_s"], "ratio": ratio})
            print(f"spin({r['iterations']}): forward range-step {fwd:.2f} s, reverse-next {r['total_s']:.2f} s: "
                  f"{ratio:.2f}x")
    if any(r["iterations"] == n_target for r in rs):
        rs = []  # measured: no extrapolation
    if len(rs) >= 2:
        # Every step back re-walks all the steps from the start of the loop:
        # total ~ a*S + b*S^2. Fit the two largest runs.
        (s1, t1), (s2, t2) = [(r["steps"], r["total_s"]) for r in rs[-2:]]
        b = (t2 / s2 - t1 / s1) / (s2 - s1)
        a = t1 / s1 - b * s1
        est_rs = a * steps_target + b * steps_target ** 2
        out["range_step_at_10000_extrapolated_s"] = est_rs
        print(f"after a forward range-step (gdb `next`) instead: total ~ a*S + b*S^2 (S steps; b = {b * 1e6:.1f} us): "
              f"~{est_rs / 3600:.0f} h for {n_target} iterations (extrapolated from {rs[-2]['iterations']} and "
              f"{rs[-1]['iterations']} iterations)")
    summary["next"] = out


def table_hits(res, summary):
    print("\n== 5. Reverse-continue across N breakpoint hits (counted by the kernel, or an int3 stop at each) ==")
    hdr = (f"{'hits':>9} {'mode':<8} {'rc to last s':>12} {'rc across s':>11} {'fwd us/hit':>10} {'fwd hits s':>10} "
           f"{'fwd span s':>10} {'rc/fwd':>7} {'across/fwd':>10} {'ckpts':>6}")
    print(hdr)
    print("-" * len(hdr))
    out = []
    for r in res["rows"]:
        print(f"{r['hits']:>9} {r['mode']:<8} {r['reverse_continue_s']:>12.3f} {r['reverse_across_s']:>11.3f} "
              f"{r['forward_per_hit_us']:>10.1f} {r['forward_hits_s']:>10.2f} {r['forward_span_s']:>10.4f} "
              f"{r['reverse_continue_vs_forward']:>7.3f} {r['reverse_across_vs_forward']:>10.3f} "
              f"{int(r['checkpoints']):>6}")
        out.append({k: r[k] for k in ("hits", "mode", "reverse_continue_s", "reverse_across_s", "forward_hits_s",
                                      "reverse_continue_vs_forward", "reverse_across_vs_forward", "checkpoints")})
    print("rc to last: reverse-continue from after the loop to the last hit of g (the search crosses all N); "
          "rc across: from there, breakpoint gone, back to the marker before the loop (across the N hits that name "
          "the position); fwd hits: forward continues stopping at each hit of g (per hit, measured over the first "
          "hits, times N); fwd span: one forward continue over the loop with no breakpoint")
    summary["hits"] = out
    c = res.get("conditional")
    if c:
        print(f"conditional breakpoint false at every hit, gdb's way ({c['false_hits']} hits each way): forward "
              f"(step off + continue) {c['forward_s']:.2f} s, backward (reverse step off + reverse-continue) "
              f"{c['backward_s']:.2f} s: {c['backward_vs_forward']:.2f}x")
        summary["conditional"] = c


def print_summary(summary):
    print("\n== Targets ==")
    if "checkpoint" in summary:
        parts = [f"{c['size_mib']} MiB {c['ratio']:.2f}x ({c['checkpoint_ms'] - c['fork_ms']:+.2f} ms)"
                 for c in summary["checkpoint"]]
        met = [c["size_mib"] for c in summary["checkpoint"] if c["met"]]
        verdict = "MET" if len(met) == len(summary["checkpoint"]) else \
            f"met at {', '.join(map(str, met))} MiB only" if met else "NOT met"
        print(f"checkpoint <= fork of the same process: {verdict} "
              f"(median checkpoint/fork: {', '.join(parts)})")
    if "continue" in summary:
        c = summary["continue"]
        ratios = ", ".join(f"D={d}: {r:.2f}x" for d, r in c["end_over_start"].items())
        print(f"reverse-continue independent of trace length (same D near the start vs near the end): "
              f"end/start {ratios}")
        rev = c["medians"].get("start-revisited")
        if rev:
            print("  but after the whole trace was replayed, the same searches near the start take "
                  + ", ".join(f"D={d}: {v['median_ms']:.0f} ms" for d, v in rev.items())
                  + " (its automatic checkpoints were thinned out)")
    if "stepi" in summary:
        for s in summary["stepi"]:
            verdict = "MET" if s["met"] else "NOT met"
            if s["met"] and s["over_50ms"]:
                verdict = f"MET at median and p90, but {s['over_50ms']}/{s['steps']} steps took over " \
                          f"{STEPI_TARGET_MS:.0f} ms (up to {s['max_ms']:.0f} ms)"
            print(f"reverse-stepi within {STEPI_TARGET_MS:.0f} ms typically, {s['scenario']}: {verdict} "
                  f"(median {s['median_ms']:.2f} ms, p90 {s['p90_ms']:.2f} ms, p95 {s['p95_ms']:.2f} ms, "
                  f"p99 {s['p99_ms']:.2f} ms)")
            if "forward_ms" in s:
                first = s["first_step_ms"]
                print(f"  the first reverse-stepi into that stretch within {STEPI_TARGET_MS:.0f} ms: "
                      f"{'MET' if first <= STEPI_TARGET_MS else 'NOT met'} ({first:.0f} ms; the forward continue "
                      f"across it {s['forward_ms']:.0f} ms)")
    if "conditional" in summary:
        c = summary["conditional"]
        print(f"reverse-continue across {c['false_hits']} false hits of a conditional breakpoint within "
              f"{HITS_TARGET_RATIO:.0f}x the forward time: {'MET' if c['backward_vs_forward'] <= HITS_TARGET_RATIO else 'NOT met'} "
              f"({c['backward_vs_forward']:.2f}x: {c['backward_s']:.2f} s vs {c['forward_s']:.2f} s)")
    for h in summary.get("hits", []):
        worst = max(h["reverse_continue_vs_forward"], h["reverse_across_vs_forward"])
        print(f"reverse-continue across {h['hits']} hits ({h['mode']}) within {HITS_TARGET_RATIO:.0f}x the forward "
              f"continues over them: {'MET' if worst <= HITS_TARGET_RATIO else 'NOT met'} "
              f"(to the last hit {h['reverse_continue_vs_forward']:.3f}x, across them {h['reverse_across_vs_forward']:.3f}x, "
              f"{h['checkpoints']} checkpoints live)")
    if "next" in summary and "at_10000" in summary["next"]:
        a = summary["next"]["at_10000"]
        print(f"reverse-next over a {NEXT_TARGET_ITERATIONS}-iteration loop: "
              f"{'~' if a['extrapolated'] else ''}{a['total_s']:.0f} s "
              f"({'extrapolated' if a['extrapolated'] else 'measured'}), {a['steps']} reverse-stepi")


TABLES = {"checkpoint": table_checkpoint, "continue": table_continue, "stepi": table_stepi, "next": table_next,
          "hits": table_hits}


def report(path):
    with open(path) as f:
        doc = json.load(f)
    meta = doc.get("meta", {})
    print(f"{path}: {meta.get('date')} git {meta.get('git')} quick={meta.get('quick')}")
    summary = {}
    for name in EXPERIMENTS:
        if name in doc:
            TABLES[name](doc[name]["result"], summary)
    print_summary(summary)
    if "error" in doc:
        print(f"that run FAILED: {doc['error']}")
    return 0


def main():
    args = parse_args()
    if args.report:
        return report(args.report)
    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(), "kernel": platform.release(), "machine": platform.machine(),
        "cpus": os.cpu_count(), "python": platform.python_version(),
        "quick": args.quick,
        "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]),
        "git": git_rev(),
        "thp": read_text("/sys/kernel/mm/transparent_hugepage/enabled"),
        "loadavg_start": os.getloadavg(),
        "units": {"*_ms": "milliseconds, steady_clock around the engine call", "*_s": "seconds"},
    }
    doc = {"meta": meta}
    summary = {}
    tmp = None
    rc = 0
    try:
        bench_src, workload_src = build(args.no_build)
        tmp = tempfile.mkdtemp(prefix="backstep-reverse-")
        bench = os.path.join(tmp, "reverse_bench")
        workload = os.path.join(tmp, "reverse_workload")
        shutil.copy2(bench_src, bench)
        shutil.copy2(workload_src, workload)
        meta["reverse_bench"] = {"path": bench_src, "sha256": sha256(bench)}
        meta["reverse_workload"] = {"path": workload_src, "sha256": sha256(workload)}
        t0 = time.perf_counter()
        for name in args.experiments:
            params = dict(PARAMS[name][1 if args.quick else 0])
            if name == "next" and args.next_iterations:
                params["iterations"] = args.next_iterations
                params["max-seconds"] = 900
            if name == "next" and args.next_range_iterations:
                params["range-iterations"] = args.next_range_iterations
                params["max-seconds"] = 900
            res = run_experiment(name, params, bench, workload, tmp)
            doc[name] = res
            TABLES[name](res["result"], summary)
            sys.stdout.flush()
        print_summary(summary)
        meta["wall_s"] = time.perf_counter() - t0
    except BenchError as e:
        print(f"BENCHMARK FAILED: {e}", file=sys.stderr)
        doc["error"] = str(e)
        rc = 1
    finally:
        meta["loadavg_end"] = os.getloadavg()
        doc["summary"] = summary
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        if tmp and not args.keep_temp:
            shutil.rmtree(tmp, ignore_errors=True)
        elif tmp:
            log(f"kept {tmp}")
    print(f"load average (1/5/15 min) at start {' '.join(f'{x:.2f}' for x in meta['loadavg_start'])}, "
          f"at end {' '.join(f'{x:.2f}' for x in meta['loadavg_end'])} on {os.cpu_count()} CPUs")
    log(f"figures: {args.json}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
