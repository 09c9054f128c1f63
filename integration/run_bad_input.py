#!/usr/bin/env python3
"""Bad inputs and the small sub-commands of backstep, one subtest at a time.

Usage:
  run_bad_input.py --backstep PATH --chatty PATH --endless PATH --subtest NAME
  run_bad_input.py --list                 (the subtest names, one per line)
  run_bad_input.py ... --subtest all      (every subtest in turn)

`chatty` and `endless` are the helper programs in bad_input/*.c. Every failure
path must end in a clear message on stderr and an exit status between 1 and
127: never a signal, a Python traceback, an uncaught C++ exception or a
sanitizer report. Every process runs under a timeout.

Exit status: 0 pass, 1 fail, 77 skipped (the trace lacks what a subtest
damages), 2 usage error.
"""

import argparse
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_scenario import Checker, diff_summary, kill_group, run, tail  # noqa: E402

TIMEOUT = 120
SKIP = 77
CRASH_MARKERS = [b"Traceback (most recent call last)", b"terminate called",
                 b"AddressSanitizer", b"UndefinedBehaviorSanitizer", b"runtime error:",
                 b"Segmentation fault", b"core dumped", b"Assertion `"]


class Skip(Exception):
    pass


class Context:
    def __init__(self, opts, root):
        self.backstep = os.path.abspath(opts.backstep)
        self.chatty = os.path.abspath(opts.chatty)
        self.endless = os.path.abspath(opts.endless)
        self.root = root
        self.check = Checker()
        self.env = dict(os.environ, LC_ALL="C", BACKSTEP_DIR=os.path.join(root, "backstep-dir"))
        os.makedirs(self.env["BACKSTEP_DIR"], exist_ok=True)
        self.counter = 0

    def path(self, name):
        return os.path.join(self.root, name)

    def bs(self, *args, cwd=None, env=None, timeout=TIMEOUT):
        res = run([self.backstep] + list(args), cwd or self.root, env or self.env, None, timeout)
        print("$ backstep %s  -> %s, stdout %d bytes, stderr %d bytes" %
              (" ".join(args), res.describe(), len(res.stdout), len(res.stderr)), flush=True)
        if res.stderr:
            print("  stderr: %s" % tail(res.stderr, 600).strip().replace("\n", "\n          "))
        return res

    def record(self, label="chatty", count=2000, extra=(), out=None):
        """Records chatty in a fresh directory; returns (trace, result)."""
        self.counter += 1
        run_dir = self.path("run%d" % self.counter)
        os.makedirs(run_dir)
        exe = os.path.join(run_dir, "chatty")
        shutil.copy2(self.chatty, exe)
        trace = out if out is not None else self.path("trace%d" % self.counter)
        argv = ["record"] + list(extra)
        if trace:
            argv += ["-o", trace]
        argv += ["--", "./chatty", label, str(count)]
        res = self.bs(*argv, cwd=run_dir)
        c = self.check
        c.expect(res.returncode == 0, "recording chatty: %s" % res.describe())
        lines = res.stdout.count(b"\n")
        c.expect(lines == count, "recording chatty printed %d lines, not %d" % (lines, count))
        c.expect(res.stderr == b"%s: finished %d lines\n" % (label.encode(), count),
                 "record's stderr is not just the program's: %r" % tail(res.stderr, 300))
        os.unlink(exe)
        return trace, res

    def replay(self, trace=None, env=None):
        args = ["replay", "--autopilot"] + ([trace] if trace is not None else [])
        return self.bs(*args, cwd="/", env=env)

    def good_replay(self, trace, rec, what="replay"):
        rep = self.replay(trace)
        c = self.check
        c.expect(rep.returncode == rec.returncode, "%s: %s, the recording exited %d" %
                 (what, rep.describe(), rec.returncode))
        d = diff_summary("recorded stdout", rec.stdout, "replayed stdout", rep.stdout)
        c.expect(d is None, "%s: stdout differs:\n%s" % (what, d))
        d = diff_summary("recorded stderr", rec.stderr, "replayed stderr", rep.stderr)
        c.expect(d is None, "%s: stderr differs:\n%s" % (what, d))
        return rep

    def expect_clean_failure(self, res, what, mention=None, prefix_of=None):
        """A non-zero exit that is not a signal, a message, no crash report."""
        c = self.check
        c.expect(not res.timed_out, "%s: timed out" % what)
        c.expect(res.returncode != 0, "%s: exit status 0, expected a failure" % what)
        c.expect(0 < res.returncode < 128, "%s: %s; expected an ordinary error exit (1-127)" %
                 (what, res.describe()))
        c.expect(res.stderr.strip() != b"", "%s: nothing on stderr" % what)
        for marker in CRASH_MARKERS:
            c.expect(marker not in res.stderr and marker not in res.stdout,
                     "%s: output contains %r:\n%s" % (what, marker.decode(), tail(res.stderr)))
        if mention is not None:
            options = [mention] if isinstance(mention, str) else list(mention)
            c.expect(any(m.encode() in res.stderr for m in options),
                     "%s: the message does not mention %s:\n%s" %
                     (what, " or ".join(repr(m) for m in options), tail(res.stderr)))
        if prefix_of is not None:
            c.expect(prefix_of.startswith(res.stdout),
                     "%s: stdout is not a prefix of the recorded output:\n%s" %
                     (what, diff_summary("recorded", prefix_of, "replayed", res.stdout)))


def flip(path, offsets):
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        if not data:
            raise Skip("%s is empty" % path)
        for off in offsets:
            data[off % len(data)] ^= 0xFF
        f.seek(0)
        f.write(data)


def trace_file(trace, name):
    path = os.path.join(trace, name)
    if not os.path.isfile(path):
        raise Skip("the trace has no file %r (has: %s)" %
                   (name, ", ".join(sorted(os.listdir(trace)))))
    return path


# --------------------------------------------------------------------------
# Subtests


def t_corrupt_header_magic(ctx):
    trace, rec = ctx.record()
    ctx.good_replay(trace, rec, "replay before the damage")
    flip(trace_file(trace, "header"), [0])
    ctx.expect_clean_failure(ctx.replay(trace), "header with its first byte flipped",
                             mention="header", prefix_of=b"")


def t_corrupt_header_middle(ctx):
    trace, rec = ctx.record()
    path = trace_file(trace, "header")
    flip(path, [os.path.getsize(path) // 2])
    ctx.expect_clean_failure(ctx.replay(trace), "header with a middle byte flipped",
                             mention="header", prefix_of=rec.stdout)


def t_corrupt_events_middle(ctx):
    trace, rec = ctx.record()
    path = trace_file(trace, "events")
    flip(path, [os.path.getsize(path) // 2])
    res = ctx.replay(trace)
    ctx.expect_clean_failure(res, "events with a middle byte flipped", mention="events",
                             prefix_of=rec.stdout)


def t_corrupt_events_spread(ctx):
    trace, rec = ctx.record()
    path = trace_file(trace, "events")
    size = os.path.getsize(path)
    flip(path, [size * k // 17 + 3 for k in range(1, 17)])
    ctx.expect_clean_failure(ctx.replay(trace), "events with 16 bytes flipped",
                             mention="events", prefix_of=rec.stdout)


def expect_truncation_report(ctx, res, rec, what):
    ctx.expect_clean_failure(res, what, prefix_of=rec.stdout)
    ctx.check.expect(re.search(rb"event", res.stderr, re.I) is not None,
                     "%s: stderr does not say at which event the trace ends:\n%s" %
                     (what, tail(res.stderr)))
    print("replayed %d of %d lines" % (res.stdout.count(b"\n"), rec.stdout.count(b"\n")))


def t_truncated_events_half(ctx):
    trace, rec = ctx.record()
    path = trace_file(trace, "events")
    os.truncate(path, os.path.getsize(path) // 2)
    expect_truncation_report(ctx, ctx.replay(trace), rec, "events cut in half")


def t_truncated_events_empty(ctx):
    trace, rec = ctx.record()
    os.truncate(trace_file(trace, "events"), 0)
    expect_truncation_report(ctx, ctx.replay(trace), rec, "events cut to 0 bytes")


def t_missing_events(ctx):
    trace, rec = ctx.record()
    os.unlink(trace_file(trace, "events"))
    ctx.expect_clean_failure(ctx.replay(trace), "events file deleted", mention="events",
                             prefix_of=b"")


def t_missing_header(ctx):
    trace, rec = ctx.record()
    os.unlink(trace_file(trace, "header"))
    ctx.expect_clean_failure(ctx.replay(trace), "header file deleted", mention="header",
                             prefix_of=b"")


def t_missing_files_dir(ctx):
    trace, rec = ctx.record()
    files = os.path.join(trace, "files")
    if not os.path.isdir(files) or not os.listdir(files):
        raise Skip("the trace has no files/ directory with mapped-file copies")
    names = sorted(os.listdir(files))
    shutil.rmtree(files)
    ctx.expect_clean_failure(ctx.replay(trace), "files/ deleted",
                             mention=["files"] + names, prefix_of=rec.stdout)


def t_missing_trace(ctx):
    missing = ctx.path("no-such-trace")
    ctx.expect_clean_failure(ctx.replay(missing), "replay of a missing trace",
                             mention="no-such-trace", prefix_of=b"")


def t_trace_is_a_file(ctx):
    f = ctx.path("not-a-trace.txt")
    with open(f, "w") as fh:
        fh.write("this is not a trace\n")
    ctx.expect_clean_failure(ctx.replay(f), "replay of a regular file",
                             mention="not-a-trace.txt", prefix_of=b"")


def t_empty_trace_dir(ctx):
    d = ctx.path("empty-trace")
    os.makedirs(d)
    ctx.expect_clean_failure(ctx.replay(d), "replay of an empty directory",
                             mention=["empty-trace", "header"], prefix_of=b"")


def t_record_missing_program(ctx):
    res = ctx.bs("record", "-o", ctx.path("trace-missing"), "--", "./no-such-program-xyz",
                 "arg")
    ctx.expect_clean_failure(res, "record of a missing program", mention="no-such-program-xyz")
    if res.returncode not in (127, 0):
        print("note: exit status %d; 127 (like a shell) is preferred" % res.returncode)
    res = ctx.bs("record", "-o", ctx.path("trace-missing2"), "--", "no-such-program-in-path-xyz")
    ctx.expect_clean_failure(res, "record of a missing program looked up in PATH",
                             mention="no-such-program-in-path-xyz")


def t_record_not_executable(ctx):
    f = ctx.path("plain.txt")
    with open(f, "w") as fh:
        fh.write("not a program\n")
    os.chmod(f, 0o644)
    res = ctx.bs("record", "-o", ctx.path("trace-noexec"), "--", f)
    # As root, the execute permission check still fails for a file without x bits.
    ctx.expect_clean_failure(res, "record of a non-executable file", mention="plain.txt")


def t_record_existing_output(ctx):
    d = ctx.path("already-there")
    os.makedirs(d)
    marker = os.path.join(d, "keep-me")
    with open(marker, "w") as fh:
        fh.write("precious\n")
    shutil.copy2(ctx.chatty, ctx.path("chatty"))
    res = ctx.bs("record", "-o", d, "--", "./chatty", "x", "5")
    ctx.expect_clean_failure(res, "record into an existing directory", mention="already-there")
    ctx.check.expect(sorted(os.listdir(d)) == ["keep-me"] and open(marker).read() == "precious\n",
                     "record touched the existing directory: %s" % sorted(os.listdir(d)))


def t_recorder_killed(ctx):
    run_dir = ctx.path("run-endless")
    os.makedirs(run_dir)
    shutil.copy2(ctx.endless, os.path.join(run_dir, "endless"))
    trace = ctx.path("trace-killed")
    err_path = ctx.path("record-stderr.txt")
    c = ctx.check
    with open(err_path, "wb") as err:
        proc = subprocess.Popen([ctx.backstep, "record", "-o", trace, "--", "./endless"],
                                cwd=run_dir, env=ctx.env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=err, start_new_session=True)
    seen = bytearray()
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + TIMEOUT
    try:
        while seen.count(b"\n") < 20000:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            seen += chunk
        lines = seen.count(b"\n")
        print("read %d lines from the recording before the kill" % lines)
        if not c.expect(lines >= 20000, "the recording printed only %d lines (%s)" %
                        (lines, "EOF" if proc.poll() is not None else "timeout")):
            return
        tracees = descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        print("backstep record: %s; its children were %s" %
              ("killed by SIGKILL" if proc.returncode == -9 else proc.returncode, tracees))
        survivors = [p for p in tracees if alive(p)]
        if survivors:
            print("note: the tracee survived the recorder (PTRACE_O_EXITKILL would stop it)")
    finally:
        # The tracee shares backstep's session (process group): end it too.
        kill_group(proc.pid)
    # All writers of the pipe are gone once it reads EOF.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], deadline - time.monotonic())
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        seen += chunk
    else:
        c.fail("stdout of the killed recording never reached EOF")
    proc.stdout.close()
    recorded = bytes(seen)
    with open(err_path, "rb") as fh:
        c.expect(fh.read() == b"", "record printed on stderr before it was killed")
    if not c.expect(os.path.isdir(trace), "no trace directory after the kill"):
        return
    res = ctx.replay(trace)
    expect_truncation_report(ctx, res, types.SimpleNamespace(stdout=recorded),
                             "replay of a recording whose recorder was killed")


def descendants(pid):
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for task in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, task)) as f:
                    kids = [int(x) for x in f.read().split()]
                out += kids
                todo += kids
        except OSError:
            pass
    return out


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def t_dump_good(ctx):
    trace, rec = ctx.record(count=50)
    res = ctx.bs("dump", trace)
    c = ctx.check
    c.expect(res.returncode == 0, "dump: %s" % res.describe())
    c.expect(res.stderr == b"", "dump printed on stderr")
    # Lines starting with '#' describe the trace as a whole; the others are
    # one per event.
    lines = [l for l in res.stdout.decode("utf-8", "replace").splitlines()
             if not l.startswith("#")]
    print("dump: %d event lines; first: %s" % (len(lines), lines[0] if lines else "(none)"))
    if c.expect(len(lines) >= 3, "dump printed %d lines, expected one per event" % len(lines)):
        c.expect("exec" in lines[0].lower(), "dump's first event line does not mention exec: %r" %
                 lines[0])
        c.expect(any("exit" in l.lower() for l in lines[-3:]),
                 "dump's last lines do not mention exit: %r" % lines[-3:])
        c.expect(all(l.strip() for l in lines), "dump printed empty lines")
        numbers = [l.split()[0] for l in lines]
        if all(n.isdigit() for n in numbers):
            c.expect([int(n) for n in numbers] == list(range(len(lines))),
                     "dump's event numbers are not 0, 1, 2, ...")


def dump_event_lines(ctx, trace):
    res = ctx.bs("dump", trace)
    ctx.check.expect(res.returncode == 0 and res.stderr == b"", "dump: %s" % res.describe())
    return [l for l in res.stdout.decode("utf-8", "replace").splitlines() if not l.startswith("#")]


def t_dump_buffer_flush(ctx):
    """dump counts the calls in each buffer-flush event: chatty's getrandom
    calls (one per 10 lines) are buffered, or traced where recording had to
    stop anyway; every one of them is in one count or the other."""
    count = 200
    getrandoms = count // 10
    c = ctx.check
    ctx.env.pop("BACKSTEP_SYSCALL_BUFFER", None)  # this subtest records both ways itself
    trace, _ = ctx.record(count=count)
    lines = dump_event_lines(ctx, trace)
    flush_re = re.compile(r"^\d+ tid \d+ buffer-flush (\d+) calls? \[(\d+) bytes written\]$")
    flushes = [l for l in lines if " buffer-flush" in l]
    buffered = 0
    for line in flushes:
        m = flush_re.match(line)
        if not c.expect(m is not None, "buffer-flush line without a call count: %r" % line):
            continue
        calls, written = int(m.group(1)), int(m.group(2))
        c.expect(calls >= 1, "a buffer-flush of no calls: %r" % line)
        # Each record is at least its 40-byte header; the event also writes
        # the buffer header's 8 bytes (used, cursor).
        c.expect(written >= 40 * calls + 8, "%d calls cannot fit in %d bytes: %r" % (calls, written, line))
        buffered += calls
    traced = sum(1 for l in lines if " syscall getrandom(" in l)
    print("dump: %d buffer-flush events, %d calls buffered, %d getrandom traced" %
          (len(flushes), buffered, traced))
    c.expect(buffered >= 1, "nothing was buffered (is libbackstep_preload.so next to backstep?)")
    c.expect(buffered + traced >= getrandoms,
             "%d buffered + %d traced getrandom calls, fewer than chatty's %d" % (buffered, traced, getrandoms))
    # Without buffering, every call is a syscall event and nothing is flushed.
    trace, _ = ctx.record(count=count, extra=["--no-syscall-buffer"])
    lines = dump_event_lines(ctx, trace)
    c.expect(not any(" buffer-flush" in l for l in lines), "buffer-flush events with --no-syscall-buffer")
    traced = sum(1 for l in lines if " syscall getrandom(" in l)
    c.expect(traced == getrandoms, "--no-syscall-buffer: %d getrandom events, expected %d" % (traced, getrandoms))


def t_dump_missing(ctx):
    ctx.expect_clean_failure(ctx.bs("dump", ctx.path("no-such-trace")), "dump of a missing trace",
                             mention="no-such-trace")


def t_ls_two_recordings(ctx):
    bdir = ctx.env["BACKSTEP_DIR"]
    _, rec1 = ctx.record("first", 20, out="")
    # latest-trace and the shared store of file copies are not traces.
    after1 = set(os.listdir(bdir)) - {"latest-trace", ".backstep-files"}
    _, rec2 = ctx.record("second", 30, out="")
    after2 = set(os.listdir(bdir)) - {"latest-trace", ".backstep-files"}
    c = ctx.check
    if not c.expect(len(after1) == 1 and len(after2) == 2,
                    "BACKSTEP_DIR holds %s after one recording and %s after two" %
                    (sorted(after1), sorted(after2))):
        return
    first = after1.pop()
    second = (after2 - {first}).pop()
    link = os.path.join(bdir, "latest-trace")
    if c.expect(os.path.islink(link), "no latest-trace symlink in BACKSTEP_DIR"):
        target = os.path.realpath(link)
        c.expect(target == os.path.realpath(os.path.join(bdir, second)),
                 "latest-trace points at %s, not the newer %s" % (target, second))
    res = ctx.bs("ls")
    c.expect(res.returncode == 0, "ls: %s" % res.describe())
    out = res.stdout.decode("utf-8", "replace")
    for name in (first, second):
        c.expect(name in out, "ls does not list %s:\n%s" % (name, out))
    listed = [l for l in out.splitlines() if first in l or second in l]
    c.expect(len(listed) == 2, "ls lists the traces on %d lines, expected 2:\n%s" %
             (len(listed), out))
    # replay without a trace argument replays latest-trace.
    ctx.good_replay(None, rec2, "replay of the default trace")


def t_compress_zlib(ctx):
    trace, rec = ctx.record(extra=["--compress=zlib"])
    ctx.good_replay(trace, rec)


def t_compress_zstd(ctx):
    trace, rec = ctx.record(extra=["--compress=zstd"])
    ctx.good_replay(trace, rec)


def t_compress_bogus(ctx):
    shutil.copy2(ctx.chatty, ctx.path("chatty"))
    res = ctx.bs("record", "--compress=lz4", "-o", ctx.path("t"), "--", "./chatty", "x", "3")
    ctx.expect_clean_failure(res, "record --compress=lz4", mention="lz4")
    ctx.check.expect(b"x line" not in res.stdout, "the program ran despite the bad option")


def t_usage_errors(ctx):
    ctx.expect_clean_failure(ctx.bs(), "backstep without arguments")
    ctx.expect_clean_failure(ctx.bs("frobnicate"), "an unknown sub-command", mention="frobnicate")
    ctx.expect_clean_failure(ctx.bs("record"), "record without a program")
    ctx.expect_clean_failure(ctx.bs("replay", "--no-such-option"), "an unknown option",
                             mention="no-such-option")


def t_process_choice(ctx):
    """replay -p/--onfork/--onexec and serve --process/--onfork/--onexec name a
    process of the trace by its recorded pid: one the trace does not have,
    one that never execs (for --onexec), a malformed pid, two choices, or a
    choice with --autopilot is a usage error (status 2) that says why,
    before gdb or a server starts."""
    trace, _ = ctx.record(count=3)
    table = ctx.bs("ps", trace, timeout=30)
    ctx.check.expect(table.returncode == 0, "ps: %s" % table.describe())
    rows = table.stdout.decode().splitlines()[1:]
    root = rows[0].split("\t")[0] if rows else "1"
    cases = [(["replay", "-p", "999999"], "no process 999999"),
             (["replay", "--onfork", "999999"], "no process 999999"),
             (["replay", "--onexec", root], "never executes"),
             (["replay", "-p", "12x"], "bad process id"),
             (["replay", "--onfork", "0"], "bad process id"),
             (["replay", "-p", root, "--onexec", root], "choose one process"),
             (["replay", "--autopilot", "-p", root], "autopilot"),
             (["serve", "--port", "0", "--once", "--onfork", "999999"], "no process 999999"),
             (["serve", "--port", "0", "--once", "--onexec", root], "never executes")]
    for args, mention in cases:
        res = ctx.bs(*(args + [trace]), timeout=30)
        what = " ".join(args)
        ctx.expect_clean_failure(res, what, mention=mention)
        ctx.check.expect(res.returncode == 2, "%s: exit status %s, expected 2 (usage)" % (what, res.returncode))
        ctx.check.expect(b"serving" not in res.stdout, "%s: it served anyway" % what)


def t_debugger_choice(ctx):
    """replay --debugger names gdb or lldb: anything else, no name, or a
    debugger with --autopilot is a usage error (status 2) before anything
    starts; an lldb that cannot be run is a clear failure (127) that leaves
    no copy of the program behind in $TMPDIR."""
    trace, _ = ctx.record(count=3)
    cases = [(["replay", "--debugger", "ddd"], "gdb or lldb"),
             (["replay", "--debugger=", ], "gdb or lldb"),
             (["replay", "--autopilot", "--debugger", "lldb"], "autopilot")]
    for args, mention in cases:
        res = ctx.bs(*(args + [trace]), timeout=30)
        what = " ".join(args)
        ctx.expect_clean_failure(res, what, mention=mention)
        ctx.check.expect(res.returncode == 2, "%s: exit status %s, expected 2 (usage)" % (what, res.returncode))
    res = ctx.bs("replay", trace, "--debugger", timeout=30)
    ctx.expect_clean_failure(res, "replay TRACE --debugger", mention="gdb or lldb")
    tmp = ctx.path("tmp")
    os.makedirs(tmp)
    env = dict(ctx.env, BACKSTEP_LLDB=ctx.path("no-such-lldb"), TMPDIR=tmp)
    res = ctx.bs("replay", "--debugger", "lldb", trace, env=env, timeout=60)
    ctx.expect_clean_failure(res, "replay --debugger lldb without lldb", mention="cannot start")
    ctx.check.expect(res.returncode == 127, "replay --debugger lldb without lldb: exit status %s, expected 127" %
                     res.returncode)
    ctx.check.expect(os.listdir(tmp) == [], "the program's copies were left behind: %s" % os.listdir(tmp))


def t_serve_bad_options(ctx):
    """Out-of-range or malformed numbers for serve's options: a usage error
    (status 2) that names the option, before any trace is opened or any
    port bound (the trace named here does not exist)."""
    missing = ctx.path("no-such-trace")
    cases = [(["--port", "99999"], "port"), (["--port", "65536"], "port"),
             (["--port", "-1"], "port"), (["--port", "12ab"], "port"), (["--port", ""], "port"),
             (["-p", "+80"], "port"), (["--port", "0", "--max-clients", "0"], "max-clients"),
             (["--port", "0", "--max-clients", "many"], "max-clients"),
             (["--port", "0", "--idle-timeout", "-5"], "idle-timeout"),
             (["--port", "0", "--packet-timeout", "1.5"], "packet-timeout"),
             (["--port", "0", "--idle-timeout"], "idle-timeout"),
             (["--port", "0", "--max-checkpoints", "1"], "max-checkpoints"),
             (["--port", "0", "--max-checkpoints", "5000"], "max-checkpoints"),
             (["--port", "0", "--max-checkpoints", "lots"], "max-checkpoints"),
             (["--port", "0", "--max-checkpoints"], "max-checkpoints"),
             (["--port", "0", "--max-checkpoint-memory", "0"], "max-checkpoint-memory"),
             (["--port", "0", "--max-checkpoint-memory", "1e3"], "max-checkpoint-memory"),
             (["--port", "0", "--unix", ctx.path("s")], "unix"), (["--unix", ""], "unix"),
             (["--unix", ctx.path("s"), "--host", "0.0.0.0"], "host"),
             (["--unix", ctx.path("s"), "--allow-remote"], "allow-remote")]
    for args, option in cases:
        res = ctx.bs("serve", *(args + [missing]), timeout=30)
        what = "serve %s" % " ".join(args)
        ctx.expect_clean_failure(res, what, mention=option)
        ctx.check.expect(res.returncode == 2, "%s: exit status %s, expected 2 (usage)" %
                         (what, res.returncode))
        ctx.check.expect(b"serving" not in res.stdout, "%s: it served anyway" % what)
    res = ctx.bs("serve", "--port", "99999", missing, timeout=30)
    ctx.check.expect(b"0 to 65535" in res.stderr, "serve --port 99999: the message does not "
                     "give the range:\n%s" % tail(res.stderr))


SUBTESTS = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("t_")}


def run_subtest(opts, name):
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="bad-%s-" % name, dir=opts.tmp_root)
    ctx = Context(opts, root)
    print("subtest %s (work directory %s)" % (name, root), flush=True)
    try:
        SUBTESTS[name](ctx)
    except Skip as e:
        print("SKIP %s: %s" % (name, e))
        shutil.rmtree(root, ignore_errors=True)
        return SKIP
    except Exception:
        import traceback
        traceback.print_exc()
        ctx.check.fail("driver error")
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
    p.add_argument("--chatty", help="the bad_input/chatty helper program")
    p.add_argument("--endless", help="the bad_input/endless helper program")
    p.add_argument("--subtest", help="a name from --list, or 'all'")
    p.add_argument("--tmp-root", default=tempfile.gettempdir())
    p.add_argument("--keep", action="store_true")
    opts = p.parse_args(argv)
    if opts.list:
        print("\n".join(SUBTESTS))
        return 0
    if not (opts.backstep and opts.chatty and opts.endless and opts.subtest):
        p.error("--backstep, --chatty, --endless and --subtest are required")
    if not os.access(opts.backstep, os.X_OK):
        print("FAIL: backstep binary %s is missing or not executable" % opts.backstep)
        return 1
    names = list(SUBTESTS) if opts.subtest == "all" else [opts.subtest]
    for n in names:
        if n not in SUBTESTS:
            p.error("unknown subtest %r (see --list)" % n)
    results = {n: run_subtest(opts, n) for n in names}
    if len(names) > 1:
        print("\n".join("%-28s %s" % (n, {0: "pass", 1: "FAIL", SKIP: "skip"}[r])
                        for n, r in results.items()))
    if any(r == 1 for r in results.values()):
        return 1
    return SKIP if all(r == SKIP for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
