#!/usr/bin/env python3
"""A resume that takes long tells the client it is still at work: with
BACKSTEP_PROGRESS_MS=0 (a note at every look for an interrupt, instead of
every 5 s), gdb prints the server's
"backstep: still searching backwards|replaying forwards (N s, at event E of T, R events/s; ^C
stops)" console lines during a
reverse-continue, and the reverse-continue still lands on the breakpoint.

  run_gdb_progress.py --backstep PATH --binary PATH --tmp-root DIR"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--backstep", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--tmp-root", required=True)
    opts = p.parse_args()
    opts.backstep = os.path.abspath(opts.backstep)
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="progress-", dir=opts.tmp_root)
    env = gdbtest.base_env(root)
    program = os.path.join(root, "mi_target")
    shutil.copy(opts.binary, program)
    trace = os.path.join(root, "trace")
    r = subprocess.run([opts.backstep, "record", "-o", trace, program], env=env, cwd=root,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if r.returncode != 0:
        print("FAIL: record: %s" % r.stderr.decode(errors="replace"))
        return 1
    os.unlink(program)
    failures = []
    gdb_args = ["-batch", "-ex", "break scale", "-ex", "continue", "-ex", "continue", "-ex", "reverse-continue",
                "-ex", "print v"]
    # 0: a note at every look for an interrupt, so at least one per resume
    # however fast the machine is.
    for interval, want_notes in (("0", True), (None, False)):
        run_env = dict(env)
        if interval:
            run_env["BACKSTEP_PROGRESS_MS"] = interval
        r = subprocess.run([opts.backstep, "replay", trace, "--"] + gdb_args, env=run_env, cwd=root,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=180)
        out = r.stdout.decode(errors="replace")
        # A backward search looks for an interrupt once per event it
        # replays; when a checkpoint sits right before the hit (seen in
        # ptrace-only recordings) it may not look at all, so the notes of
        # the session's forward resumes count too.
        notes = len(re.findall(r"backstep: still (?:searching backwards|replaying forwards) \(\d+ s, at event \d+ of "
                               r"(\d+), \d+ events/s; \^C stops\)", out))
        label = "BACKSTEP_PROGRESS_MS=%s" % interval if interval else "default interval"
        if want_notes and notes == 0:
            failures.append("%s: no progress note:\n%s" % (label, out))
        if not want_notes and notes != 0:
            failures.append("%s: %d progress notes for a short search:\n%s" % (label, notes, out))
        if "Breakpoint 1, scale (v=1)" not in out or "$1 = 1" not in out:
            failures.append("%s: reverse-continue did not land on scale(1):\n%s" % (label, out))
    for f in failures:
        print("FAIL: " + f)
    if failures:
        print("work directory kept: %s" % root)
        return 1
    shutil.rmtree(root, ignore_errors=True)
    print("PASS: progress notes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
