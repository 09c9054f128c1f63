#!/usr/bin/env python3
"""A program that changes backstep's stub area below its executable is refused.

  run_stub_area_refused.py --backstep PATH --helper PATH --mode MODE [--tmp-root DIR]

The helper (bad_input/stub_area_change.c) munmaps, mprotects, madvises or
maps over the 2 MiB below its executable, where the recorder maps the stub
area of the executable's patched sites (engine/core/tool_page.h). Natively
the call returns; under `backstep record` it must be refused at its entry
(exit 125, a message naming the stub area) before it runs, and replay must
run up to it and say why the recording stopped, never diverge.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import refusals


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backstep", required=True)
    ap.add_argument("--helper", required=True)
    ap.add_argument("--mode", required=True)
    ap.add_argument("--tmp-root", default=None)
    opts = ap.parse_args()
    helper = os.path.abspath(opts.helper)
    backstep = os.path.abspath(opts.backstep)
    if opts.tmp_root:
        os.makedirs(opts.tmp_root, exist_ok=True)
    work = tempfile.mkdtemp(prefix="stub-area-refused-", dir=opts.tmp_root)
    failures = []
    native = subprocess.run([helper, opts.mode], cwd=work, capture_output=True, timeout=60)
    if native.returncode != 0 or not native.stdout.startswith(b"before\nafter: "):
        failures.append("native run failed: %d %r" % (native.returncode, native.stdout))
    trace = os.path.join(work, "trace")
    env = dict(os.environ, BACKSTEP_DIR=os.path.join(work, "backstep-dir"))
    want = "backstep's stub area below its executable"
    err = refusals.record_refused(backstep, [helper, opts.mode], work, env, trace, want, failures)
    refusals.replay_stops_there(backstep, trace, env, want, failures)
    return refusals.finish(work, failures, "record refused: " + err.strip())

if __name__ == "__main__":
    sys.exit(main())
