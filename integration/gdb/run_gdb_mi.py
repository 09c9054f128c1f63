#!/usr/bin/env python3
"""The gdb/MI path that IDEs use (VS Code cppdbg, CLion): reverse execution
through `-exec-... --reverse` against `backstep serve`.

Usage:
  run_gdb_mi.py --backstep PATH --binary PATH --source programs/mi_target.c [options]

What happens, in a fresh work directory (kept on failure):
  1. the program is recorded and its binary deleted (gdbtest.record);
  2. `backstep serve --port 0 --once TRACE` starts; the port is read from its
     first stdout line ("backstep: serving TRACE on 127.0.0.1:PORT");
  3. `gdb -nx --interpreter=mi2` gets commands on stdin, each with a numeric
     token; the driver reads gdb's output until the command's result record
     (^done, ^running, ^connected, ^error, ^exit) and, for an -exec command,
     the next *stopped record, with a timeout: it never sleeps to wait;
  4. each *stopped record is checked: reason (or, at the end of the
     recorded history, no reason and "No more reverse-execution history." on
     the console stream just before it), function, line, arguments;
  5. after -gdb-exit, gdb and the --once server must both exit.
The whole MI transcript is kept in the work directory (mi-transcript.txt).

Exit status: 0 pass, 1 fail, 2 usage error.
"""

import argparse
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest  # noqa: E402

STEP_TIMEOUT = 60  # seconds for one command and its stop


# --------------------------------------------------------------------------
# A small parser for MI output records (GDB manual, "GDB/MI Output Syntax").


class MiSyntaxError(Exception):
    pass


def parse_cstring(s, i):
    assert s[i] == '"'
    i += 1
    out = []
    while i < len(s):
        c = s[i]
        if c == "\\":
            n = s[i + 1]
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(n, n))
            i += 2
        elif c == '"':
            return "".join(out), i + 1
        else:
            out.append(c)
            i += 1
    raise MiSyntaxError("unterminated string in %r" % s)


def parse_value(s, i):
    c = s[i]
    if c == '"':
        return parse_cstring(s, i)
    if c == "{":
        return parse_results(s, i + 1, "}")
    if c == "[":
        i += 1
        items = []
        if s[i] == "]":
            return items, i + 1
        while True:
            if s[i] in '"{[':
                v, i = parse_value(s, i)
                items.append(v)
            else:  # a list of results (name=value): kept as (name, value)
                eq = s.index("=", i)
                key = s[i:eq]
                v, i = parse_value(s, eq + 1)
                items.append((key, v))
            if s[i] == ",":
                i += 1
                continue
            if s[i] == "]":
                return items, i + 1
            raise MiSyntaxError("bad list at %d in %r" % (i, s))
    raise MiSyntaxError("bad value at %d in %r" % (i, s))


def parse_results(s, i, end):
    out = {}
    if i < len(s) and s[i] == end:
        return out, i + 1
    while i < len(s):
        eq = s.index("=", i)
        key = s[i:eq]
        v, i = parse_value(s, eq + 1)
        out[key] = v
        if i >= len(s):
            if end is None:
                return out, i
            raise MiSyntaxError("unterminated tuple in %r" % s)
        if s[i] == ",":
            i += 1
        elif s[i] == end:
            return out, i + 1
        else:
            raise MiSyntaxError("unexpected %r at %d in %r" % (s[i], i, s))
    return out, i


class Record:
    """One MI output line: kind is one of ^ * = ~ @ & (or '' for "(gdb)")."""

    def __init__(self, line):
        self.line = line
        self.token = None
        i = 0
        while i < len(line) and line[i].isdigit():
            i += 1
        if i:
            self.token = int(line[:i])
        rest = line[i:]
        self.kind = rest[:1] if rest[:1] in "^*=~@&+" else ""
        self.cls = ""
        self.results = {}
        self.text = None
        if self.kind in "~@&" and self.kind:
            self.text, _ = parse_cstring(rest, 1)
        elif self.kind in "^*=+" and self.kind:
            comma = rest.find(",")
            self.cls = rest[1:] if comma < 0 else rest[1:comma]
            if comma >= 0:
                self.results, _ = parse_results(rest, comma + 1, None)


# --------------------------------------------------------------------------


class Gdb:
    def __init__(self, argv, cwd, env, transcript):
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.lines = queue.Queue()
        self.transcript = transcript
        self.token = 0
        self.console = []  # console-stream text since the last command
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self):
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        self.lines.put(None)

    def send(self, command):
        self.token += 1
        text = "%d%s" % (self.token, command)
        self.transcript.append(">>> " + text)
        self.console = []
        self.proc.stdin.write((text + "\n").encode())
        self.proc.stdin.flush()
        return self.token

    def read_until(self, predicate, timeout, what):
        """Reads records until predicate(record) is true; returns it."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise MiFailure("timed out after %d s waiting for %s" % (timeout, what))
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise MiFailure("gdb's output ended while waiting for %s" % what)
            self.transcript.append(line)
            try:
                rec = Record(line)
            except (MiSyntaxError, ValueError, IndexError) as e:
                self.transcript.append("    (unparsed: %s)" % e)
                continue
            if rec.kind == "~":
                self.console.append(rec.text)
            if predicate(rec):
                return rec

    def result(self, token, timeout=STEP_TIMEOUT):
        rec = self.read_until(lambda r: r.kind == "^" and r.token == token, timeout,
                              "the result of command %d" % token)
        return rec

    def stopped(self, timeout=STEP_TIMEOUT):
        return self.read_until(lambda r: r.kind == "*" and r.cls == "stopped", timeout,
                               "*stopped")


class MiFailure(Exception):
    pass


def quit_gdb(gdb, server, check, timeout):
    """Ends the session: -gdb-exit, then waits for gdb and for `serve --once`
    to exit. Returns the server's exit status (None if it did not exit)."""
    tok = gdb.send("-gdb-exit")
    gdb.result(tok)
    try:
        gdb.proc.wait(timeout)
    except subprocess.TimeoutExpired:
        check.fail("gdb did not exit after -gdb-exit")
    return server.wait(timeout)


def run_mi_test(name, description, session_fn, check_log=False):
    """The driver of a test that records a program and debugs it from gdb/MI
    against `backstep serve`: parses --backstep/--binary/--source, records,
    starts the server and gdb, runs session_fn(gdb, server, check,
    recorded_stdout), and reports. `check_log`: a divergence in the
    server's stderr fails the test too. Returns the exit status."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--backstep", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--tmp-root", default=tempfile.gettempdir())
    p.add_argument("--keep", action="store_true")
    opts = p.parse_args()
    if not gdbtest.gdb_available():
        print("FAIL: gdb is not installed")
        return 1
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="gdb-%s-" % name, dir=os.path.abspath(opts.tmp_root))
    check = gdbtest.Checker()
    transcript = []
    server = gdb = None
    try:
        trace, _, recorded = gdbtest.record(os.path.abspath(opts.backstep), opts.binary, opts.source,
                                            root)
        server = gdbtest.Server(os.path.abspath(opts.backstep), trace, root, once=True)
        print("serve: port %d" % server.port, flush=True)
        gdb = Gdb(["gdb", "-nx", "-q", "--interpreter=mi2"], root, gdbtest.gdb_env(root),
                  transcript)
        session_fn(gdb, server, check, recorded.stdout.decode())
    except (MiFailure, gdbtest.RecordError) as e:
        check.fail(str(e))
    except Exception:
        import traceback
        traceback.print_exc()
        check.fail("driver error")
    finally:
        if gdb is not None:
            if gdb.proc.poll() is None:
                gdbtest.kill_group(gdb.proc.pid)
            gdb.proc.wait()
        if server is not None:
            server.stop()
    if server is not None and check_log:
        log = server.stderr()
        check.expect("diverged" not in log, "serve reported a divergence:\n%s" % log)
    with open(os.path.join(root, "mi-transcript.txt"), "w") as f:
        f.write("\n".join(transcript) + "\n")
    if check.failures:
        print("---- MI transcript (last 150 lines) ----")
        print("\n".join(transcript[-150:]))
        if server is not None:
            print("---- serve stderr ----\n%s" % server.stderr())
        print("gdb.%s: %d check(s) failed; work directory kept: %s" % (name, len(check.failures), root))
        return 1
    if opts.keep:
        print("work directory kept: %s" % root)
    else:
        shutil.rmtree(root, ignore_errors=True)
    print("PASS gdb.%s" % name)
    return 0


def main():
    return run_mi_test("mi", __doc__.split("\n")[0], lambda gdb, server, check, _out: session(gdb, server, check))


def frame_text(stopped):
    f = stopped.results.get("frame", {})
    if not isinstance(f, dict):
        return repr(f)
    args = f.get("args", [])
    shown = ",".join("%s=%s" % (a.get("name"), a.get("value")) for a in args
                     if isinstance(a, dict))
    return "%s(%s) line %s" % (f.get("func"), shown, f.get("line"))


def session(gdb, server, check):
    def command(cmd, expect_class="done", timeout=STEP_TIMEOUT):
        tok = gdb.send(cmd)
        rec = gdb.result(tok, timeout)
        if rec.cls != expect_class:
            raise MiFailure("%s: expected ^%s, got %s" % (cmd, expect_class, rec.line))
        return rec

    def execute(cmd, reason, func=None, line=None, args=None, label=None):
        """Runs an -exec command; checks its ^running and *stopped records.
        reason None: a stop at the end of the recorded history (no reason
        field, and the console says "No more reverse-execution history.")."""
        label = label or cmd
        tok = gdb.send(cmd)
        rec = gdb.result(tok)
        if rec.cls != "running":
            raise MiFailure("%s: expected ^running, got %s" % (cmd, rec.line))
        st = gdb.stopped()
        got_reason = st.results.get("reason")
        print("%-32s -> *stopped reason=%s %s" % (label, got_reason, frame_text(st)), flush=True)
        if reason is None:
            check.expect(got_reason is None,
                         "%s: expected a *stopped with no reason (end of history), got %s" %
                         (label, st.line))
            console = "".join(gdb.console)
            check.expect("No more reverse-execution history." in console,
                         "%s: no \"No more reverse-execution history.\" on the console "
                         "stream before *stopped (console: %r)" % (label, console))
        else:
            check.expect(got_reason == reason, "%s: expected reason=\"%s\", got %s" %
                         (label, reason, st.line))
        frame = st.results.get("frame", {})
        if func is not None:
            check.expect(isinstance(frame, dict) and frame.get("func") == func,
                         "%s: expected frame func=\"%s\", got %s" % (label, func, st.line))
        if line is not None:
            check.expect(isinstance(frame, dict) and frame.get("line") == str(line),
                         "%s: expected frame line=\"%s\", got %s" % (label, line, st.line))
        if args is not None:
            got = {a.get("name"): a.get("value") for a in frame.get("args", [])
                   if isinstance(a, dict)} if isinstance(frame, dict) else {}
            check.expect(got == args, "%s: expected frame args %s, got %s" % (label, args, got))
        return st

    def evaluate(expr, value):
        rec = command("-data-evaluate-expression %s" % expr)
        got = rec.results.get("value")
        check.expect(got == value, "-data-evaluate-expression %s: expected %s, got %s" %
                     (expr, value, got))

    # What VS Code's cppdbg sends before connecting (its setupCommands
    # included), and CLion's async mode.
    command("-gdb-set confirm off")
    command("-gdb-set pagination off")
    command("-gdb-set target-async on")
    command("-enable-pretty-printing")
    command('-interpreter-exec console "set sysroot target:"')
    command("-gdb-set remotetimeout 10000")
    command("-target-select extended-remote 127.0.0.1:%d" % server.port, "connected")
    rec = command("-list-target-features")
    features = rec.results.get("features", [])
    print("-list-target-features -> %s" % features, flush=True)
    check.expect("reverse" in features,
                 "-list-target-features: \"reverse\" missing from %s" % rec.line)

    rec = command("-break-insert scale")
    bkpt = rec.results.get("bkpt", {})
    check.expect(bkpt.get("number") == "1" and bkpt.get("line") == "9",
                 "-break-insert scale: expected breakpoint 1 at line 9, got %s" % rec.line)

    # The expected stops are those of gdb's own reverse execution ("record
    # full") for the same commands.
    execute("-exec-continue", "breakpoint-hit", "scale", 9, {"v": "1"})
    execute("-exec-continue", "breakpoint-hit", "scale", 9, {"v": "2"})
    execute("-exec-continue", "breakpoint-hit", "scale", 9, {"v": "3"})
    evaluate("total", "9")
    execute("-exec-continue --reverse", "breakpoint-hit", "scale", 9, {"v": "2"})
    evaluate("total", "3")
    # Out of scale to its call in accumulate (mid-line), then the start of
    # that line, then back into main at the call of accumulate.
    execute("-exec-finish --reverse", "end-stepping-range", "accumulate", 14, {"v": "2"})
    execute("-exec-step --reverse", "end-stepping-range", "accumulate", 14, {"v": "2"})
    execute("-exec-step --reverse", "end-stepping-range", "main", 19)
    evaluate("i", "2")
    execute("-exec-next --reverse", "end-stepping-range", "main", 18)
    evaluate("i", "1")
    # Back over accumulate(1): the breakpoint in scale inside it stops it.
    execute("-exec-next --reverse", "breakpoint-hit", "scale", 9, {"v": "1"})
    execute("-exec-next", "end-stepping-range", "scale", 10, {"v": "1"})
    evaluate("r", "3")
    execute("-exec-next --reverse", "breakpoint-hit", "scale", 9, {"v": "1"})
    # Into the prologue, where v is not stored yet: its value is not checked.
    execute("-exec-next-instruction --reverse", "end-stepping-range", "scale", 8)
    execute("-exec-next-instruction", "breakpoint-hit", "scale", 9, {"v": "1"})
    evaluate("total", "0")
    # Without breakpoints: back to the start, then forward to the end, then
    # the exit.
    command("-break-delete 1")
    execute("-exec-continue --reverse", None, label="-exec-continue --reverse (to start)")
    execute("-exec-continue", None, label="-exec-continue (to the end)")
    execute("-exec-continue --reverse", None, label="-exec-continue --reverse (again)")
    execute("-exec-continue", None, label="-exec-continue (to the end again)")
    # The IDEs' restart: -exec-run from the end starts the replay over, and
    # it runs to the first breakpoint hit again.
    command("-break-insert scale")
    execute("-exec-run", "breakpoint-hit", "scale", 9, {"v": "1"})
    evaluate("total", "0")
    command("-break-delete 2")
    execute("-exec-continue", None, label="-exec-continue (to the end after the restart)")
    execute("-exec-continue", "exited-normally", label="-exec-continue (exit)")

    rc = quit_gdb(gdb, server, check, STEP_TIMEOUT)
    check.expect(rc is not None, "backstep serve --once did not exit after its client left")
    check.expect(rc in (None, 0), "backstep serve --once exited with status %s; stderr:\n%s" %
                 (rc, server.stderr()))


if __name__ == "__main__":
    sys.exit(main())
