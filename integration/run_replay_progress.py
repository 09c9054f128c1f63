#!/usr/bin/env python3
"""`backstep replay --autopilot`'s progress line: on a terminal (a pty), the
last line says every event of the trace was replayed ("replayed N / N
(100%) events, R events/s"); with stderr on a pipe, no progress at all.

  run_replay_progress.py --backstep PATH --tmp-root DIR"""
import argparse
import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile


def env_for(root):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BACKSTEP_", "LC_"))}
    env.update({"LC_ALL": "C", "BACKSTEP_DIR": os.path.join(root, "backstep-dir")})
    return env


def on_pty(argv, env):
    """Runs argv with stdout and stderr on a pty; its exit status and output."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the other end is closed
            break
        if not data:
            break
        out += data
    os.close(master)
    return proc.wait(timeout=120), out.decode(errors="replace")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--backstep", required=True)
    p.add_argument("--tmp-root", required=True)
    opts = p.parse_args()
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="progress-", dir=opts.tmp_root)
    env = env_for(root)
    trace = os.path.join(root, "trace")
    failures = []
    # A few thousand events: a shell loop that opens /dev/null (traced).
    script = "i=0; while [ $i -lt 2000 ]; do i=$((i+1)); : > /dev/null; done; echo loop done"
    r = subprocess.run([opts.backstep, "record", "--no-syscall-buffer", "-o", trace, "/bin/sh", "-c", script],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    if r.returncode != 0:
        print("FAIL: record: %s" % r.stderr.decode(errors="replace"))
        return 1

    status, out = on_pty([opts.backstep, "replay", "--autopilot", trace], env)
    m = re.search(r"\rbackstep: replayed (\d+) / (\d+) \(100%\) events, \d+ events/s\x1b\[K\r\n$", out)
    if status != 0:
        failures.append("replay on a pty exited %d" % status)
    if "loop done" not in out:
        failures.append("the program's output is missing on the pty: %r" % out[-300:])
    if not m or m.group(1) != m.group(2) or int(m.group(1)) < 4000:
        failures.append("no final progress line with every event on the pty: %r" % out[-300:])

    r = subprocess.run([opts.backstep, "replay", "--autopilot", trace], env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    err = r.stderr.decode(errors="replace")
    if r.returncode != 0 or r.stdout != b"loop done\n":
        failures.append("replay on pipes: status %d, stdout %r" % (r.returncode, r.stdout))
    if "replay" in err or "\r" in err:
        failures.append("progress written to a pipe: %r" % err)

    for f in failures:
        print("FAIL: " + f)
    if failures:
        print("work directory kept: %s" % root)
        return 1
    shutil.rmtree(root, ignore_errors=True)
    print("PASS: replay progress (%s events)" % m.group(1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
