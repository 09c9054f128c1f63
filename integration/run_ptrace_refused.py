#!/usr/bin/env python3
"""A program that uses ptrace in a way not emulated yet ends its recording
at once, never hangs; one whose ptrace calls are emulated records and replays.

  run_ptrace_refused.py --backstep PATH --helper PATH --mode MODE [--tmp-root DIR]

The helper (bad_input/ptrace_user.c) uses ptrace as MODE says. Recorded
with and without syscall buffering:
- a refused MODE must stop the recording at the call's entry (status 125)
  with a message naming the request ("the program called
  ptrace(PTRACE_SEIZE) with options 0x80: PTRACE_O_TRACESECCOMP ..."), leave no process of the
  program behind, and replay must run up to the call and say why the
  recording stopped. Before ptrace was refused, PTRACE_TRACEME failed with
  EPERM (backstep is the tracer) and the program waited for a stop that
  never came: `record` hung until killed.
- a recorded MODE (child-traceme and cont-signal: emulated; peek: ESRCH for
  a task the program does not trace, as natively; set-ptracer: a prctl, no
  ptrace call; mem-write and vm-write: a write into another recorded
  process, recorded for it) must print what it prints natively, exit 0, and
  replay the same.
Each run has a time limit, so that a regression fails instead of hanging.
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile

import refusals

LIMIT = 60  # seconds for one record or replay; they take well under one

# mode -> (what the message says, the stdout printed before the refused
# call) for refused modes, or the stdout of a recorded one.
REQUESTS = {
    "traceme-stop": ("which called PTRACE_TRACEME with a parent outside the recording", b"before\ntraceme: ok\n"),
    "traceme-exec": ("which called PTRACE_TRACEME with a parent outside the recording", b"before\ntraceme: ok\n"),
    "seccomp-events": ("the program called ptrace(PTRACE_SEIZE) with options 0x80: PTRACE_O_TRACESECCOMP",
                       b"before\n"),
    "mem-write": b"before\nmem-write: ok\nafter\n",
    "vm-write": b"before\nvm-write: ok\nafter\n",
    "outside": ("the program called ptrace(PTRACE_ATTACH) on task 1, which is not part of the recording", b"before\n"),
    "child-traceme": b"before\nchild traceme: ok\nwaitpid: ok\nafter\n",
    "cont-signal": b"before\nattach: ok\nwaitpid: ok\ncont: ok\nafter\n",
    "peek": b"before\npeek: No such process\nafter\n",
    "set-ptracer": b"before\nset-ptracer: done\nafter\n",
}


def run(argv, cwd, env):
    """Runs argv in a process group of its own; on timeout kills the whole
    group (a stopped tracee would outlive backstep). Returns (rc or None,
    stdout, stderr, pgid left alive)."""
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=LIMIT)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        rc = None
    left = live_members(p.pid)
    if left:
        os.killpg(p.pid, signal.SIGKILL)
    return rc, out, err.decode(errors="replace"), left


def live_members(pgid):
    """The processes of group `pgid` that are not zombies. backstep waits
    for each process it kills; a killed process whose parent died with it
    stays a zombie until init reaps it, which is not "left behind"."""
    live = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            live.append(int(entry))
    return live


def check_mode(backstep, helper, mode, buffering, work, failures):
    label = "%s (%s)" % (mode, "buffered" if buffering else "--no-syscall-buffer")
    before = len(failures)
    trace = os.path.join(work, "trace-" + mode + ("" if buffering else "-nobuf"))
    env = dict(os.environ, BACKSTEP_DIR=os.path.join(work, "backstep-dir"))
    argv = [backstep, "record", "-o", trace]
    if not buffering:
        argv.append("--no-syscall-buffer")
    rc, out, err, left = run(argv + ["--", helper, mode], work, env)
    request = REQUESTS[mode]
    if rc is None:
        failures.append("%s: record hung (killed after %d s): %s" % (label, LIMIT, err))
        return
    if left:
        failures.append("%s: record left processes of the program behind" % label)
    if isinstance(request, bytes):
        want_out = request
        if rc != 0 or out != want_out:
            failures.append("%s: record exit %d, stdout %r, expected 0 and %r: %s" % (label, rc, out, want_out, err))
            return
        reason = None
    else:
        reason, want_out = request
        if rc != 125:
            failures.append("%s: record exit %d, expected 125 (refused): %s" % (label, rc, err))
        if "recording stopped: " not in err or reason not in err:
            failures.append("%s: record's message does not say %r: %s" % (label, reason, err))
        if out != want_out:
            failures.append("%s: record stdout %r, expected only %r (the call never ran)" % (label, out, want_out))
    rc, rout, rerr, left = run([backstep, "replay", "--autopilot", trace], "/", env)
    if rc is None:
        failures.append("%s: replay hung (killed after %d s): %s" % (label, LIMIT, rerr))
        return
    want_rc = 0 if reason is None else 125
    if rc != want_rc or rout != want_out or "diverged" in rerr or (reason and reason not in rerr):
        failures.append("%s: replay exit %d, stdout %r, expected %d and the recording's end: %s" %
                        (label, rc, rout, want_rc, rerr))
    if left:
        failures.append("%s: replay left processes behind" % label)
    if len(failures) == before:
        print("%s: record and replay ok" % label, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backstep", required=True)
    ap.add_argument("--helper", required=True)
    ap.add_argument("--mode", required=True, choices=sorted(REQUESTS))
    ap.add_argument("--tmp-root", default=None)
    opts = ap.parse_args()
    if opts.tmp_root:
        os.makedirs(opts.tmp_root, exist_ok=True)
    work = tempfile.mkdtemp(prefix="ptrace-refused-", dir=opts.tmp_root)
    failures = []
    for buffering in (True, False):
        check_mode(os.path.abspath(opts.backstep), os.path.abspath(opts.helper), opts.mode, buffering, work,
                   failures)
    return refusals.finish(work, failures, "ptrace_refused.%s" % opts.mode)


if __name__ == "__main__":
    sys.exit(main())
