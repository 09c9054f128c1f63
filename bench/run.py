#!/usr/bin/env python3
"""backstep benchmarks: native vs. record vs. replay wall time for a few workloads.

    python3 bench/run.py [--runs 5] [--json out.json] [--only NAME] [--backstep PATH]
                         [--modes buffered,ptrace]

Builds the workloads in bench/workloads/ with gcc -O2 (a Java one with
javac, run with java; skipped with a message when either is missing) into a
temporary directory (and backstep with ./scripts/build when the default
binary is missing), then, for each workload and each of --runs iterations,
runs it natively, recorded with syscall buffering (`backstep record -o DIR -- PROG
ARGS`), replayed (`backstep replay --autopilot DIR`), recorded with a ptrace
stop at every call (`backstep record --no-syscall-buffer ...`) and replayed
again, in that order, so that drifting machine load affects all five alike.
Prints one table per workload plus a summary and writes every raw figure as
JSON (default bench/results/latest.json).

Python standard library only. See bench/README.md for what the columns mean.
"""

import argparse
import datetime
import hashlib
import json
import os
import re
import platform
import random
import resource
import shutil
import statistics
import subprocess
import threading
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
WORKLOAD_DIR = os.path.join(BENCH_DIR, "workloads")
DEFAULT_BACKSTEP = os.path.join(ROOT, "build", "bin", "backstep")
DEFAULT_JSON = os.path.join(BENCH_DIR, "results", "latest.json")
PRELOAD_NAME = "libbackstep_preload.so"
# How backstep records in each mode: the JSON key suffix of its figures, the
# extra record options, and the label in the tables.
MODES = {
    "buffered": {"suffix": "", "record_args": [], "label": ""},
    "ptrace": {"suffix": "_nobuf", "record_args": ["--no-syscall-buffer"], "label": " (ptrace only)"},
}
# What `backstep record` says when it finds no preload library.
NO_PRELOAD_WARNING = "recording without syscall buffering"
MIB = 1 << 20
MB = 1_000_000  # sizes and throughputs are reported in decimal MB

# Each workload has one scale parameter (override with --param NAME=VALUE).
WORKLOADS = [
    {
        "name": "cpu_hash",
        "source": "cpu_hash.c",
        "param": "iterations",
        "default": 400_000_000,
        "about": "integer hashing loop, no syscalls in the loop",
    },
    {
        "name": "copy_file",
        "source": "copy_file.c",
        "param": "size_mib",
        "default": 200,
        "about": "copy a file with 4 KiB read()/write() pairs",
    },
    {
        "name": "devnull_writes",
        "source": "devnull_writes.c",
        "param": "writes",
        "default": 1_000_000,
        "about": "write(2) 16 bytes to /dev/null, N times",
    },
    {
        "name": "clock_reads",
        "source": "clock_reads.c",
        "param": "count",
        "default": 1_000_000,
        "about": "clock_gettime through libc N times (buffered by the preload library)",
        "per_op": "clock read",
    },
    {
        "name": "mmap_churn",
        "source": "mmap_churn.c",
        "param": "rounds",
        "default": 2000,
        "about": "mmap/touch/mprotect/mremap/munmap anonymous regions",
    },
    {
        "name": "rdtsc_loop",
        "source": "rdtsc_loop.c",
        "param": "count",
        "default": 200_000,
        "about": "rdtsc N times (each one a trap under record, an event in replay)",
        "per_op": "rdtsc",
    },
    {
        "name": "rdtscp_loop",
        "source": "rdtscp_loop.c",
        "param": "count",
        "default": 200_000,
        "about": "rdtscp N times (the counter and its auxiliary value, read by the preload library once patched)",
        "per_op": "rdtscp",
    },
    {
        "name": "threads_hash",
        "source": "threads_hash.c",
        "param": "chunks",
        "default": 1000,
        "about": "4 threads hash, adding each 20,000-hash chunk to a mutex-guarded sum",
        # Reported from `backstep dump` of each trace: how often the recorder
        # switched threads at a forced position (the watchdog) and at a
        # blocking call.
        "count_events": ["position", "syscall-entered"],
    },
    {
        "name": "pipe_threads",
        "source": "pipe_threads.c",
        "param": "messages",
        "default": 200_000,
        "about": "a producer thread writes 64-byte messages into a pipe that a consumer thread reads",
        # Blocking calls the recorder saw (a buffered one that blocks is made
        # again traced, a syscall-entered event).
        "count_events": ["syscall-entered"],
    },
    {
        "name": "par_sort",
        "source": "par_sort.c",
        "param": "size_mib",
        "default": 32,
        "input": "lines",
        "about": "shaped like sort --parallel=2: two threads merge-sort halves of a file's lines",
        # Hand-overs between the two computing threads: positions.
        "count_events": ["position"],
    },
    {
        "name": "par_hashjoin",
        "source": "par_hashjoin.c",
        "param": "size_mib",
        "default": 32,
        "input": "lines",
        "about": "a hash join: a table of half a file's keys, probed by two threads with the other half",
        "count_events": ["position"],
    },
    {
        "name": "par_compress",
        "source": "par_compress.c",
        "param": "size_mib",
        "default": 32,
        "input": "lines",
        "output": True,
        "about": "shaped like xz -T2: two threads LZ77-compress alternate 1 MiB blocks of a file",
        "count_events": ["position"],
    },
    {
        "name": "make_tree",
        "source": "make_tree.c",
        "param": "files",
        "default": 12,
        "about": "a make -j1 of a tiny C project: fork+exec cc -c per file (a tree of cc, cc1, as), then link",
        # rr's published figure for a make workload: 7.85x native to record.
        "count_events": ["process-start", "exec"],
    },
    {
        "name": "jvm_threads",
        "source": "JvmThreads.java",  # compiled with javac, run as java -cp DIR JvmThreads ROUNDS
        "param": "rounds",
        "default": 150,
        "about": "a JVM program: 4 threads each fill, sort and hash their own 2^16 longs, ROUNDS times",
        # The JVM's own threads (JIT compilers, GC, ...) are recorded too:
        # hand-overs at blocking calls and at forced positions.
        "count_events": ["position", "syscall-entered", "thread-start"],
    },
]
SLOW_RUN_WARNING_S = 60.0
# Environment variables the java launcher or the JVM read options from: the
# benchmark runs the JVM with its defaults, not the caller's options.
JAVA_OPTION_VARS = ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS")


class BenchError(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5, help="iterations per workload (default 5)")
    p.add_argument("--json", default=DEFAULT_JSON, help="where to write raw figures (default %(default)s)")
    p.add_argument("--only", action="append", default=[], metavar="NAME",
                   help="run only this workload (repeatable, or comma-separated)")
    p.add_argument("--backstep", default=None, metavar="PATH",
                   help="backstep binary (default build/bin/backstep, built if missing)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="override a workload's scale parameter, e.g. devnull_writes=200000")
    p.add_argument("--compress", choices=["zstd", "zlib"], default=None,
                   help="pass --compress to backstep record (default: backstep's own default)")
    p.add_argument("--warmup", type=int, default=1,
                   help="unmeasured native runs per workload before timing (default 1)")
    p.add_argument("--timeout", type=float, default=900.0,
                   help="seconds before one run is declared hung (default 900)")
    p.add_argument("--keep-temp", action="store_true",
                   help="keep the temporary directory (binaries, input file, last traces)")
    p.add_argument("--modes", default="buffered,ptrace", metavar="MODE[,MODE]",
                   help="recording modes to measure: buffered (syscall buffering, backstep's default), "
                        "ptrace (--no-syscall-buffer); default %(default)s")
    a = p.parse_args()
    if a.runs < 1:
        p.error("--runs must be at least 1")
    modes = [m for m in a.modes.split(",") if m]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        p.error(f"bad --modes '{a.modes}': want a comma-separated subset of {','.join(MODES)}")
    a.modes = [m for m in MODES if m in modes]  # always measured in the same order
    return a


def select_workloads(only, params):
    names = [w["name"] for w in WORKLOADS]
    wanted = [n for item in only for n in item.split(",") if n]
    for n in wanted:
        if n not in names:
            raise BenchError(f"unknown workload '{n}' (known: {', '.join(names)})")
    overrides = {}
    for item in params:
        name, sep, value = item.partition("=")
        if not sep or name not in names or not value.isdigit() or int(value) < 1:
            raise BenchError(f"bad --param '{item}': want NAME=POSITIVE_INT with NAME in {', '.join(names)}")
        overrides[name] = int(value)
    chosen = []
    for w in WORKLOADS:
        if wanted and w["name"] not in wanted:
            continue
        w = dict(w)
        w["value"] = overrides.get(w["name"], w["default"])
        chosen.append(w)
    return chosen


def ensure_backstep(path):
    if path is not None:
        path = os.path.abspath(path)
        if not os.access(path, os.X_OK):
            raise BenchError(f"backstep binary {path} does not exist or is not executable")
        return path
    if not os.access(DEFAULT_BACKSTEP, os.X_OK):
        log(f"{DEFAULT_BACKSTEP} missing: building with ./scripts/build")
        r = subprocess.run([os.path.join(ROOT, "scripts", "build")], cwd=ROOT)
        if r.returncode != 0 or not os.access(DEFAULT_BACKSTEP, os.X_OK):
            raise BenchError(f"./scripts/build failed (exit {r.returncode})")
    return DEFAULT_BACKSTEP


def find_preload(backstep_src, modes):
    """The preload library backstep would load: ../lib next to the binary.

    None when it is missing and only ptrace mode was asked for; an error when
    buffered mode needs it (backstep would silently record without it)."""
    lib = os.path.join(os.path.dirname(os.path.dirname(backstep_src)), "lib", PRELOAD_NAME)
    if os.path.isfile(lib):
        return lib
    if "buffered" in modes:
        raise BenchError(f"{lib} is missing, so `backstep record` cannot buffer system calls: "
                         f"build it (./scripts/build) or measure without buffering (--modes ptrace)")
    return None


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def is_java(w):
    return w["source"].endswith(".java")


def find_java():
    """Absolute paths of java and javac on PATH, or None when either is missing."""
    java, javac = shutil.which("java"), shutil.which("javac")
    if not java or not javac:
        return None
    return {"java": os.path.abspath(java), "javac": os.path.abspath(javac)}


def java_version(java):
    """The first line of `java -version` (it writes to stderr), for the JSON."""
    r = subprocess.run([java, "-version"], capture_output=True, text=True)
    lines = (r.stderr or r.stdout).strip().splitlines()
    return lines[0] if lines else None


def build_java_workload(w, bindir, jdk):
    """javac into BINDIR/NAME.classes; the workload runs as java -cp THAT CLASS."""
    src = os.path.join(WORKLOAD_DIR, w["source"])
    classes = os.path.join(bindir, w["name"] + ".classes")
    cmd = [jdk["javac"], "-d", classes, src]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise BenchError(f"compiling {src} failed:\n{' '.join(cmd)}\n{r.stderr}")
    w["exe"] = jdk["java"]
    w["java_argv"] = [jdk["java"], "-cp", classes, os.path.splitext(w["source"])[0]]


def build_workloads(workloads, bindir, jdk):
    cc = os.environ.get("CC", "gcc")
    for w in workloads:
        if is_java(w):
            build_java_workload(w, bindir, jdk)
            continue
        src = os.path.join(WORKLOAD_DIR, w["source"])
        exe = os.path.join(bindir, w["name"])
        cmd = [cc, "-O2", "-Wall", "-Wextra", "-o", exe, src]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise BenchError(f"compiling {src} failed:\n{' '.join(cmd)}\n{r.stderr}")
        w["exe"] = exe


def make_input_file(path, size_mib):
    """Deterministic, incompressible content: a seeded Mersenne Twister stream."""
    rng = random.Random(0x6261636B)  # fixed seed: same bytes on every machine and run
    with open(path, "wb") as f:
        for _ in range(size_mib):
            f.write(rng.randbytes(MIB))
    os.sync()  # don't let the input's writeback land inside the first timed runs


def make_lines_file(path, size_mib):
    """Deterministic text lines (hex key, number, short word) up to size_mib MiB."""
    rng = random.Random(0x6C696E65)
    words = "abcdefgh"
    written = 0
    with open(path, "w") as f:
        while written < size_mib * MIB:
            chunk = "".join(f"{rng.getrandbits(40):x}-{rng.randint(0, 99999)}-{words[:rng.randint(1, 8)]}\n"
                            for _ in range(10000))
            f.write(chunk)
            written += len(chunk)
    os.sync()


def workload_argv(w, tmp):
    v = str(w["value"])
    if is_java(w):
        return w["java_argv"] + [v]
    if w["name"] == "copy_file":
        return [w["exe"], w["input"], os.path.join(tmp, "copy_file.out"), "4096"]
    if w.get("input"):
        out = [os.path.join(tmp, w["name"] + ".out")] if w.get("output") else []
        return [w["exe"], w["input"]] + out
    return [w["exe"], v]


def cleanup_after_run(w, tmp):
    if w["name"] == "copy_file" or w.get("output"):
        try:
            os.unlink(os.path.join(tmp, w["name"] + ".out"))
        except FileNotFoundError:
            pass


def timed_run(cmd, tmp, timeout, env):
    """Runs cmd with stdout/stderr to files; returns (seconds, rc, stdout bytes, stderr text, cpu s)."""
    out_path = os.path.join(tmp, "stdout")
    err_path = os.path.join(tmp, "stderr")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        # A blocking wait, with the time limit enforced by a timer that kills
        # the run: subprocess.run(timeout=) polls the child with sleeps of up
        # to 50 ms, which rounded every measured time up to the next poll
        # (times here came in steps of ~50 ms, ratios moved with them).
        t0 = time.perf_counter()
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env)
        except OSError as e:
            raise BenchError(f"cannot run {' '.join(cmd)}: {e}")
        expired = threading.Event()

        def kill():
            expired.set()
            proc.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            returncode = proc.wait()
        finally:
            timer.cancel()
        elapsed = time.perf_counter() - t0
        if expired.is_set():
            raise BenchError(f"timed out after {timeout:.0f} s: {' '.join(cmd)}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(out_path, "rb") as f:
        stdout = f.read()
    with open(err_path, "rb") as f:
        stderr = f.read().decode(errors="replace")
    return elapsed, returncode, stdout, stderr, cpu


def trace_sizes(trace_dir):
    """Apparent sizes (bytes) in a trace: own files, hard-linked files, events, disk usage."""
    own = linked = blocks = 0
    events = 0
    for dirpath, _, files in os.walk(trace_dir):
        for name in files:
            st = os.lstat(os.path.join(dirpath, name))
            blocks += st.st_blocks * 512
            if st.st_nlink > 1:
                linked += st.st_size  # shares its blocks with the original file
            else:
                own += st.st_size
            if dirpath == trace_dir and name == "events":
                events = st.st_size
    return {"own_bytes": own, "hardlinked_bytes": linked, "events_bytes": events,
            "disk_bytes_incl_links": blocks}


def fail(mode, w, cmd, rc, native_rc, stderr, what):
    tail = "\n".join(stderr.strip().splitlines()[-15:])
    raise BenchError(
        f"{w['name']}: {mode} {what}\n  command: {' '.join(cmd)}\n"
        f"  exit status {rc} (native: {native_rc})\n  stderr (tail):\n"
        + "\n".join("    " + l for l in tail.splitlines()))


def dump_counts(backstep, trace, kinds, env):
    """From `backstep dump` of a trace: how many events of each of `kinds`,
    how many system calls were traced (`syscall` events) and how many were
    buffered (the `buffer-flush N calls` events' N)."""
    r = subprocess.run([backstep, "dump", trace], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise BenchError(f"backstep dump {trace} failed (exit {r.returncode}): {r.stderr.strip()[-500:]}")
    counts = {k: 0 for k in kinds}
    traced = buffered = 0
    for line in r.stdout.splitlines():
        fields = line.split()
        if len(fields) < 4 or fields[1] != "tid":
            continue
        kind = fields[3]
        if kind in counts:
            counts[kind] += 1
        if kind == "syscall":
            traced += 1
        elif kind == "buffer-flush":
            if len(fields) < 6 or not fields[4].isdigit() or fields[5] not in ("call", "calls"):
                raise BenchError(f"backstep dump {trace}: unexpected buffer-flush line: {line}")
            buffered += int(fields[4])
    return counts, {"traced": traced, "buffered": buffered}


POSITIONS_LINE = re.compile(r"^# positions: (\d+) \(counted (\d+), by digest (\d+): (\d+) fixpoints, "
                            r"(\d+) with a stored state\), stored state (\d+) bytes \((\d+) full, (\d+) incremental\)$",
                            re.M)


def position_stats(backstep, trace, env):
    """From `backstep dump --stats` of a trace: its forced positions by how
    replay finds them, and the states stored with them (issue 31)."""
    r = subprocess.run([backstep, "dump", "--stats", trace], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise BenchError(f"backstep dump --stats {trace} failed (exit {r.returncode}): {r.stderr.strip()[-500:]}")
    m = POSITIONS_LINE.search(r.stdout)
    if not m:
        return None
    keys = ("positions", "counted", "by_digest", "fixpoints", "with_state", "stored_bytes", "full", "incremental")
    return dict(zip(keys, (int(g) for g in m.groups())))


def record_and_replay(mode, w, i, backstep, args, tmp, env, res, native):
    """One record (in `mode`) and one replay of its trace; appends to res."""
    sfx = MODES[mode]["suffix"]
    label = "record" + MODES[mode]["label"]
    native_rc, native_out = native
    trace = os.path.join(tmp, "traces", f"{w['name']}-{i}{sfx}")
    rec_cmd = [backstep, "record", "-o", trace] + MODES[mode]["record_args"]
    if args.compress:
        rec_cmd.append(f"--compress={args.compress}")
    rec_cmd += ["--"] + workload_argv(w, tmp)
    t, rc, out, err, cpu = timed_run(rec_cmd, tmp, args.timeout, env)
    cleanup_after_run(w, tmp)
    if rc != native_rc:
        fail(label, w, rec_cmd, rc, native_rc, err, "exit status differs from native")
    if out != native_out:
        fail(label, w, rec_cmd, rc, native_rc, err,
             f"stdout differs from native: {out[:200]!r} vs {native_out[:200]!r}")
    if mode == "buffered" and NO_PRELOAD_WARNING in err:
        fail(label, w, rec_cmd, rc, native_rc, err, "did not find the preload library")
    res[f"record{sfx}_s"].append(t)
    res[f"record{sfx}_cpu_s"].append(cpu)
    res[f"trace{sfx}"].append(trace_sizes(trace))
    kinds = w.get("count_events", [])
    if mode == "buffered" or kinds:
        counts, calls = dump_counts(backstep, trace, kinds, env)
        if kinds:
            res.setdefault(f"event_counts{sfx}", []).append(counts)
        if "position" in kinds:
            stats = position_stats(backstep, trace, env)
            if stats:
                res.setdefault(f"position_stats{sfx}", []).append(stats)
        if mode == "buffered":
            res["syscalls"].append(calls)
    if t > SLOW_RUN_WARNING_S:
        log(f"  warning: one {label} run of {w['name']} took {t:.1f} s (> {SLOW_RUN_WARNING_S:.0f} s); "
            f"consider --param {w['name']}=SMALLER")
    label = "replay" + MODES[mode]["label"]
    rep_cmd = [backstep, "replay", "--autopilot", trace]
    t, rc, out, err, cpu = timed_run(rep_cmd, tmp, args.timeout, env)
    if rc != native_rc:
        fail(label, w, rep_cmd, rc, native_rc, err, "exit status differs from native")
    if out != native_out:
        fail(label, w, rep_cmd, rc, native_rc, err,
             f"re-emitted stdout differs from native: {out[:200]!r} vs {native_out[:200]!r}")
    res[f"replay{sfx}_s"].append(t)
    res[f"replay{sfx}_cpu_s"].append(cpu)
    shutil.rmtree(trace)


def run_workload(w, backstep, args, tmp, env):
    res = {"name": w["name"], "about": w["about"], "param": w["param"], "value": w["value"],
           "per_op": w.get("per_op"), "modes": args.modes,
           "native_s": [], "native_cpu_s": [], "exit_status": None}
    for mode in args.modes:
        sfx = MODES[mode]["suffix"]
        for key in ("record", "replay"):
            res[f"{key}{sfx}_s"] = []
            res[f"{key}{sfx}_cpu_s"] = []
        res[f"trace{sfx}"] = []
    if "buffered" in args.modes:
        res["syscalls"] = []  # per buffered record: {"traced": N, "buffered": M}
    argv = workload_argv(w, tmp)
    res["argv"] = [os.path.basename(argv[0])] + argv[1:]
    for _ in range(args.warmup):
        timed_run(argv, tmp, args.timeout, env)
        cleanup_after_run(w, tmp)
    os.makedirs(os.path.join(tmp, "traces"), exist_ok=True)
    res["loadavg_1m"] = []
    for i in range(args.runs):
        res["loadavg_1m"].append(os.getloadavg()[0])  # other load on the machine, per iteration
        t, rc, out, err, cpu = timed_run(argv, tmp, args.timeout, env)
        cleanup_after_run(w, tmp)
        if rc != 0:
            fail("native run", w, argv, rc, rc, err, "failed")
        res["native_s"].append(t)
        res["native_cpu_s"].append(cpu)
        res["exit_status"] = rc
        for mode in args.modes:
            record_and_replay(mode, w, i, backstep, args, tmp, env, res, (rc, out))
        log(f"  {w['name']} run {i + 1}/{args.runs}: "
            + ", ".join(f"{label} {res[f'{k}_s'][-1]:.3f} s" for k, label in timed_modes(res)))
    res["summary"] = summarize(res)
    return res


def timed_modes(res):
    """(JSON key prefix, table label) of every timed mode in res, native first."""
    out = [("native", "native")]
    for mode in res["modes"]:
        sfx, label = MODES[mode]["suffix"], MODES[mode]["label"]
        out += [(f"record{sfx}", f"record{label}"), (f"replay{sfx}", f"replay{label}")]
    return out


def summarize(res):
    keys = [k for k, _ in timed_modes(res)]
    med = {k: statistics.median(res[f"{k}_s"]) for k in keys}
    cpu = {k: statistics.median(res[f"{k}_cpu_s"]) for k in keys}
    s = {"native_median_s": med["native"], "native_cpu_median_s": cpu["native"]}
    for k in keys:
        s[f"{k}_median_s"] = med[k]
        s[f"{k}_min_max_s"] = [min(res[f"{k}_s"]), max(res[f"{k}_s"])]
        if k == "native":
            continue
        s[f"{k}_ratio"] = med[k] / med["native"]
        # user+sys CPU seconds (tracer + tracee for record/replay): less sensitive
        # than wall time to other load on the machine
        s[f"{k}_cpu_ratio"] = cpu[k] / cpu["native"] if cpu["native"] > 0 else None
        if res.get("per_op"):
            # What one operation (one rdtsc) costs beyond its native cost, and
            # how many of them record and replay get through per second.
            n, op = res["value"], res["per_op"]
            s[f"{k}_us_per_{op}"] = (med[k] - med["native"]) / n * 1e6
            s[f"{k}_{op}_per_s"] = n / med[k]
    for mode in res["modes"]:
        sfx = MODES[mode]["suffix"]
        traces = res[f"trace{sfx}"]
        own = statistics.median(t["own_bytes"] for t in traces)
        s[f"trace{sfx}_mb"] = own / MB
        s[f"events{sfx}_mb"] = statistics.median(t["events_bytes"] for t in traces) / MB
        s[f"hardlinked{sfx}_mb"] = statistics.median(t["hardlinked_bytes"] for t in traces) / MB
        s[f"record{sfx}_throughput_mb_s"] = (own / MB) / med[f"record{sfx}"]
    if res.get("syscalls"):
        # The share of the program's system calls that the preload library
        # performed itself (median over the buffered records).
        traced = statistics.median(c["traced"] for c in res["syscalls"])
        buffered = statistics.median(c["buffered"] for c in res["syscalls"])
        s["syscalls_traced"] = traced
        s["syscalls_buffered"] = buffered
        s["buffered_share"] = buffered / (traced + buffered) if traced + buffered else None
    return s


def print_table(res):
    s = res["summary"]
    print(f"\n== {res['name']} ({res['param']}={res['value']}): {res['about']} ==")
    print(f"{'mode':<22} {'median s':>9} {'x native':>9} {'min..max s':>17} {'cpu s':>7} {'cpu x':>8}")
    native_cpu = s["native_cpu_median_s"]
    for k, label in timed_modes(res):
        lo, hi = s[f"{k}_min_max_s"]
        ratio = s[f"{k}_median_s"] / s["native_median_s"]
        cpu = statistics.median(res[f"{k}_cpu_s"])
        cpu_x = f"{cpu / native_cpu:>7.2f}x" if native_cpu > 0 else f"{'-':>8}"
        print(f"{label:<22} {s[f'{k}_median_s']:>9.3f} {ratio:>8.2f}x {lo:>8.3f}..{hi:<8.3f} {cpu:>7.2f} {cpu_x}")
    for mode in res["modes"]:
        sfx, label = MODES[mode]["suffix"], MODES[mode]["label"] or " (buffered)"
        print(f"trace{label}: {s[f'trace{sfx}_mb']:.2f} MB (events {s[f'events{sfx}_mb']:.2f} MB; "
              f"+{s[f'hardlinked{sfx}_mb']:.2f} MB hard-linked, not counted), "
              f"record throughput {s[f'record{sfx}_throughput_mb_s']:.2f} MB/s")
    if "syscalls_traced" in s:
        share = s["buffered_share"]
        print(f"syscalls: {s['syscalls_traced']:,.0f} traced, {s['syscalls_buffered']:,.0f} buffered "
              f"({'-' if share is None else f'{share * 100:.1f}%'} buffered)")
    for mode in res["modes"]:
        sfx, label = MODES[mode]["suffix"], MODES[mode]["label"]
        for counts in res.get(f"event_counts{sfx}", [])[-1:]:
            print(f"events per record{label}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        for p in res.get(f"position_stats{sfx}", [])[-1:]:
            print(f"positions per record{label}: {p['counted']} counted, {p['by_digest']} by digest "
                  f"({p['fixpoints']} fixpoints, {p['with_state']} with a stored state: {p['full']} full, "
                  f"{p['incremental']} incremental, {p['stored_bytes'] / 1e6:.1f} MB)")
    op = res.get("per_op")
    if op:
        print(f"per {op}: " + ", ".join(
            f"{label} {s[f'{k}_us_per_{op}']:.1f} us ({s[f'{k}_{op}_per_s']:,.0f}/s)"
            for k, label in timed_modes(res)[1:]))


def print_summary(results, runs, modes):
    print(f"\nSummary (median of {runs} runs; ratio = median / median native)")
    cols = []  # (header, summary key, width)
    if "buffered" in modes:
        cols += [("record", "record_ratio", 8), ("replay", "replay_ratio", 8)]
    if "ptrace" in modes:
        cols += [("rec-ptrace", "record_nobuf_ratio", 11), ("rep-ptrace", "replay_nobuf_ratio", 11)]
    sfx = MODES[modes[0]]["suffix"]  # trace figures of the first mode measured
    hdr = (f"{'workload':<15} {'native s':>9} " + " ".join(f"{h:>{wd}}" for h, _, wd in cols)
           + (f" {'buffered':>9}" if "buffered" in modes else "")
           + f" {'trace MB':>9} {'events MB':>10} {'rec MB/s':>9}")
    print(hdr)
    print("-" * len(hdr))
    for r in results:
        if r.get("skipped"):
            print(f"{r['name']:<15} skipped: {r['skipped']}")
            continue
        s = r["summary"]
        line = f"{r['name']:<15} {s['native_median_s']:>9.3f} "
        line += " ".join(f"{s[key]:>{wd - 1}.2f}x" for _, key, wd in cols)
        if "buffered" in modes:
            share = s.get("buffered_share")
            line += f" {'-' if share is None else f'{share * 100:.1f}%':>9}"
        line += (f" {s[f'trace{sfx}_mb']:>9.2f} {s[f'events{sfx}_mb']:>10.2f}"
                 f" {s[f'record{sfx}_throughput_mb_s']:>9.2f}")
        print(line)
    if modes[0] == "buffered" and len(modes) > 1:
        print("(trace MB, events MB and rec MB/s: the buffered recording's; the per-workload tables have both)")


def git_rev():
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                             text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip() != ""
        return rev + ("-dirty" if dirty else "") if rev else None
    except OSError:
        return None


def write_json(path, meta, results, error=None):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    doc = {"meta": meta, "workloads": results}
    if error:
        doc["error"] = error
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def main():
    args = parse_args()
    results = []
    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(), "kernel": platform.release(), "machine": platform.machine(),
        "cpus": os.cpu_count(), "python": platform.python_version(),
        "runs": args.runs, "warmup": args.warmup, "modes": args.modes, "compress": args.compress or "default",
        "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]),
        "git": git_rev(),
        "loadavg_start": os.getloadavg(),
        "units": {"times": "seconds (time.perf_counter around subprocess.run)",
                  "sizes": "decimal MB (10^6 bytes), apparent file sizes",
                  "cpu_s": "user+sys of the child (RUSAGE_CHILDREN delta)"},
    }
    tmp = None
    try:
        workloads = select_workloads(args.only, args.param)
        backstep_src = ensure_backstep(args.backstep)
        meta["params"] = {w["name"]: {w["param"]: w["value"]} for w in workloads}
        # A Java workload needs java and javac; without them it is skipped
        # (said on stderr, marked in the JSON), and the others still run.
        jdk = find_java() if any(is_java(w) for w in workloads) else None
        if jdk:
            meta["java"] = dict(jdk, version=java_version(jdk["java"]))
        for w in workloads:
            if is_java(w) and not jdk:
                w["skipped"] = "no java/javac on PATH"
                log(f"{w['name']}: skipped, {w['skipped']}")
        tmp = tempfile.mkdtemp(prefix="backstep-bench-")
        bindir = os.path.join(tmp, "bin")
        os.makedirs(bindir)
        # Measure one fixed binary and preload library even if build/ is
        # rebuilt while we run. backstep looks for the library in ../lib
        # next to itself, so it goes to TMP/lib.
        preload_src = find_preload(backstep_src, args.modes)
        backstep = os.path.join(bindir, "backstep")
        shutil.copy2(backstep_src, backstep)
        meta["backstep"] = {"path": backstep_src, "sha256": sha256_of(backstep),
                            "mtime": datetime.datetime.fromtimestamp(
                                os.stat(backstep_src).st_mtime).isoformat(timespec="seconds")}
        if preload_src:
            libdir = os.path.join(tmp, "lib")
            os.makedirs(libdir)
            preload = os.path.join(libdir, PRELOAD_NAME)
            shutil.copy2(preload_src, preload)
            meta["preload"] = {"path": preload_src, "sha256": sha256_of(preload)}
        build_workloads([w for w in workloads if not w.get("skipped")], bindir, jdk)
        env = dict(os.environ)
        env["BACKSTEP_DIR"] = os.path.join(tmp, "backstep-home")  # never touch the user's trace dir
        # The modes say how backstep records, not the caller's environment:
        # these would turn buffering off, or load another library.
        for var in ("BACKSTEP_SYSCALL_BUFFER", "BACKSTEP_PRELOAD"):
            if env.pop(var, None) is not None:
                log(f"ignoring ${var} (see --modes)")
        if jdk:
            for var in JAVA_OPTION_VARS:
                if env.pop(var, None) is not None:
                    log(f"ignoring ${var} (the JVM runs with its defaults)")
        for w in workloads:
            if w.get("skipped"):
                results.append({"name": w["name"], "about": w["about"], "skipped": w["skipped"]})
                continue
            if w["name"] == "copy_file":
                w["input"] = os.path.join(tmp, "copy_file.in")
                log(f"creating {w['value']} MiB input file {w['input']}")
                make_input_file(w["input"], w["value"])
            elif w.get("input") == "lines":
                w["input"] = os.path.join(tmp, w["name"] + ".in")
                log(f"creating {w['value']} MiB of text lines in {w['input']}")
                make_lines_file(w["input"], w["value"])
            log(f"{w['name']}: {args.runs} runs ({w['param']}={w['value']})")
            r = run_workload(w, backstep, args, tmp, env)
            results.append(r)
            print_table(r)
            sys.stdout.flush()
            if w.get("input"):
                os.unlink(w["input"])
        print_summary(results, args.runs, args.modes)
        meta["loadavg_end"] = os.getloadavg()
        print(f"load average (1/5/15 min) at start {' '.join(f'{x:.2f}' for x in meta['loadavg_start'])}, "
              f"at end {' '.join(f'{x:.2f}' for x in meta['loadavg_end'])} on {os.cpu_count()} CPUs")
        write_json(args.json, meta, results)
        log(f"raw figures: {args.json}")
        return 0
    except BenchError as e:
        log(f"\nBENCHMARK FAILED: {e}")
        if results or tmp:
            write_json(args.json, meta, results, error=str(e))
            log(f"partial figures: {args.json}")
        return 1
    finally:
        if tmp and not args.keep_temp:
            shutil.rmtree(tmp, ignore_errors=True)
        elif tmp:
            log(f"kept {tmp}")


if __name__ == "__main__":
    sys.exit(main())
