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
import shutil
import subprocess
import sys
import tempfile


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
    rec = subprocess.run([backstep, "record", "-o", trace, "--", helper, opts.mode], cwd=work, env=env,
                         stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    err = rec.stderr.decode(errors="replace")
    want = "backstep's stub area below its executable"
    if rec.returncode != 125:
        failures.append("record exit %d, expected 125 (refused): %s" % (rec.returncode, err))
    if want not in err:
        failures.append("record's message does not name the stub area: %s" % err)
    if rec.stdout != b"before\n":
        failures.append("record stdout %r, expected only b'before\\n' (the call must not run)" % rec.stdout)
    rep = subprocess.run([backstep, "replay", "--autopilot", trace], cwd="/", env=env,
                         stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    rerr = rep.stderr.decode(errors="replace")
    if rep.returncode != 125 or want not in rerr or "diverged" in rerr or rep.stdout != b"before\n":
        failures.append("replay exit %d, stdout %r, expected the recording's reason: %s" %
                        (rep.returncode, rep.stdout, rerr))
    for f in failures:
        print("FAIL: " + f)
    if failures:
        print("work directory kept: %s" % work)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("PASS: record exit %d: %s" % (rec.returncode, err.strip()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
