#!/usr/bin/env python3
"""A 32-bit system call (int 0x80) backstep does not record is refused.

  run_int80_refused.py --backstep PATH --helper PATH --nr N [--tmp-root DIR]

The helper makes 32-bit call N on the path "int80-made" (39 mkdir, 5 open,
10 unlink: each the number of another call in the 64-bit table). Natively
the call makes or removes the path; under `backstep record` it must be
refused at its entry with a message naming the 32-bit call, before it runs
(so "int80-made" is never made), and replay must run up to it and say why
the recording stopped, never diverge. On a kernel without IA32 emulation
(int 0x80 faults natively) it reports SKIPPED (77).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import refusals


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backstep", required=True)
    ap.add_argument("--helper", required=True)
    ap.add_argument("--nr", required=True)
    ap.add_argument("--tmp-root", default=None)
    opts = ap.parse_args()
    helper = os.path.abspath(opts.helper)
    backstep = os.path.abspath(opts.backstep)
    if opts.tmp_root:
        os.makedirs(opts.tmp_root, exist_ok=True)
    work = tempfile.mkdtemp(prefix="int80-refused-", dir=opts.tmp_root)
    failures = []
    native_dir = os.path.join(work, "native")
    os.mkdir(native_dir)
    native = subprocess.run([helper, opts.nr], cwd=native_dir, capture_output=True, timeout=60)
    if native.returncode == -11 and native.stdout == b"before\n":
        # int 0x80 itself faults: a kernel without IA32 emulation.
        shutil.rmtree(work, ignore_errors=True)
        print("SKIPPED: this machine's kernel has no IA32 emulation (int 0x80 faults natively)")
        return 77
    if native.returncode != 0 or b"after" not in native.stdout:
        failures.append("native run failed: %d %r" % (native.returncode, native.stdout))
    run_dir = os.path.join(work, "run")
    os.mkdir(run_dir)
    trace = os.path.join(work, "trace")
    env = dict(os.environ, BACKSTEP_DIR=os.path.join(work, "backstep-dir"))
    want = "32-bit system call %s " % opts.nr
    err = refusals.record_refused(backstep, [helper, opts.nr], run_dir, env, trace, want, failures)
    if "int 0x80" not in err:
        failures.append("record's message does not say int 0x80: %s" % err)
    if os.path.lexists(os.path.join(run_dir, "int80-made")):
        failures.append("the refused call ran: int80-made exists")
    refusals.replay_stops_there(backstep, trace, env, want, failures)
    return refusals.finish(work, failures, "record refused: " + err.strip())

if __name__ == "__main__":
    sys.exit(main())
