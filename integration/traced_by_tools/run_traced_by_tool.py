#!/usr/bin/env python3
"""A debugging tool recorded while it traces a program: backstep emulates
ptrace between recorded processes (engine/record/ptrace_emulation.h).

  run_traced_by_tool.py --backstep PATH --target PATH --tool strace
                        [--no-syscall-buffer] [--tmp-root DIR]

strace: `strace -f -o LOG TARGET` runs natively, then under `backstep
record`. The recorded run must print what the native one prints and exit
as it does, and strace's log must show what the native log shows of the
target: each process's exit (`+++ exited with N +++`, with the same
statuses), the execs that succeeded (`execve(...) = 0`), the forks,
vforks and threads, and the target's writes to stdout. Then the target's
copy and the log are deleted and the trace replays with the same output
and exit status. Before PTRACE_SYSCALL and the event options were
emulated, the recording stopped at strace's first PTRACE_GET_SYSCALL_INFO
(exit 125). Each run has a time limit, so that a regression fails instead
of hanging. Exit 77 (skipped) where the tool is not installed.
"""
import argparse
import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

LIMIT = 120  # seconds for one run


def run(argv, cwd):
    p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=LIMIT)
        return p.returncode, out, err.decode(errors="replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out, err.decode(errors="replace")


def strace_summary(log_path):
    """What a strace -f log says of the target, independent of pids,
    addresses and the calls the dynamic linker makes."""
    with open(log_path, errors="replace") as f:
        lines = f.read().splitlines()
    summary = collections.Counter()
    for line in lines:
        m = re.match(r"^\d+\s+(.*)$", line)
        body = m.group(1) if m else line
        if re.match(r"^\+\+\+ exited with (\d+) \+\+\+$", body):
            summary[body] += 1
        elif re.match(r"^execve\(.*\) = 0$", body):
            summary["execve(%s) = 0" % body.split('"')[1]] += 1
        elif re.search(r"execve\(.*= -1", body):
            summary["failed: " + body] += 1
        elif re.match(r"^(clone3?|vfork)\(", body) or re.match(r"^<\.\.\. vfork resumed>", body):
            flags = "thread" if "CLONE_THREAD" in body else "vfork" if "vfork" in body else "fork"
            if "unfinished" not in body:
                summary["creates a " + flags] += 1
        elif re.match(r'^write\(1, ', body):
            summary[re.sub(r"\s+", " ", body)] += 1
    return summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backstep", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--tool", choices=["strace"], required=True)
    ap.add_argument("--no-syscall-buffer", action="store_true")
    ap.add_argument("--tmp-root", default=None)
    args = ap.parse_args()
    tool = shutil.which(args.tool)
    if not tool:
        print("SKIP: %s is not installed" % args.tool)
        return 77
    if args.tmp_root:
        os.makedirs(args.tmp_root, exist_ok=True)
    work = tempfile.mkdtemp(prefix="traced_by_", dir=args.tmp_root)
    failures = []
    try:
        target = os.path.join(work, "tool_target")
        shutil.copy(args.target, target)
        native_log = os.path.join(work, "native.log")
        rc, native_out, err = run([tool, "-f", "-o", native_log, target], work)
        if rc != 0:
            print("FAIL: native strace exited %s: %s" % (rc, err))
            return 1
        native = strace_summary(native_log)

        trace = os.path.join(work, "trace")
        recorded_log = os.path.join(work, "recorded.log")
        argv = [args.backstep, "record", "-o", trace]
        if args.no_syscall_buffer:
            argv.append("--no-syscall-buffer")
        rc, out, err = run(argv + [tool, "-f", "-o", recorded_log, target], work)
        if rc != 0:
            print("FAIL: record exited %s:\n%s" % (rc, err))
            return 1
        if out != native_out:
            failures.append("recorded stdout %r, native %r" % (out, native_out))
        recorded = strace_summary(recorded_log)
        if recorded != native:
            failures.append("strace's log differs from the native one's:\n  recorded %s\n  native   %s" %
                            (sorted(recorded.items()), sorted(native.items())))
        for line in ("+++ exited with 0 +++", "+++ exited with 4 +++", "creates a thread", "creates a vfork"):
            if not any(line in k for k in native):
                failures.append("the native log lacks %r: the test checks nothing" % line)

        os.remove(target)
        os.remove(recorded_log)
        rc, replay_out, err = run([args.backstep, "replay", "--autopilot", trace], work)
        if rc != 0:
            failures.append("replay exited %s (record 0):\n%s" % (rc, err))
        if replay_out != native_out:
            failures.append("replay stdout %r, native %r" % (replay_out, native_out))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    if failures:
        return 1
    print("PASS: strace -f recorded and replayed (%d lines of its log compared)" % sum(native.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
