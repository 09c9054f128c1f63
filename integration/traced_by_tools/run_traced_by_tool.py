#!/usr/bin/env python3
"""A debugging tool recorded while it traces a program: backstep emulates
ptrace between recorded processes (engine/record/ptrace_emulation.h).

  run_traced_by_tool.py --backstep PATH --target PATH --tool strace|gdb
                        [--no-syscall-buffer] [--tmp-root DIR]

strace: `strace -f -o LOG TARGET` runs natively, then under `backstep
record`. The recorded run must print what the native one prints and exit
as it does, and strace's log must show what the native log shows of the
target: each process's exit (`+++ exited with N +++`, with the same
statuses), the execs that succeeded (`execve(...) = 0`), the forks,
vforks and threads, a child's stop by SIGSTOP and SIGCONT (strace seizes
its tracees and listens through their group-stops), and the target's
writes to stdout. Then the target's
copy and the log are deleted and the trace replays with the same output
and exit status. Before PTRACE_SYSCALL and the event options were
emulated, the recording stopped at strace's first PTRACE_GET_SYSCALL_INFO
(exit 125).

gdb: `gdb -batch` runs the target (gdb_target.c) with a breakpoint, prints
an argument and a global, steps a line, continues to the next hit, prints
the backtrace, changes a variable, steps an instruction and runs to the
end; natively, then recorded. What gdb prints recorded must be what it
prints natively (process ids aside): its breakpoints are int3s it writes
through /proc/PID/task/TID/mem, its pc moves with PTRACE_SETREGS, its steps
are single steps, all emulated and recorded as changes of the target. Then
the target is deleted and the replay must print exactly what the recording
printed, and exit as it did. Before writes into a tracee were recorded, the
recording stopped at gdb's first breakpoint (exit 125).

gdb-watch: the same with gdb's hardware watchpoints and breakpoints on a
program with two threads (gdb_watch_target.c): `watch`, `rwatch`,
`awatch` and `hbreak`, which gdb arms with PTRACE_POKEUSER of the debug
registers of every thread (one waits in pthread_join meanwhile), a
variable changed at the hardware breakpoint's stop. Each hit must be the
native session's, and the replay the recording's. Exit 77 (skipped) where
the native session shows no hit: debug registers that never fire (some
hypervisors).

gdb-catch: `catch syscall write` on gdb_target.c: gdb stops the target at
the write's entry and exit, and removes and inserts its breakpoints in
the target's memory at those stops; changes at a system call's entry stop
go into the trace as the call's entry (a SyscallEntered event) and then
the change, so that replay makes them before the call runs.

strace-inject: `strace -e inject=write:error=EIO:when=2 -e
inject=getppid:retval=4242` of inject_target.c: strace skips each call at
its entry stop (orig_rax -1) and writes the result at its exit. What the
target prints, recorded and replayed, must be what it prints natively.

Each run has a time limit, so that a regression fails instead of hanging.
Exit 77 (skipped) where the tool is not installed.
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
        elif re.match(r"^(clone3?|vfork)\(", body):
            # Counted where the call starts: whole, or cut by another
            # tracee's line (`<unfinished ...>`, its arguments printed).
            flags = "thread" if "CLONE_THREAD" in body else "vfork" if "vfork" in body else "fork"
            summary["creates a " + flags] += 1
        elif re.match(r"^--- stopped by (SIG\w+) ---$", body):
            summary[body] += 1
        elif re.match(r"^--- SIG(STOP|CONT) \{", body):
            # The job-control signals as the target's child met them
            # (SIGCHLD's lines depend on when the parent runs).
            summary[re.sub(r"si_pid=\d+", "si_pid=P", body)] += 1
        elif re.match(r'^write\(1, ', body):
            summary[re.sub(r"\s+", " ", body)] += 1
    return summary


# Each gdb session: its commands, and lines the native session must show
# (else the test checks nothing).
GDB_SESSIONS = {
    "gdb": (["break step", "run", "print x", "next", "print counter", "continue", "bt", "delete",
             "set var counter = 100", "stepi", "print $pc == &step + 13 || $pc != 0", "continue"],
            [", step (x=0)", "$1 = 0", "$2 = 0", ", step (x=1)", "#1  0x", "total 634 counter 109",
             "exited with code 04"]),
    "gdb-watch": (["break worker", "run", "watch shared", "continue", "continue", "rwatch seen", "awatch shared",
                   "hbreak report", "continue", "continue", "continue", "continue", "continue", "print v",
                   "set var v = 41", "info watchpoints", "delete", "continue"],
                  ["hit Hardware watchpoint 2: shared", "Old value = 0", "New value = 10", "Old value = 30",
                   "hit Hardware access (read/write) watchpoint 4: shared", "hit Hardware read watchpoint 3: seen",
                   "Value = 40", "hit Breakpoint 5, report (v=40)", "$1 = 40", "breakpoint already hit 4 times",
                   "shared=40 seen=41", "exited normally"]),
    "gdb-catch": (["catch syscall write", "break step", "run", "delete 2", "continue", "bt 1", "print $rdx",
                   "continue", "print $rax", "continue"],
                  ["step (x=0)", "Catchpoint 1 (call to syscall write)", "$1 = 20", "total 40 counter 10",
                   "Catchpoint 1 (returned from syscall write)", "$2 = 20", "exited with code 05"]),
}

INJECT = ["-e", "inject=write:error=EIO:when=2", "-e", "inject=getppid:retval=4242"]


def gdb_text(out, err):
    """What gdb printed, without what differs from run to run: process and
    thread ids, and addresses in the libraries and thread stacks (placed
    after the preload library's mappings when recorded)."""
    text = out.decode(errors="replace") + err
    text = re.sub(r"process \d+", "process N", text)
    text = re.sub(r"Thread 0x[0-9a-f]+ \(LWP \d+\)", "Thread T", text)
    # Code and data in the libraries (mapped after the preload library's
    # when recorded with syscall buffering).
    return re.sub(r"0x0*7fff[0-9a-f]{8}\b", "0x7fff...", text)


def check_gdb(args, gdb, work):
    commands, expected = GDB_SESSIONS[args.tool]
    target = os.path.join(work, "gdb_target")
    shutil.copy(args.target, target)
    argv = [gdb, "-nx", "-batch"]
    for c in commands:
        argv += ["-ex", c]
    argv.append(target)
    rc_native, native, err = run(argv, work)
    native_text = gdb_text(native, err)
    if args.tool == "gdb-watch" and "Old value = 0" not in native_text:
        print("SKIP: no hardware watchpoint fired natively (debug registers that never fire here)\n%s" %
              native_text)
        return 77
    for line in expected:
        if line not in native_text:
            print("FAIL: the native gdb session lacks %r: the test checks nothing\n%s" % (line, native_text))
            return 1
    trace = os.path.join(work, "trace")
    record = [args.backstep, "record", "-o", trace] + (["--no-syscall-buffer"] if args.no_syscall_buffer else [])
    rc, out, err = run(record + argv, work)
    recorded_text = gdb_text(out, err)
    failures = []
    if rc != rc_native:
        failures.append("record exited %s, gdb natively %s:\n%s" % (rc, rc_native, err))
    if recorded_text != native_text:
        failures.append("gdb printed, recorded:\n%s\nnatively:\n%s" % (recorded_text, native_text))
    os.remove(target)
    rc_replay, replay_out, replay_err = run([args.backstep, "replay", "--autopilot", trace], work)
    if rc_replay != rc:
        failures.append("replay exited %s, record %s:\n%s" % (rc_replay, rc, replay_err))
    if replay_out != out:
        failures.append("replay printed %r, the recording %r" % (replay_out, out))
    for f in failures:
        print("FAIL: " + f)
    if failures:
        return 1
    print("PASS: gdb recorded while it debugs a program, and replayed (%d lines compared)" %
          len(native_text.splitlines()))
    return 0


def check_inject(args, strace, work):
    target = os.path.join(work, "inject_target")
    shutil.copy(args.target, target)
    argv = [strace, "-f", "-o", os.path.join(work, "log")] + INJECT + [target]
    rc_native, native, err = run(argv, work)
    expected = b"writes: 4, -1 (Input/output error); getppid 4242"
    if rc_native != 0 or expected not in native:
        print("FAIL: native strace exited %s, printed %r (the test checks nothing)\n%s" % (rc_native, native, err))
        return 1
    trace = os.path.join(work, "trace")
    record = [args.backstep, "record", "-o", trace] + (["--no-syscall-buffer"] if args.no_syscall_buffer else [])
    rc, out, err = run(record + argv, work)
    failures = []
    if rc != 0 or out != native:
        failures.append("record exited %s, printed %r; natively %r:\n%s" % (rc, out, native, err))
    os.remove(target)
    rc_replay, replay_out, replay_err = run([args.backstep, "replay", "--autopilot", trace], work)
    if rc_replay != rc or replay_out != out:
        failures.append("replay exited %s, printed %r; the recording %r:\n%s" % (rc_replay, replay_out, out,
                                                                               replay_err))
    for f in failures:
        print("FAIL: " + f)
    if failures:
        return 1
    print("PASS: strace -e inject recorded and replayed: %r" % out)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backstep", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--tool", choices=["strace", "strace-inject", "gdb", "gdb-watch", "gdb-catch"], required=True)
    ap.add_argument("--no-syscall-buffer", action="store_true")
    ap.add_argument("--tmp-root", default=None)
    args = ap.parse_args()
    tool = shutil.which(args.tool.split("-")[0])
    if not tool:
        print("SKIP: %s is not installed" % args.tool)
        return 77
    if args.tmp_root:
        os.makedirs(args.tmp_root, exist_ok=True)
    work = tempfile.mkdtemp(prefix="traced_by_", dir=args.tmp_root)
    failures = []
    if args.tool in GDB_SESSIONS:
        try:
            return check_gdb(args, tool, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    if args.tool == "strace-inject":
        try:
            return check_inject(args, tool, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
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
        for line in ("+++ exited with 0 +++", "+++ exited with 4 +++", "creates a thread", "creates a vfork",
                     "--- stopped by SIGSTOP ---", "--- SIGCONT {", "+++ exited with 8 +++"):
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
