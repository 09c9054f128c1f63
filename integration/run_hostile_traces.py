#!/usr/bin/env python3
"""Traces someone else made: values out of range, files that are not
regular files, text that would drive the terminal, and trace roots that
another user controls.

Usage (as run_bad_input.py, whose helpers it shares):
  run_hostile_traces.py --backstep PATH --chatty PATH --endless PATH --subtest NAME
  run_hostile_traces.py --list

Every damaged trace is a copy (trace_edit.copy_trace) of a recording made
for the subtest. dump, ps and replay --autopilot must each end with a clear
message and exit status 125: never a crash, never a hang (every run has a
timeout), never an escape sequence from the trace on the terminal.
"""

import os
import shutil
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bad_input as bad  # noqa: E402
import trace_edit  # noqa: E402
from run_bad_input import Skip, tail  # noqa: E402

NOBODY = 65534
HANG_TIMEOUT = 60  # a FIFO in a trace used to block forever


def record_zlib(ctx, count=20):
    """A recording of chatty whose chunks trace_edit can rewrite."""
    return ctx.record(count=count, extra=["--compress=zlib"])


def expect_125(ctx, res, what, mention):
    ctx.expect_clean_failure(res, what, mention=mention)
    ctx.check.expect(res.returncode == 125, "%s: exit status %s, expected 125" % (what, res.returncode))


def all_three(ctx, trace, what, mention, timeout=bad.TIMEOUT):
    """dump, ps and replay --autopilot of `trace` each refuse it."""
    for args in (["dump", trace], ["ps", trace], ["replay", "--autopilot", trace]):
        res = ctx.bs(*args, cwd="/", timeout=timeout)
        expect_125(ctx, res, "%s: %s" % (" ".join(args[:-1]), what), mention)


# --------------------------------------------------------------------------
# Values out of range


def forge(ctx, trace, name, kind, status):
    """A copy of `trace` with the event before its Exit made a `kind` event
    with `status` (for Exit, the Exit itself gets it). Returns the copy and
    the number of the forged event."""
    copy = trace_edit.copy_trace(trace, ctx.path(name))
    preamble, events = trace_edit.read_events(copy)
    last = len(events) - 1
    ctx.check.expect(events[last].kind == trace_edit.KIND["exit"], "the recording does not end with its Exit")
    if kind == "exit":
        events[last].set_status(status)
        number = last
    else:
        # A signal with the registers of the call before it, so that only its
        # number is wrong.
        regs = next(e.get(trace_edit.TAG_REGS) for e in reversed(events) if e.get(trace_edit.TAG_REGS))
        forged = trace_edit.Event(trace_edit.KIND[kind], events[last].tid, [(trace_edit.TAG_REGS, regs)])
        forged.set_status(status)
        events.insert(last, forged)
        number = last
    trace_edit.write_events(copy, preamble, events)
    return copy, number


def t_signal_numbers_out_of_range(ctx):
    trace, _ = record_zlib(ctx)
    for kind in ("signal", "fatal-signal"):
        for sig in (0, 65, 200):
            copy, n = forge(ctx, trace, "%s-%d" % (kind, sig), kind, sig)
            all_three(ctx, copy, "a %s event of signal number %d" % (kind, sig),
                      "event %d: signal number %d is out of range" % (n, sig))


def t_exit_status_out_of_range(ctx):
    trace, _ = record_zlib(ctx)
    # Killed by signal 65 / 0x48 (72) / 127 (a stopped status), and one above 16 bits.
    for status in (65, 0x48, 0x7F, 0x10000):
        copy, n = forge(ctx, trace, "exit-%x" % status, "exit", status)
        all_three(ctx, copy, "an exit status of 0x%x" % status, "event %d: exit status %d is out of range" % (n, status))


# --------------------------------------------------------------------------
# Files that are not regular files


def impostor(path, what):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)
    if what == "FIFO":
        os.mkfifo(path, 0o600)
    elif what == "directory":
        os.mkdir(path, 0o700)
    elif what == "symbolic link":
        os.symlink("/dev/zero", path)
    elif what == "character device":
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero


def impostor_kinds():
    kinds = ["FIFO", "directory", "symbolic link"]
    if os.geteuid() == 0:
        kinds.append("character device")
    else:
        print("note: not root: no device node in place of a trace file (mknod needs CAP_MKNOD)")
    return kinds


def t_trace_files_that_are_not_files(ctx):
    trace, _ = record_zlib(ctx)
    for what in impostor_kinds():
        for name in ("events", "header"):
            copy = trace_edit.copy_trace(trace, ctx.path("%s-%s" % (name, what.replace(" ", "-"))))
            path = os.path.join(copy, name)
            impostor(path, what)
            all_three(ctx, copy, "%s as a %s" % (name, what),
                      "trace file %s is a %s, not a regular file" % (path, what), timeout=HANG_TIMEOUT)


def t_mapped_file_copies_that_are_not_files(ctx):
    trace, _ = record_zlib(ctx)
    names = sorted(n for n in os.listdir(os.path.join(trace, "files")) if n.startswith("chatty"))
    if not names:
        raise Skip("no copy of chatty in files/")
    for what in impostor_kinds():
        copy = trace_edit.copy_trace(trace, ctx.path("copy-%s" % what.replace(" ", "-")))
        path = os.path.join(copy, "files", names[0])
        os.chmod(os.path.join(copy, "files"), 0o700)
        impostor(path, what)
        res = ctx.bs("replay", "--autopilot", copy, cwd="/", timeout=HANG_TIMEOUT)
        expect_125(ctx, res, "replay with files/%s as a %s" % (names[0], what),
                   "trace file %s is a %s, not a regular file" % (path, what))
        # files.sums too.
        sums = os.path.join(copy, "files.sums")
        impostor(sums, what)
        res = ctx.bs("replay", "--autopilot", copy, cwd="/", timeout=HANG_TIMEOUT)
        expect_125(ctx, res, "replay with files.sums as a %s" % what,
                   "trace file %s is a %s, not a regular file" % (sums, what))


# --------------------------------------------------------------------------
# Text from the trace on the terminal

ESCAPES = b"\x1b]0;owned\x07\x1b[2J\x1b[31m"


def terminal_safe(ctx, what, out):
    ctx.check.expect(b"\x1b" not in out and b"\x07" not in out,
                     "%s: an escape sequence from the trace reached the terminal: %r" % (what, tail(out, 300)))


def t_command_line_escaped_and_cut(ctx):
    run_dir = ctx.path("run")
    os.makedirs(run_dir)
    shutil.copy2(ctx.chatty, os.path.join(run_dir, "chatty"))
    trace = ctx.path("trace")
    label = (b"\x1b[31mred").decode()
    extra = (ESCAPES + b"a line of the argument\n" * 150 + b"end").decode()
    rec = ctx.bs("record", "-o", trace, "--", "./chatty", label, "3", extra, cwd=run_dir)
    c = ctx.check
    c.expect(rec.returncode == 0, "record: %s" % rec.describe())
    # The program's own output is the program's: replay re-emits it raw.
    rep = ctx.replay(trace)
    c.expect(rep.returncode == 0 and rep.stdout == rec.stdout and b"\x1b[31mred line 0" in rep.stdout,
             "replay did not re-emit the program's output byte for byte: %s" % rep.describe())
    dump = ctx.bs("dump", trace)
    c.expect(dump.returncode == 0, "dump: %s" % dump.describe())
    terminal_safe(ctx, "dump", dump.stdout + dump.stderr)
    command = [l for l in dump.stdout.split(b"\n") if l.startswith(b"# command:")]
    if c.expect(len(command) == 1, "dump has %d command lines" % len(command)):
        line = command[0]
        c.expect(b"\\x1b[31mred" in line and b"\\x1b]0;owned\\x07" in line and b"argument\\na line" in line,
                 "dump's command line is not escaped: %r" % line[:200])
        c.expect(b"more bytes)" in line and len(line) < 2200, "dump's command line is not cut: %d bytes" % len(line))
    ps = ctx.bs("ps", trace)
    c.expect(ps.returncode == 0, "ps: %s" % ps.describe())
    terminal_safe(ctx, "ps", ps.stdout + ps.stderr)
    c.expect(ps.stdout.count(b"\n") == 2, "ps printed %d lines, expected 2:\n%r" % (ps.stdout.count(b"\n"), ps.stdout[:300]))


def t_abort_message_escaped_and_cut(ctx):
    trace, _ = record_zlib(ctx)
    copy = trace_edit.copy_trace(trace, ctx.path("abort"))
    preamble, events = trace_edit.read_events(copy)
    last = events[-1]
    last.kind = trace_edit.KIND["abort"]
    last.fields = [(trace_edit.TAG_MESSAGE, ESCAPES + b"line\n" * 150)]
    trace_edit.write_events(copy, preamble, events)
    c = ctx.check
    dump = ctx.bs("dump", copy)
    c.expect(dump.returncode == 0, "dump: %s" % dump.describe())
    terminal_safe(ctx, "dump", dump.stdout + dump.stderr)
    lines = dump.stdout.split(b"\n")
    abort = [l for l in lines if b" abort " in l]
    if c.expect(len(abort) == 1, "dump shows %d abort lines" % len(abort)):
        c.expect(abort[0].count(b"\\n") >= 150 or b"more bytes)" in abort[0],
                 "dump's abort line is not escaped: %r" % abort[0][:200])
    c.expect(len(lines) == len(events) + 4, "dump printed %d lines for %d events" % (len(lines), len(events)))
    rep = ctx.replay(copy)
    expect_125(ctx, rep, "replay to the forged abort", "the recording stopped at event %d" % (len(events) - 1))
    terminal_safe(ctx, "replay", rep.stderr)
    # What follows the program's own stderr, which replay re-emits as recorded.
    recorded = b"chatty: finished 20 lines\n"
    message = rep.stderr[len(recorded):] if rep.stderr.startswith(recorded) else rep.stderr
    c.expect(message.count(b"\n") == 1, "replay's message is %d lines:\n%r" % (message.count(b"\n"), message[:300]))


def t_recorded_path_climbing_out_of_lldbs_sysroot(ctx):
    """lldb gets copies of the libraries under a sysroot, at their recorded
    paths: a path with ".." must not put a file anywhere else."""
    trace, _ = record_zlib(ctx)
    copy = trace_edit.copy_trace(trace, ctx.path("climb"))
    preamble, events = trace_edit.read_events(copy)
    target = ctx.path("planted.so")
    renamed = 0
    for e in events:
        if e.get(trace_edit.TAG_MAPPINGS) is None:
            continue
        mappings = trace_edit.decode_mappings(e.get(trace_edit.TAG_MAPPINGS))
        for m in mappings:
            if m["kind"] == trace_edit.MAPPING_FILE and b"libc.so" in m["name"]:
                m["name"] = ("/.." * 40 + target).encode()
                renamed += 1
        e.set(trace_edit.TAG_MAPPINGS, trace_edit.encode_mappings(mappings))
    if not renamed:
        raise Skip("the recording maps no libc")
    trace_edit.write_events(copy, preamble, events)
    tmp = ctx.path("tmp")
    os.makedirs(tmp)
    env = dict(ctx.env, BACKSTEP_LLDB=ctx.path("no-such-lldb"), TMPDIR=tmp)
    res = ctx.bs("replay", "--debugger", "lldb", copy, env=env, timeout=60)
    ctx.expect_clean_failure(res, "replay --debugger lldb without lldb", mention="cannot start")
    ctx.check.expect(not os.path.lexists(target), "a recorded path put a file at %s" % target)


# --------------------------------------------------------------------------
# Trace roots and directories of other users


def others_root(ctx, name, count=5):
    """A trace root with one recording in it, and its trace."""
    root = ctx.path(name)
    env = dict(ctx.env, BACKSTEP_DIR=root)
    shutil.copy2(ctx.chatty, ctx.path("chatty"))
    res = ctx.bs("record", "--", "./chatty", "x", str(count), env=env)
    ctx.check.expect(res.returncode == 0, "record into %s: %s" % (root, res.describe()))
    return root, env, os.path.realpath(os.path.join(root, "latest-trace"))


def expect_refused(ctx, env, what, mention, args_list):
    for args in args_list:
        res = ctx.bs(*args, env=env, cwd=ctx.root)
        expect_125(ctx, res, "%s: %s" % (" ".join(args), what), mention)
        ctx.check.expect(b"x line" not in res.stdout, "%s: %s: the program ran" % (" ".join(args), what))


def t_trace_root_writable_by_others(ctx):
    root, env, trace = others_root(ctx, "open-root")
    os.chmod(root, 0o777)
    expect_refused(ctx, env, "a trace root of mode 0777", ["refusing the trace root %s" % root, "mode 0777"],
                   [["record", "--", "./chatty", "x", "2"], ["ls"], ["dump"], ["ps"], ["replay", "--autopilot"],
                    ["dump", os.path.basename(trace)]])
    os.chmod(root, 0o700)
    os.chmod(trace, 0o770)
    expect_refused(ctx, env, "a trace directory of mode 0770", ["refusing the trace directory", "mode 0770"],
                   [["dump", trace], ["ps", trace], ["replay", "--autopilot", trace], ["dump"]])


def t_trace_root_of_another_user(ctx):
    if os.geteuid() != 0:
        raise Skip("not root: cannot give a directory to another user (chown)")
    root, env, trace = others_root(ctx, "nobodys-root")
    os.chown(root, NOBODY, NOBODY)
    expect_refused(ctx, env, "a trace root owned by nobody", ["refusing the trace root %s" % root, "uid 65534"],
                   [["record", "--", "./chatty", "x", "2"], ["ls"], ["dump"], ["replay", "--autopilot"]])
    os.chown(root, 0, 0)
    os.chown(trace, NOBODY, NOBODY)
    expect_refused(ctx, env, "a trace directory owned by nobody", ["refusing the trace directory", "uid 65534"],
                   [["dump", trace], ["ps", trace], ["replay", "--autopilot", trace]])


def t_latest_trace_pointing_away(ctx):
    root, env, trace = others_root(ctx, "root")
    link = os.path.join(root, "latest-trace")
    elsewhere = ctx.path("elsewhere")
    shutil.copytree(trace, elsewhere, symlinks=True)
    for target in (elsewhere, "../elsewhere"):
        os.unlink(link)
        os.symlink(target, link)
        expect_refused(ctx, env, "latest-trace -> %s" % target, ["refusing %s" % link, "not at a trace of"],
                       [["dump"], ["replay", "--autopilot"]])
    os.unlink(link)
    os.mkdir(link)
    expect_refused(ctx, env, "latest-trace as a directory", ["refusing %s" % link, "not a symbolic link"], [["dump"]])


def t_no_home(ctx):
    env = {k: v for k, v in ctx.env.items() if k not in ("HOME", "BACKSTEP_DIR", "XDG_DATA_HOME")}
    res = ctx.bs("dump", "no-such-trace-xyz", env=env)
    ctx.expect_clean_failure(res, "dump with HOME unset")
    ctx.check.expect(b"/tmp/.local/share/backstep" not in res.stderr,
                     "with HOME unset, traces are looked for in /tmp/.local/share/backstep:\n%s" % tail(res.stderr))


bad.SUBTESTS = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("t_")}

if __name__ == "__main__":
    sys.exit(bad.main())
