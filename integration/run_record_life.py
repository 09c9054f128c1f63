#!/usr/bin/env python3
"""The recorder's life cycle: signals, a killed recorder, a full disk, privacy.

Usage:
  run_record_life.py --backstep PATH --lifecycle PATH --subtest NAME
  run_record_life.py --list               (the subtest names, one per line)

`lifecycle` is the helper program in record_life/lifecycle.c. Each subtest
drives the real `backstep record` and `backstep replay --autopilot`. Waits
are on observable conditions (a line of output, a file's size, a process's
end), each with a generous deadline; nothing sleeps and hopes.

Exit status: 0 pass, 1 fail, 77 skipped (e.g. no tmpfs can be mounted),
2 usage error.
"""

import argparse
import fcntl
import os
import pty
import re
import resource
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import termios
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_scenario import Checker, diff_summary, kill_group, run, tail  # noqa: E402
from run_bad_input import alive, descendants  # noqa: E402

TIMEOUT = 120
SKIP = 77
PREAMBLE = 12  # bytes of the events file before the first chunk


class Skip(Exception):
    pass


class Live:
    """A `backstep record` running in the background; its stdout is read as
    it comes."""

    def __init__(self, ctx, trace, mode_args, preexec_fn=None, stdout=None, new_session=True):
        self.ctx = ctx
        self.err_path = ctx.path("record-stderr-%d.txt" % ctx.next_id())
        argv = [ctx.backstep, "record", "-o", trace, "--", ctx.lifecycle] + list(mode_args)
        with open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(argv, cwd=ctx.root, env=ctx.env, stdin=subprocess.DEVNULL,
                                         stdout=stdout if stdout is not None else subprocess.PIPE,
                                         stderr=err, start_new_session=new_session,
                                         preexec_fn=preexec_fn)
        self.seen = bytearray()

    def read_until(self, pattern, deadline_s=TIMEOUT):
        """Reads stdout until it matches `pattern` (bytes regex); False on EOF
        or at the deadline."""
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + deadline_s
        while not re.search(pattern, self.seen):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return False
                self.seen += chunk
        return True

    def wait(self, deadline_s=TIMEOUT):
        """Reads stdout to EOF and waits for the recorder; returns its exit
        status, or None if it did not end in time (then it is killed)."""
        if self.proc.stdout is not None:
            self.read_until(rb"(?!)", deadline_s)  # to EOF
        try:
            return self.proc.wait(timeout=deadline_s)
        except subprocess.TimeoutExpired:
            kill_group(self.proc.pid)
            self.proc.wait()
            return None

    def stderr(self):
        with open(self.err_path, "rb") as f:
            return f.read()


class Context:
    def __init__(self, opts, root):
        self.backstep = os.path.abspath(opts.backstep)
        self.lifecycle = os.path.abspath(opts.lifecycle)
        self.root = root
        self.check = Checker()
        self.env = dict(os.environ, LC_ALL="C", BACKSTEP_DIR=os.path.join(root, "backstep-dir"))
        self.counter = 0
        self.cleanups = []

    def next_id(self):
        self.counter += 1
        return self.counter

    def path(self, name):
        return os.path.join(self.root, name)

    def bs(self, *args, env=None, timeout=TIMEOUT):
        res = run([self.backstep] + list(args), "/", env or self.env, None, timeout)
        print("$ backstep %s  -> %s, stdout %d bytes, stderr %d bytes" %
              (" ".join(args), res.describe(), len(res.stdout), len(res.stderr)), flush=True)
        if res.stderr:
            print("  stderr: %s" % tail(res.stderr, 600).strip().replace("\n", "\n          "))
        return res

    def replay(self, trace):
        return self.bs("replay", "--autopilot", trace)

    def expect_tracee_gone(self, tracees, what):
        # The kernel's SIGKILL of a tracee whose tracer died (EXITKILL) is
        # delivered when the tracee next runs: on a busy machine it may not
        # have exited yet when the recorder has. Polled, not slept.
        wait_for(lambda: not any(alive(p) for p in tracees), 10)
        left = [p for p in tracees if alive(p)]
        self.check.expect(not left, "%s: the program (pids %s) outlived the recorder" % (what, left))


def wait_for(cond, deadline_s=TIMEOUT, step_s=0.01):
    """Polls `cond` until it holds or the deadline passes; returns the last value."""
    deadline = time.monotonic() + deadline_s
    while True:
        value = cond()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(step_s)


def events_size(trace):
    try:
        return os.path.getsize(os.path.join(trace, "events"))
    except OSError:
        return 0


def expect_replay_prefix(ctx, res, recorded, what, max_missing_lines=0):
    """Replay's stdout is the recorded stdout, less at most
    `max_missing_lines` final lines (a write whose event the recorder had
    not finished when it was stopped)."""
    c = ctx.check
    ok = recorded.startswith(res.stdout)
    missing = recorded[len(res.stdout):].count(b"\n") if ok else None
    c.expect(ok and missing <= max_missing_lines,
             "%s: replayed stdout is not the recorded one (less at most %d lines):\n%s" %
             (what, max_missing_lines, diff_summary("recorded", recorded, "replayed", res.stdout)))


# --------------------------------------------------------------------------
# Signals: what the program inherits


def t_sigpipe_reaches_program(ctx):
    """`record prog | head -1`: prog dies of SIGPIPE (141), and replay shows it."""
    trace = ctx.path("trace")
    live = Live(ctx, trace, ["lines", "0"])
    c = ctx.check
    got = live.read_until(rb"\n", 60)
    tracees = descendants(live.proc.pid)
    live.proc.stdout.close()  # what `head -1` does once it has its line
    live.proc.stdout = None
    status = live.wait()
    print("record | head -1: recorder exit %s, stderr %r" % (status, tail(live.stderr(), 300)))
    c.expect(got, "the recording printed no line")
    c.expect(status == 128 + signal.SIGPIPE,
             "PIPESTATUS[0] is %s, expected 141 (the program dies of SIGPIPE)" % status)
    ctx.expect_tracee_gone(tracees, "record | head -1")
    res = ctx.replay(trace)
    c.expect(res.returncode == 128 + signal.SIGPIPE,
             "replay: %s; expected the recorded death by SIGPIPE (141)" % res.describe())


def signal_state_preexec():
    # As a parent may leave them: SIGTERM and SIGPIPE ignored, SIGUSR1 and
    # SIGINT blocked, SIGQUIT at its default.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, {signal.SIGUSR1, signal.SIGINT})


def t_inherited_signal_state(ctx):
    """The program starts with the dispositions and mask its parent gave
    `backstep record`, both plain and with some ignored and blocked."""
    c = ctx.check
    for label, preexec in (("plain", None), ("ignored+blocked", signal_state_preexec)):
        native = subprocess.run([ctx.lifecycle, "sigstate"], cwd=ctx.root, env=ctx.env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT,
                                preexec_fn=preexec)
        trace = ctx.path("trace-%s" % label.replace("+", "-"))
        rec = subprocess.run([ctx.backstep, "record", "-o", trace, "--", ctx.lifecycle, "sigstate"],
                             cwd=ctx.root, env=ctx.env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, timeout=TIMEOUT, preexec_fn=preexec)
        print("%s: native exit %d, recorded exit %d" % (label, native.returncode, rec.returncode))
        c.expect(native.returncode == 0 and rec.returncode == 0,
                 "%s: exit statuses native %d, recorded %d; stderr %r" %
                 (label, native.returncode, rec.returncode, tail(rec.stderr, 300)))
        d = diff_summary("native", native.stdout, "recorded", rec.stdout)
        c.expect(d is None, "%s: the recorded program saw other signal dispositions or mask:\n%s\n"
                 "native:\n%s\nrecorded:\n%s" % (label, d, native.stdout.decode(),
                                                 rec.stdout.decode()))
        res = ctx.replay(trace)
        c.expect(res.returncode == 0 and res.stdout == rec.stdout,
                 "%s: replay: %s, stdout differs: %s" %
                 (label, res.describe(), diff_summary("recorded", rec.stdout, "replayed", res.stdout)))


# --------------------------------------------------------------------------
# Signals: Ctrl-C for the program, stop signals for the recorder


def expect_group_sigint(ctx, live, trace, send, what):
    c = ctx.check
    if not c.expect(live.read_until(rb"ready\n", 60), "%s: the program never printed 'ready'" % what):
        kill_group(live.proc.pid)
        return
    tracees = descendants(live.proc.pid)
    send()
    status = live.wait(60)
    print("%s: recorder exit %s, stderr %r" % (what, status, tail(live.stderr(), 300)))
    c.expect(status == 128 + signal.SIGINT,
             "%s: recorder exit %s; expected 130 (the program dies of SIGINT)" % (what, status))
    c.expect(live.stderr() == b"", "%s: the recorder printed %r" % (what, tail(live.stderr())))
    ctx.expect_tracee_gone(tracees, what)
    res = ctx.replay(trace)
    c.expect(res.returncode == 128 + signal.SIGINT,
             "%s: replay: %s; expected the recorded death by SIGINT (130)" % (what, res.describe()))
    expect_replay_prefix(ctx, res, bytes(live.seen), what)


def t_sigint_to_process_group(ctx):
    """SIGINT to the whole group (what a shell's Ctrl-C does): the program
    gets it, it is recorded, the recorder keeps recording to the end."""
    trace = ctx.path("trace")
    live = Live(ctx, trace, ["pause", "5"])
    expect_group_sigint(ctx, live, trace, lambda: os.killpg(live.proc.pid, signal.SIGINT),
                        "killpg(SIGINT)")


def t_ctrl_c_on_terminal(ctx):
    """Ctrl-C typed on a real terminal (a pty): the terminal driver sends
    SIGINT to the foreground group, from the kernel."""
    master, slave = pty.openpty()

    def make_controlling_tty():
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        os.close(master)

    trace = ctx.path("trace")
    try:
        live = Live(ctx, trace, ["pause", "5"], preexec_fn=make_controlling_tty, new_session=False)
    finally:
        os.close(slave)

    def ctrl_c():
        os.write(master, b"\x03")

    try:
        expect_group_sigint(ctx, live, trace, ctrl_c, "Ctrl-C on a terminal")
    finally:
        os.close(master)


def stop_the_recorder(ctx, sig, mode_args, what):
    """`sig` sent to the recorder alone: it stops the program, ends the
    trace with the reason, exits 128+sig; replay replays it all and says why."""
    trace = ctx.path("trace")
    live = Live(ctx, trace, mode_args)
    c = ctx.check
    if not c.expect(live.read_until(rb"(ready|line 2000)\n", 60), "%s: no output" % what):
        kill_group(live.proc.pid)
        return
    tracees = descendants(live.proc.pid)
    os.kill(live.proc.pid, sig)
    status = live.wait(60)
    err = live.stderr()
    name = signal.Signals(sig).name
    print("%s: recorder exit %s, stderr %r" % (what, status, tail(err, 300)))
    c.expect(status == 128 + sig, "%s: recorder exit %s, expected %d" % (what, status, 128 + sig))
    c.expect(name.encode() in err, "%s: the recorder does not say it got %s: %r" % (what, name, err))
    ctx.expect_tracee_gone(tracees, what)
    res = ctx.replay(trace)
    c.expect(0 < res.returncode < 128, "%s: replay: %s; expected an error exit" % (what, res.describe()))
    c.expect(("the recorder received %s" % name).encode() in res.stderr,
             "%s: replay does not say why the recording stopped: %r" % (what, tail(res.stderr)))
    c.expect(b"cut short" not in res.stderr, "%s: replay calls the trace cut short" % what)
    expect_replay_prefix(ctx, res, bytes(live.seen), what, max_missing_lines=1)


def t_sigterm_stops_busy_recording(ctx):
    stop_the_recorder(ctx, signal.SIGTERM, ["lines", "0"], "SIGTERM while the program prints")


def t_sighup_stops_waiting_recording(ctx):
    stop_the_recorder(ctx, signal.SIGHUP, ["pause", "5"], "SIGHUP while the program waits")


def t_sigint_alone_stops_recording(ctx):
    stop_the_recorder(ctx, signal.SIGINT, ["pause", "5"], "SIGINT to the recorder alone")


# --------------------------------------------------------------------------
# Signals the program sends to its own process group (which the recorder
# shares): they must reach the program as without backstep, never the
# recorder.


def group_signal_from_program(ctx, sig, hows):
    """`lifecycle groupkill SIG HOW`: kill(0, SIG) with SIG at its default,
    ignored or caught. Recorded, the program ends as it does natively (same
    exit status, same output), the recorder says nothing, the trace is
    complete and replays to the same end."""
    c = ctx.check
    name = signal.Signals(sig).name
    for how in hows:
        what = "kill(0, %s), %s" % (name, how)
        argv = [ctx.lifecycle, "groupkill", str(int(sig)), how]
        # Each in a session of its own, so that kill(0) hits no test process.
        native = subprocess.run(argv, cwd=ctx.root, env=ctx.env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                timeout=TIMEOUT, start_new_session=True)
        native_status = native.returncode if native.returncode >= 0 else 128 - native.returncode
        trace = ctx.path("trace-%s-%s" % (name, how))
        rec = subprocess.run([ctx.backstep, "record", "-o", trace, "--"] + argv, cwd=ctx.root,
                             env=ctx.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, timeout=TIMEOUT, start_new_session=True)
        print("%s: native %d %r, recorder exit %d, stdout %r, stderr %r" %
              (what, native_status, native.stdout, rec.returncode, rec.stdout,
               tail(rec.stderr, 300)))
        c.expect(rec.returncode == native_status,
                 "%s: recorder exit %d (%s), expected the program's native %d" %
                 (what, rec.returncode, describe_status(rec.returncode), native_status))
        c.expect(rec.stdout == native.stdout,
                 "%s: recorded output differs:\n%s" %
                 (what, diff_summary("native", native.stdout, "recorded", rec.stdout)))
        c.expect(rec.stderr == b"", "%s: the recorder printed %r" % (what, tail(rec.stderr)))
        if not os.path.isdir(trace):
            c.fail("%s: no trace in %s" % (what, trace))
            continue
        res = ctx.replay(trace)
        c.expect(res.returncode == native_status and res.stdout == native.stdout,
                 "%s: replay: %s, expected exit %d and the native output; stdout %s" %
                 (what, res.describe(), native_status,
                  diff_summary("native", native.stdout, "replayed", res.stdout)))


def describe_status(status):
    if status < 0:
        return "killed by %s" % signal.Signals(-status).name
    if status > 128 and status - 128 < signal.NSIG:
        try:
            return "died of %s" % signal.Signals(status - 128).name
        except ValueError:
            pass
    return "exit"


def t_program_sigabrt_to_its_group(ctx):
    group_signal_from_program(ctx, signal.SIGABRT, ("default", "ignore", "handler"))


def t_program_sigtrap_to_its_group(ctx):
    group_signal_from_program(ctx, signal.SIGTRAP, ("default", "handler"))


def t_program_sigterm_to_its_group(ctx):
    group_signal_from_program(ctx, signal.SIGTERM, ("default", "handler"))


def t_program_signals_the_recorder(ctx):
    """The program's parent, under record, is the recorder: a signal the
    program sends it (SIGUSR1, SIGABRT: fatal by default) must not end the
    recording. Natively the signal would go to whoever started the program;
    under record nobody else gets it, and the program runs on."""
    c = ctx.check
    for sig in (signal.SIGUSR1, signal.SIGABRT):
        what = "kill(getppid(), %s)" % signal.Signals(sig).name
        trace = ctx.path("trace-%d" % sig)
        rec = subprocess.run([ctx.backstep, "record", "-o", trace, "--", ctx.lifecycle,
                              "parentkill", str(int(sig))], cwd=ctx.root, env=ctx.env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, timeout=TIMEOUT, start_new_session=True)
        print("%s: recorder exit %d, stdout %r, stderr %r" %
              (what, rec.returncode, rec.stdout, tail(rec.stderr, 300)))
        c.expect(rec.returncode == 0 and rec.stdout == b"before\nafter\n" and rec.stderr == b"",
                 "%s: recorder exit %d (%s), stdout %r, stderr %r; expected exit 0, "
                 "'before' and 'after', no message" %
                 (what, rec.returncode, describe_status(rec.returncode), rec.stdout,
                  tail(rec.stderr)))
        if not os.path.isdir(trace):
            c.fail("%s: no trace in %s" % (what, trace))
            continue
        res = ctx.replay(trace)
        c.expect(res.returncode == 0 and res.stdout == rec.stdout,
                 "%s: replay: %s, stdout %r" % (what, res.describe(), res.stdout))


# --------------------------------------------------------------------------
# A recorder killed by SIGKILL


def t_sigkill_keeps_recent_events(ctx):
    """The program prints, then waits for ever: the events up to its wait
    reach the file without more events coming, so that a SIGKILL of the
    recorder loses none of them."""
    trace = ctx.path("trace")
    live = Live(ctx, trace, ["pause", "50"])
    c = ctx.check
    try:
        if not c.expect(live.read_until(rb"ready\n", 60), "the program never printed 'ready'"):
            return
        # The first chunk on disk need not hold the last write yet (a busy
        # machine): wait until a replay of the file shows all the output.
        def replays_all_output():
            if events_size(trace) <= PREAMBLE:
                return False
            res = run([ctx.backstep, "replay", "--autopilot", trace], "/", ctx.env, None, TIMEOUT)
            return res.stdout == bytes(live.seen)
        grew = wait_for(replays_all_output, 60, step_s=0.1)
        print("events file: %d bytes" % events_size(trace))
        c.expect(grew, "the events up to the program's last output did not reach %s/events within 60 s" % trace)
        tracees = descendants(live.proc.pid)
        os.kill(live.proc.pid, signal.SIGKILL)
        live.proc.wait(timeout=30)
    finally:
        kill_group(live.proc.pid)
    live.wait(30)
    ctx.expect_tracee_gone(tracees, "SIGKILL")
    res = ctx.replay(trace)
    c.expect(0 < res.returncode < 128, "replay: %s; expected an error exit" % res.describe())
    c.expect(re.search(rb"event", res.stderr) is not None, "replay does not say where the trace ends")
    expect_replay_prefix(ctx, res, bytes(live.seen), "replay after SIGKILL")


# --------------------------------------------------------------------------
# A full disk


def expect_disk_full(ctx, trace, live, errno_text):
    c = ctx.check
    tracees = descendants(live.proc.pid)
    status = live.wait(TIMEOUT)
    err = live.stderr()
    print("recorder exit %s, stderr:\n%s" % (status, err.decode("utf-8", "replace")))
    c.expect(status is not None and 0 < status < 128,
             "recorder exit %s; expected an error exit" % status)
    c.expect(err.count(errno_text) == 1,
             "the recorder says %r %d times, expected once:\n%s" %
             (errno_text.decode(), err.count(errno_text), err.decode("utf-8", "replace")))
    ctx.expect_tracee_gone(tracees, "disk full")
    res = ctx.replay(trace)
    c.expect(0 < res.returncode < 128, "replay: %s; expected an error exit" % res.describe())
    c.expect(errno_text in res.stderr and b"writing the trace failed" in res.stderr,
             "replay does not say that writing the trace failed with %r: %r" %
             (errno_text.decode(), tail(res.stderr)))
    c.expect(b"was the recorder killed" not in res.stderr, "replay guesses at a killed recorder")
    expect_replay_prefix(ctx, res, bytes(live.seen), "replay after a full disk",
                         max_missing_lines=1 << 30)
    print("replayed %d of %d lines" % (res.stdout.count(b"\n"), live.seen.count(b"\n")))


def t_disk_full_tmpfs(ctx):
    """The trace is on a small tmpfs that fills up (ENOSPC)."""
    mnt = ctx.path("small-disk")
    os.makedirs(mnt)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=12m", "tmpfs", mnt],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise Skip("cannot mount a tmpfs: %s" % r.stdout.decode().strip())
    ctx.cleanups.append(lambda: subprocess.run(["umount", "-l", mnt]))
    trace = os.path.join(mnt, "trace")
    live = Live(ctx, trace, ["noise"])
    expect_disk_full(ctx, trace, live, b"No space left on device")


def t_disk_full_file_limit(ctx):
    """A file size limit (RLIMIT_FSIZE) stops the events file at 8 MiB (EFBIG)."""
    limit = 8 << 20

    def small_files():
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))

    trace = ctx.path("trace")
    live = Live(ctx, trace, ["noise"], preexec_fn=small_files)
    expect_disk_full(ctx, trace, live, b"File too large")


# --------------------------------------------------------------------------
# Privacy


def t_trace_permissions(ctx):
    """Traces and the default trace root are private: 0700 directories,
    0600 files, whatever the umask."""
    c = ctx.check
    root = os.path.join(ctx.root, "private", "traces")
    env = dict(ctx.env, BACKSTEP_DIR=root)

    def open_umask():
        os.umask(0)

    for label, extra in (("default place", []), ("-o", ["-o", ctx.path("trace-o")])):
        r = subprocess.run([ctx.backstep, "record"] + extra + ["--", ctx.lifecycle, "lines", "3"],
                           cwd=ctx.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT, preexec_fn=open_umask)
        if not c.expect(r.returncode == 0, "%s: record: exit %d, %r" % (label, r.returncode, r.stderr)):
            continue
        trace = extra[1] if extra else os.path.realpath(os.path.join(root, "latest-trace"))
        paths = [trace, os.path.join(trace, "files"), os.path.join(trace, "header"),
                 os.path.join(trace, "events")]
        if not extra:
            paths = [os.path.dirname(root), root] + paths
        for p in paths:
            mode = stat.S_IMODE(os.lstat(p).st_mode)
            want = 0o700 if os.path.isdir(p) else 0o600
            print("%s: %o %s" % (label, mode, p))
            c.expect(mode == want, "%s: %s has mode %o, expected %o" % (label, p, mode, want))


SUBTESTS = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("t_")}


def run_subtest(opts, name):
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="life-%s-" % name, dir=opts.tmp_root)
    ctx = Context(opts, root)
    print("subtest %s (work directory %s)" % (name, root), flush=True)
    try:
        SUBTESTS[name](ctx)
    except Skip as e:
        print("SKIP %s: %s" % (name, e))
        return SKIP
    except Exception:
        import traceback
        traceback.print_exc()
        ctx.check.fail("driver error")
    finally:
        for cleanup in ctx.cleanups:
            cleanup()
    if ctx.check.failures:
        print("FAIL %s: %d check(s) failed; work directory kept: %s" %
              (name, len(ctx.check.failures), root))
        return 1
    if not opts.keep:
        shutil.rmtree(root, ignore_errors=True)
    print("PASS %s" % name)
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--list", action="store_true", help="print the subtest names")
    p.add_argument("--backstep")
    p.add_argument("--lifecycle", help="the record_life/lifecycle helper program")
    p.add_argument("--subtest", help="a name from --list, or 'all'")
    p.add_argument("--tmp-root", default=tempfile.gettempdir())
    p.add_argument("--keep", action="store_true")
    opts = p.parse_args(argv)
    if opts.list:
        print("\n".join(SUBTESTS))
        return 0
    if not (opts.backstep and opts.lifecycle and opts.subtest):
        p.error("--backstep, --lifecycle and --subtest are required")
    names = list(SUBTESTS) if opts.subtest == "all" else [opts.subtest]
    for n in names:
        if n not in SUBTESTS:
            p.error("unknown subtest %r (see --list)" % n)
    results = {n: run_subtest(opts, n) for n in names}
    if len(names) > 1:
        print("\n".join("%-34s %s" % (n, {0: "pass", 1: "FAIL", SKIP: "skip"}[r])
                        for n, r in results.items()))
    if any(r == 1 for r in results.values()):
        return 1
    return SKIP if all(r == SKIP for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
