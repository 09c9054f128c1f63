#!/usr/bin/env python3
"""gdb's `continue` through a recording of two computing threads, against
`backstep replay --autopilot` of the same trace.

    python3 bench/gdb_continue.py [--runs 3] [--only NAME] [--backstep PATH]
                                  [--size-mib N] [--keep-temp]

For the two-thread workloads of bench/run.py that compute for long stretches
without system calls (par_sort, par_compress: the recorder hands the CPU
between their threads at forced positions), built with gcc -O2 -pthread and
given the input file run.py writes: records each once (`backstep record -o
DIR -- PROG ARGS`), then, --runs times and alternately, replays the trace

  - without a debugger: `backstep replay --autopilot TRACE`;
  - under gdb: `backstep replay TRACE -- -batch -nx ...` with a breakpoint
    that is never hit (`break abort`, pending until libc is loaded) and one
    `continue` to the end of the recording; gdb prints the time before and
    after the `continue` (its Python), so the session's start (gdb, the
    program's symbols read from the trace) is measured apart.

Prints the medians and the ratios to autopilot: the whole gdb session, and
the `continue` alone. Target (issue 31): the `continue` within 2x autopilot.
Both replays use one copy of backstep and its preload library, taken at the
start, so that a rebuild of build/ meanwhile changes nothing measured.

Python standard library only; measures, asserts nothing.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)
import run as bench_run  # noqa: E402  (the workloads, their inputs and arguments)

WORKLOADS = ("par_sort", "par_compress")
PRELOAD = "libbackstep_preload.so"
CLOCK = re.compile(r"^@@ (before|after) continue (\d+\.\d+)$", re.M)
POSITIONS = re.compile(r"^# positions: (\d+) .*$", re.M)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=3, help="replays of each kind per workload (default 3)")
    p.add_argument("--only", action="append", default=[], metavar="NAME",
                   help="only this workload (%s; repeatable)" % ", ".join(WORKLOADS))
    p.add_argument("--backstep", default=bench_run.DEFAULT_BACKSTEP, metavar="PATH",
                   help="backstep binary, its preload library in ../lib (default %(default)s)")
    p.add_argument("--size-mib", type=int, default=None,
                   help="input size (default: bench/run.py's for each workload)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds before one run is declared hung")
    p.add_argument("--keep-temp", action="store_true", help="keep the binaries, inputs and traces")
    a = p.parse_args()
    if a.runs < 1:
        p.error("--runs must be at least 1")
    for name in a.only:
        if name not in WORKLOADS:
            p.error("unknown workload %r (known: %s)" % (name, ", ".join(WORKLOADS)))
    return a


def copy_backstep(path, tmp):
    """backstep and its preload library, copied as they are now."""
    lib = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(path))), "lib", PRELOAD)
    if not os.access(path, os.X_OK) or not os.path.isfile(lib):
        sys.exit("error: %s or %s is missing (./scripts/build)" % (path, lib))
    os.makedirs(os.path.join(tmp, "bin"))
    os.makedirs(os.path.join(tmp, "lib"))
    shutil.copy2(path, os.path.join(tmp, "bin", "backstep"))
    shutil.copy2(lib, os.path.join(tmp, "lib", PRELOAD))
    return os.path.join(tmp, "bin", "backstep")


def run(cmd, cwd, timeout):
    """(seconds, completed process): stdout and stderr in one text."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=timeout)
    elapsed = time.perf_counter() - t0
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0:
        sys.exit("error: exit status %d: %s\n%s" % (proc.returncode, " ".join(cmd), proc.stdout[-3000:]))
    return elapsed, proc


def prepare(w, tmp, backstep, size_mib, timeout):
    """Builds the workload, writes its input, records it; returns the trace."""
    exe = os.path.join(tmp, w["name"])
    src = os.path.join(bench_run.WORKLOAD_DIR, w["source"])
    run(["gcc", "-O2", "-pthread", "-o", exe, src], tmp, timeout)
    w = dict(w, exe=exe, value=size_mib or w["default"])
    w["input"] = os.path.join(tmp, w["name"] + ".in")
    bench_run.make_lines_file(w["input"], w["value"])
    trace = os.path.join(tmp, w["name"] + ".trace")
    seconds, _ = run([backstep, "record", "-o", trace, "--"] + bench_run.workload_argv(w, tmp), tmp, timeout)
    _, stats = run([backstep, "dump", "--stats", trace], tmp, timeout)
    m = POSITIONS.search(stats.stdout)
    log("%s: %d MiB of lines, recorded in %.2f s; %s" %
        (w["name"], w["value"], seconds, m.group(0)[2:] if m else "no positions line"))
    return trace


def gdb_argv(backstep, trace):
    clock = 'python import time; print("@@ %s continue %%.6f" %% time.time())'
    return [backstep, "replay", trace, "--", "-batch", "-nx",
            "-ex", "set pagination off", "-ex", "set confirm off",
            "-ex", "set debuginfod enabled off", "-ex", "set breakpoint pending on",
            "-ex", "break abort",
            "-ex", clock % "before", "-ex", "continue", "-ex", clock % "after",
            "-ex", "info breakpoints"]


def gdb_session(backstep, trace, tmp, timeout):
    """(whole session s, continue s)."""
    seconds, proc = run(gdb_argv(backstep, trace), tmp, timeout)
    clock = dict(CLOCK.findall(proc.stdout))
    # The end of the recording is the end of the history: gdb stops there
    # (in _exit) rather than seeing the program exit.
    at_end = "No more reverse-execution history." in proc.stdout or "exited normally" in proc.stdout
    if not at_end or "already hit" in proc.stdout or len(clock) != 2:
        sys.exit("error: the gdb session did not continue to the end without a stop:\n" + proc.stdout[-3000:])
    return seconds, float(clock["after"]) - float(clock["before"])


def main():
    args = parse_args()
    tmp = tempfile.mkdtemp(prefix="backstep-gdb-continue-")
    rows = []
    try:
        backstep = copy_backstep(args.backstep, tmp)
        for w in bench_run.WORKLOADS:
            if w["name"] not in WORKLOADS or (args.only and w["name"] not in args.only):
                continue
            trace = prepare(w, tmp, backstep, args.size_mib, args.timeout)
            auto, session, cont = [], [], []
            for i in range(args.runs):
                auto.append(run([backstep, "replay", "--autopilot", trace], tmp, args.timeout)[0])
                s, c = gdb_session(backstep, trace, tmp, args.timeout)
                session.append(s)
                cont.append(c)
                log("%s run %d: autopilot %.2f s, gdb session %.2f s (continue %.2f s)" %
                    (w["name"], i + 1, auto[-1], s, c))
            rows.append((w["name"], statistics.median(auto), statistics.median(session),
                         statistics.median(cont)))
    finally:
        if args.keep_temp:
            log("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("medians of %d runs (seconds); ratios to autopilot" % args.runs)
    print("%-14s %10s %12s %10s %15s %16s" %
          ("workload", "autopilot", "gdb session", "continue", "session/auto", "continue/auto"))
    for name, auto, session, cont in rows:
        print("%-14s %10.2f %12.2f %10.2f %14.2fx %15.2fx" %
              (name, auto, session, cont, session / auto, cont / auto))
    print("target: continue/auto <= 2.00x")


if __name__ == "__main__":
    main()
