#!/usr/bin/env python3
"""A mapping of a device is refused by name, at record, and replay says so.

  run_device_mapping.py --backstep PATH --helper PATH [--device /dev/loop0] [--tmp-root DIR]

The device's memory is not a file the trace could hold (only /dev/zero,
which is anonymous memory, is recorded). Exits 77 (skipped) when the device
cannot be mapped natively here (not root, no such device).
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
    ap.add_argument("--device", default="/dev/loop0")
    ap.add_argument("--tmp-root", default=None)
    opts = ap.parse_args()
    helper = os.path.abspath(opts.helper)
    backstep = os.path.abspath(opts.backstep)
    native = subprocess.run([helper, opts.device], capture_output=True, timeout=60)
    if native.returncode != 0:
        print("SKIP: %s cannot be mapped here (helper exit %d)" % (opts.device, native.returncode))
        return 77
    if opts.tmp_root:
        os.makedirs(opts.tmp_root, exist_ok=True)
    work = tempfile.mkdtemp(prefix="device-mapping-", dir=opts.tmp_root)
    trace = os.path.join(work, "trace")
    env = dict(os.environ, BACKSTEP_DIR=os.path.join(work, "backstep-dir"))
    failures = []
    rec = subprocess.run([backstep, "record", "-o", trace, "--", helper, opts.device], cwd=work, env=env,
                         stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    err = rec.stderr.decode(errors="replace")
    if rec.returncode == 0:
        failures.append("record succeeded; expected a refusal")
    if b"mapped" in rec.stdout:
        failures.append("the program ran past the refused mmap: %r" % rec.stdout)
    st = os.stat(opts.device)
    want = "block device %s (%d:%d)" % (opts.device, os.major(st.st_rdev), os.minor(st.st_rdev))
    if want not in err:
        failures.append("record's message does not name %r: %s" % (want, err))
    rep = subprocess.run([backstep, "replay", "--autopilot", trace], cwd="/", env=env,
                         stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    rerr = rep.stderr.decode(errors="replace")
    if rep.returncode == 0 or want not in rerr or "diverged" in rerr:
        failures.append("replay exit %d, expected the recording's reason: %s" % (rep.returncode, rerr))
    return refusals.finish(work, failures, "record exit %d: %s" % (rec.returncode, err.strip()))


if __name__ == "__main__":
    sys.exit(main())
