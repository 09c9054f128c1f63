#!/usr/bin/env python3
"""Records a program and checks that its trace stays small on disk.

  run_trace_size.py --backstep PATH --binary PATH --limit-mb N [--tmp-root DIR]

A program that reserves a terabyte and touches a few pages must not get a
trace of the size it reserved: the trace holds what the program wrote or
read, and copies of sparse files keep their holes. The size measured is the
disk space the trace's files take (st_blocks), each inode counted once, so a
sparse copy counts for its data only. The recording is then replayed
(--autopilot) and must end as it did, without "diverged".
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def allocated_bytes(root):
    seen = set()
    total = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + dirnames:
            st = os.lstat(os.path.join(dirpath, name))
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks * 512
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backstep", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--limit-mb", type=float, required=True)
    ap.add_argument("--tmp-root", default=None)
    ap.add_argument("--timeout", type=int, default=300)
    opts = ap.parse_args()
    if opts.tmp_root:
        os.makedirs(opts.tmp_root, exist_ok=True)
    work = tempfile.mkdtemp(prefix="trace-size-", dir=opts.tmp_root)
    trace = os.path.join(work, "trace")
    env = dict(os.environ, BACKSTEP_DIR=os.path.join(work, "backstep-dir"))
    name = os.path.basename(opts.binary)
    ok = True
    opts.backstep = os.path.abspath(opts.backstep)
    rec = subprocess.run([opts.backstep, "record", "-o", trace, "--", os.path.abspath(opts.binary)],
                         cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                         timeout=opts.timeout)
    size = allocated_bytes(trace) if os.path.isdir(trace) else 0
    print("%s: record exit %d, trace takes %.1f MB on disk (limit %.1f MB)"
          % (name, rec.returncode, size / 1e6, opts.limit_mb))
    if rec.returncode != 0:
        print("FAIL: record exited %d: %s" % (rec.returncode, rec.stderr.decode(errors="replace")))
        ok = False
    if size > opts.limit_mb * 1e6:
        print("FAIL: the trace is larger than %.1f MB" % opts.limit_mb)
        ok = False
    if ok:
        rep = subprocess.run([opts.backstep, "replay", "--autopilot", trace], cwd="/", env=env,
                             stdin=subprocess.DEVNULL, capture_output=True, timeout=opts.timeout)
        if rep.returncode != rec.returncode or rep.stdout != rec.stdout or b"diverged" in rep.stderr:
            print("FAIL: replay exit %d, stdout %s the recording's: %s"
                  % (rep.returncode, "equal to" if rep.stdout == rec.stdout else "differs from",
                     rep.stderr.decode(errors="replace")))
            ok = False
    if ok:
        shutil.rmtree(work, ignore_errors=True)
        print("PASS %s" % name)
        return 0
    print("work directory kept: %s" % work)
    return 1


if __name__ == "__main__":
    sys.exit(main())
