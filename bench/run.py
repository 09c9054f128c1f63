#!/usr/bin/env python3
"""backstep benchmarks: native vs. record vs. replay wall time for a few workloads.

    python3 bench/run.py [--runs 5] [--json out.json] [--only NAME] [--backstep PATH]

Builds the workloads in bench/workloads/ with gcc -O2 into a temporary
directory (and backstep with ./scripts/build when the default binary is
missing), then, for each workload and each of --runs iterations, runs it
natively, recorded (`backstep record -o DIR -- PROG ARGS`) and replayed
(`backstep replay --autopilot DIR`), in that order, so that drifting machine
load affects the three alike. Prints one table per workload plus a summary and
writes every raw figure as JSON (default bench/results/latest.json).

Python standard library only. See bench/README.md for what the columns mean.
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
WORKLOAD_DIR = os.path.join(BENCH_DIR, "workloads")
DEFAULT_BACKSTEP = os.path.join(ROOT, "build", "bin", "backstep")
DEFAULT_JSON = os.path.join(BENCH_DIR, "results", "latest.json")
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
        "name": "make_tree",
        "source": "make_tree.c",
        "param": "files",
        "default": 12,
        "about": "a make -j1 of a tiny C project: fork+exec cc -c per file (a tree of cc, cc1, as), then link",
        # rr's published figure for a make workload: 7.85x native to record.
        "count_events": ["process-start", "exec"],
    },
]
SLOW_RUN_WARNING_S = 60.0


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
    a = p.parse_args()
    if a.runs < 1:
        p.error("--runs must be at least 1")
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


def build_workloads(workloads, bindir):
    cc = os.environ.get("CC", "gcc")
    for w in workloads:
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


def workload_argv(w, tmp):
    v = str(w["value"])
    if w["name"] == "copy_file":
        return [w["exe"], w["input"], os.path.join(tmp, "copy_file.out"), "4096"]
    return [w["exe"], v]


def cleanup_after_run(w, tmp):
    if w["name"] == "copy_file":
        try:
            os.unlink(os.path.join(tmp, "copy_file.out"))
        except FileNotFoundError:
            pass


def timed_run(cmd, tmp, timeout, env):
    """Runs cmd with stdout/stderr to files; returns (seconds, rc, stdout bytes, stderr text, cpu s)."""
    out_path = os.path.join(tmp, "stdout")
    err_path = os.path.join(tmp, "stderr")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.perf_counter()
        try:
            r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                               timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            raise BenchError(f"timed out after {timeout:.0f} s: {' '.join(cmd)}")
        except OSError as e:
            raise BenchError(f"cannot run {' '.join(cmd)}: {e}")
        elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(out_path, "rb") as f:
        stdout = f.read()
    with open(err_path, "rb") as f:
        stderr = f.read().decode(errors="replace")
    return elapsed, r.returncode, stdout, stderr, cpu


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


def count_events(backstep, trace, kinds, env):
    """How many events of each kind `backstep dump` lists in a trace."""
    out = subprocess.run([backstep, "dump", trace], capture_output=True, text=True, env=env, check=True).stdout
    counts = {k: 0 for k in kinds}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[1] == "tid" and fields[3] in counts:
            counts[fields[3]] += 1
    return counts


def run_workload(w, backstep, args, tmp, env):
    res = {"name": w["name"], "about": w["about"], "param": w["param"], "value": w["value"],
           "per_op": w.get("per_op"),
           "native_s": [], "record_s": [], "replay_s": [],
           "native_cpu_s": [], "record_cpu_s": [], "replay_cpu_s": [],
           "trace": [], "exit_status": None}
    argv = workload_argv(w, tmp)
    res["argv"] = [os.path.basename(argv[0])] + argv[1:]
    for _ in range(args.warmup):
        timed_run(argv, tmp, args.timeout, env)
        cleanup_after_run(w, tmp)
    trace_root = os.path.join(tmp, "traces")
    os.makedirs(trace_root, exist_ok=True)
    res["loadavg_1m"] = []
    for i in range(args.runs):
        res["loadavg_1m"].append(os.getloadavg()[0])  # other load on the machine, per iteration
        # native
        t, rc, out, err, cpu = timed_run(argv, tmp, args.timeout, env)
        cleanup_after_run(w, tmp)
        if rc != 0:
            fail("native run", w, argv, rc, rc, err, "failed")
        native_rc, native_out = rc, out
        res["native_s"].append(t)
        res["native_cpu_s"].append(cpu)
        res["exit_status"] = rc
        # record
        trace = os.path.join(trace_root, f"{w['name']}-{i}")
        rec_cmd = [backstep, "record", "-o", trace]
        if args.compress:
            rec_cmd.append(f"--compress={args.compress}")
        rec_cmd += ["--"] + argv
        t, rc, out, err, cpu = timed_run(rec_cmd, tmp, args.timeout, env)
        cleanup_after_run(w, tmp)
        if rc != native_rc:
            fail("record", w, rec_cmd, rc, native_rc, err, "exit status differs from native")
        if out != native_out:
            fail("record", w, rec_cmd, rc, native_rc, err,
                 f"stdout differs from native: {out[:200]!r} vs {native_out[:200]!r}")
        res["record_s"].append(t)
        res["record_cpu_s"].append(cpu)
        res["trace"].append(trace_sizes(trace))
        if w.get("count_events"):
            res.setdefault("event_counts", []).append(count_events(backstep, trace, w["count_events"], env))
        if t > SLOW_RUN_WARNING_S:
            log(f"  warning: one record run of {w['name']} took {t:.1f} s (> {SLOW_RUN_WARNING_S:.0f} s); "
                f"consider --param {w['name']}=SMALLER")
        # replay
        rep_cmd = [backstep, "replay", "--autopilot", trace]
        t, rc, out, err, cpu = timed_run(rep_cmd, tmp, args.timeout, env)
        if rc != native_rc:
            fail("replay", w, rep_cmd, rc, native_rc, err, "exit status differs from native")
        if out != native_out:
            fail("replay", w, rep_cmd, rc, native_rc, err,
                 f"re-emitted stdout differs from native: {out[:200]!r} vs {native_out[:200]!r}")
        res["replay_s"].append(t)
        res["replay_cpu_s"].append(cpu)
        shutil.rmtree(trace)
        log(f"  {w['name']} run {i + 1}/{args.runs}: native {res['native_s'][-1]:.3f} s, "
            f"record {res['record_s'][-1]:.3f} s, replay {res['replay_s'][-1]:.3f} s")
    res["summary"] = summarize(res)
    return res


def summarize(res):
    med = {m: statistics.median(res[f"{m}_s"]) for m in ("native", "record", "replay")}
    own = statistics.median(t["own_bytes"] for t in res["trace"])
    events = statistics.median(t["events_bytes"] for t in res["trace"])
    linked = statistics.median(t["hardlinked_bytes"] for t in res["trace"])
    cpu = {m: statistics.median(res[f"{m}_cpu_s"]) for m in ("native", "record", "replay")}
    per_op = {}
    if res.get("per_op"):
        # What one operation (one rdtsc) costs beyond its native cost, and
        # how many of them record and replay get through per second.
        n = res["value"]
        for m in ("record", "replay"):
            per_op[f"{m}_us_per_{res['per_op']}"] = (med[m] - med["native"]) / n * 1e6
            per_op[f"{m}_{res['per_op']}_per_s"] = n / med[m]
    return {
        **per_op,
        "native_median_s": med["native"],
        "record_median_s": med["record"],
        "replay_median_s": med["replay"],
        "record_ratio": med["record"] / med["native"],
        "replay_ratio": med["replay"] / med["native"],
        "native_min_max_s": [min(res["native_s"]), max(res["native_s"])],
        "record_min_max_s": [min(res["record_s"]), max(res["record_s"])],
        "replay_min_max_s": [min(res["replay_s"]), max(res["replay_s"])],
        "trace_mb": own / MB,
        "events_mb": events / MB,
        "hardlinked_mb": linked / MB,
        "record_throughput_mb_s": (own / MB) / med["record"],
        # user+sys CPU seconds (tracer + tracee for record/replay): less sensitive
        # than wall time to other load on the machine
        "native_cpu_median_s": cpu["native"],
        "record_cpu_ratio": cpu["record"] / cpu["native"] if cpu["native"] > 0 else None,
        "replay_cpu_ratio": cpu["replay"] / cpu["native"] if cpu["native"] > 0 else None,
    }


def print_table(res):
    s = res["summary"]
    print(f"\n== {res['name']} ({res['param']}={res['value']}): {res['about']} ==")
    print(f"{'mode':<8} {'median s':>9} {'x native':>9} {'min..max s':>17} {'cpu s':>7} {'cpu x':>8}")
    native_cpu = statistics.median(res["native_cpu_s"])
    for m in ("native", "record", "replay"):
        lo, hi = s[f"{m}_min_max_s"]
        ratio = s[f"{m}_median_s"] / s["native_median_s"]
        cpu = statistics.median(res[f"{m}_cpu_s"])
        cpu_x = f"{cpu / native_cpu:>7.2f}x" if native_cpu > 0 else f"{'-':>8}"
        print(f"{m:<8} {s[f'{m}_median_s']:>9.3f} {ratio:>8.2f}x {lo:>8.3f}..{hi:<8.3f} {cpu:>7.2f} {cpu_x}")
    print(f"trace {s['trace_mb']:.2f} MB (events {s['events_mb']:.2f} MB; "
          f"+{s['hardlinked_mb']:.2f} MB hard-linked, not counted), "
          f"record throughput {s['record_throughput_mb_s']:.2f} MB/s")
    for counts in res.get("event_counts", [])[-1:]:
        print("events per record: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    op = res.get("per_op")
    if op:
        print(f"per {op}: record {s[f'record_us_per_{op}']:.1f} us ({s[f'record_{op}_per_s']:,.0f}/s), "
              f"replay {s[f'replay_us_per_{op}']:.1f} us ({s[f'replay_{op}_per_s']:,.0f}/s)")


def print_summary(results, runs):
    print(f"\nSummary (median of {runs} runs; ratio = median / median native)")
    hdr = (f"{'workload':<15} {'native s':>9} {'record':>8} {'replay':>8} "
           f"{'record min..max s':>18} {'replay min..max s':>18} {'trace MB':>9} {'events MB':>10} {'rec MB/s':>9}")
    print(hdr)
    print("-" * len(hdr))
    for r in results:
        s = r["summary"]
        rl, rh = s["record_min_max_s"]
        pl, ph = s["replay_min_max_s"]
        print(f"{r['name']:<15} {s['native_median_s']:>9.3f} {s['record_ratio']:>7.2f}x {s['replay_ratio']:>7.2f}x "
              f"{rl:>8.3f}..{rh:<8.3f} {pl:>8.3f}..{ph:<8.3f} {s['trace_mb']:>9.2f} {s['events_mb']:>10.2f} "
              f"{s['record_throughput_mb_s']:>9.2f}")


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
        "runs": args.runs, "warmup": args.warmup, "compress": args.compress or "default",
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
        tmp = tempfile.mkdtemp(prefix="backstep-bench-")
        bindir = os.path.join(tmp, "bin")
        os.makedirs(bindir)
        # Measure one fixed binary even if build/ is rebuilt while we run.
        backstep = os.path.join(bindir, "backstep")
        shutil.copy2(backstep_src, backstep)
        with open(backstep, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        meta["backstep"] = {"path": backstep_src, "sha256": digest,
                            "mtime": datetime.datetime.fromtimestamp(
                                os.stat(backstep_src).st_mtime).isoformat(timespec="seconds")}
        build_workloads(workloads, bindir)
        env = dict(os.environ)
        env["BACKSTEP_DIR"] = os.path.join(tmp, "backstep-home")  # never touch the user's trace dir
        for w in workloads:
            if w["name"] == "copy_file":
                w["input"] = os.path.join(tmp, "copy_file.in")
                log(f"creating {w['value']} MiB input file {w['input']}")
                make_input_file(w["input"], w["value"])
            log(f"{w['name']}: {args.runs} runs ({w['param']}={w['value']})")
            r = run_workload(w, backstep, args, tmp, env)
            results.append(r)
            print_table(r)
            sys.stdout.flush()
            if w["name"] == "copy_file":
                os.unlink(w["input"])
        print_summary(results, args.runs)
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
