#!/usr/bin/env python3
"""Records a program whose positions store states and checks what they cost.

  run_stored_states.py --backstep PATH --binary PATH [--tmp-root DIR]

The program (scenarios/thread_stored_states.c) has two threads that compute
where no counting stub fits, beside memory that never changes. Recorded with
counted hand-overs off (BACKSTEP_COUNTED_HANDOVERS=0), each hand-over is a
position by digest with a stored state, which holds only the pages that
changed since the process's previous stored state (docs/trace-format.md,
field 15). Checked:

  - `backstep dump --stats`: positions with a stored state, some full, most
    incremental, and stored bytes that are a small part of what storing each
    state whole would cost (the positions times the largest full state,
    which `backstep dump` shows per position);
  - with the binary deleted, `backstep replay --autopilot` (which takes every
    stored state, rebuilt from the chain, and checks it against its digest)
    prints what the recording printed, exits as it did, takes as many states
    as there are, and never says it could not rebuild one.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

POSITIONS = re.compile(r"^# positions: (\d+) \(counted (\d+), by digest (\d+): (\d+) fixpoints, "
                       r"(\d+) with a stored state\), stored state (\d+) bytes \((\d+) full, (\d+) incremental\)$",
                       re.M)
STATE = re.compile(r"\[stored state: (full|incremental)(?: on event (\d+))?, (\d+) bytes of memory")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backstep", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--tmp-root", default=None)
    ap.add_argument("--timeout", type=int, default=300)
    opts = ap.parse_args()
    if opts.tmp_root:
        os.makedirs(opts.tmp_root, exist_ok=True)
    work = tempfile.mkdtemp(prefix="stored-states-", dir=opts.tmp_root)
    trace = os.path.join(work, "trace")
    env = dict(os.environ, BACKSTEP_DIR=os.path.join(work, "backstep-dir"), BACKSTEP_COUNTED_HANDOVERS="0")
    env.pop("BACKSTEP_LOG", None)
    backstep = os.path.abspath(opts.backstep)
    binary = os.path.join(work, os.path.basename(opts.binary))
    shutil.copy2(opts.binary, binary)
    failures = []

    def run(argv, **kw):
        return subprocess.run(argv, cwd=work, env=kw.pop("env", env), stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=opts.timeout, **kw)

    rec = run([backstep, "record", "-o", trace, "--", binary])
    print("record: exit %d, stdout %r" % (rec.returncode, rec.stdout.decode(errors="replace")), flush=True)
    if rec.returncode != 0:
        failures.append("record exited %d: %s" % (rec.returncode, rec.stderr.decode(errors="replace")))
    stats = run([backstep, "dump", "--stats", trace]) if not failures else None
    m = POSITIONS.search(stats.stdout.decode(errors="replace")) if stats else None
    if stats and not m:
        failures.append("no positions line in `dump --stats`:\n%s" % stats.stdout.decode(errors="replace"))
    if m:
        print(m.group(0)[2:], flush=True)
        with_state, stored_bytes, full, incremental = (int(m.group(i)) for i in (5, 6, 7, 8))
        dump = run([backstep, "dump", trace]).stdout.decode(errors="replace")
        states = STATE.findall(dump)
        full_sizes = [int(size) for kind, _, size in states if kind == "full"]
        if len(states) != with_state:
            failures.append("`dump` shows %d stored states, `dump --stats` %d" % (len(states), with_state))
        if with_state < 8 or full < 1 or incremental < with_state // 2:
            failures.append("expected at least 8 stored states, most of them incremental: %d full, %d incremental"
                            % (full, incremental))
        if full_sizes:
            whole = with_state * max(full_sizes)
            print("stored: %d bytes; each state whole: about %d bytes (%.1f%%)"
                  % (stored_bytes, whole, 100.0 * stored_bytes / whole), flush=True)
            if stored_bytes * 2 > whole:
                failures.append("stored states take %d bytes, more than half of %d (each of them whole)"
                                % (stored_bytes, whole))
        if not failures:
            os.unlink(binary)
            renv = dict(env, BACKSTEP_LOG="replay")
            rep = subprocess.run([backstep, "replay", "--autopilot", trace], cwd="/", env=renv,
                                 stdin=subprocess.DEVNULL, capture_output=True, timeout=opts.timeout)
            log = rep.stderr.decode(errors="replace")
            taken = log.count("taking the recorded state of the position")
            print("replay: exit %d, %d stored states taken" % (rep.returncode, taken), flush=True)
            if rep.returncode != rec.returncode or rep.stdout != rec.stdout:
                failures.append("replay exited %d (recording %d), stdout %r (recording %r)"
                                % (rep.returncode, rec.returncode, rep.stdout, rec.stdout))
            if "diverged" in log or "cannot be rebuilt" in log:
                failures.append("replay: %s" % "\n".join(l for l in log.splitlines()
                                                         if "diverged" in l or "cannot be rebuilt" in l))
            if taken != with_state:
                failures.append("replay took %d stored states, the trace has %d" % (taken, with_state))
    if failures:
        for f in failures:
            print("FAIL: %s" % f)
        print("work directory kept: %s" % work)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
