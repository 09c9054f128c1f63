#!/usr/bin/env python3
"""lldb-dap (22) against `backstep serve`, driven over the Debug Adapter
Protocol by a small client, as VS Code would: initialize, attach through
gdb-remote, setBreakpoints, configurationDone (which resumes to the breakpoint),
continue to its second hit,
stackTrace, scopes, variables, next, the debug console's
`process continue --reverse` back to the breakpoint, and disconnect.

  run_lldb_dap.py --backstep PATH --binary PATH --source PATH --tmp-root DIR

The program (integration/gdb/programs/mi_target.c) is recorded and its binary
deleted; lldb-dap gets a copy of the trace's."""
import argparse
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gdb"))
import gdbtest  # noqa: E402

TIMEOUT = 60


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


class Dap:
    """One lldb-dap process: requests by sequence number, events queued."""

    def __init__(self, argv, root):
        self.proc = subprocess.Popen(argv, cwd=root, env=gdbtest.base_env(root), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=open(os.path.join(root, "dap.log"), "wb"))
        self.seq = 0
        self.messages = queue.Queue()
        self.pending = []  # messages read while waiting for another
        self.transcript = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                m = re.match(rb"Content-Length: (\d+)", line)
                if m:
                    length = int(m.group(1))
            body = out.read(length)
            self.messages.put(json.loads(body))

    def send(self, command, arguments=None):
        self.seq += 1
        msg = {"seq": self.seq, "type": "request", "command": command}
        if arguments is not None:
            msg["arguments"] = arguments
        data = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.proc.stdin.flush()
        self.transcript.append("-> " + json.dumps(msg))
        return self.seq

    def _next(self):
        try:
            msg = self.messages.get(timeout=TIMEOUT)
        except queue.Empty:
            raise Failure("lldb-dap sent nothing for %d s" % TIMEOUT)
        if msg is None:
            raise Failure("lldb-dap exited")
        self.transcript.append("<- " + json.dumps(msg)[:400])
        return msg

    def wait(self, pred, what):
        for i, msg in enumerate(self.pending):
            if pred(msg):
                del self.pending[i]
                return msg
        while True:
            msg = self._next()
            if pred(msg):
                return msg
            self.pending.append(msg)

    def response(self, seq, command):
        msg = self.wait(lambda m: m.get("type") == "response" and m.get("request_seq") == seq, command)
        check(msg.get("success"), "%s failed: %s" % (command, msg.get("message")))
        return msg

    def request(self, command, arguments=None):
        return self.response(self.send(command, arguments), command)

    def event(self, name, pred=lambda m: True):
        return self.wait(lambda m: m.get("type") == "event" and m.get("event") == name and pred(m), name)

    def forget_events(self, name):
        """Drops the `name` events read so far (the next one is awaited)."""
        self.pending = [m for m in self.pending if not (m.get("type") == "event" and m.get("event") == name)]

    def close(self):
        try:
            self.proc.kill()
        except ProcessLookupError:
            pass
        self.proc.wait()


def top_frame(dap, thread):
    frames = dap.request("stackTrace", {"threadId": thread, "startFrame": 0, "levels": 5})["body"]["stackFrames"]
    check(frames, "an empty stack")
    return frames[0]


def local(dap, frame, name):
    scopes = dap.request("scopes", {"frameId": frame["id"]})["body"]["scopes"]
    for scope in scopes:
        if scope["name"].lower().startswith("local"):
            for v in dap.request("variables", {"variablesReference": scope["variablesReference"]})["body"]["variables"]:
                if v["name"] == name:
                    return v["value"]
    raise Failure("no local %s in %s" % (name, frame["name"]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--backstep", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--tmp-root", required=True)
    opts = p.parse_args()
    backstep = os.path.abspath(opts.backstep)
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="dap-", dir=opts.tmp_root)
    dap = server = None
    try:
        program = os.path.join(root, "mi_target")
        shutil.copy(opts.binary, program)
        trace = os.path.join(root, "trace")
        r = subprocess.run([backstep, "record", "-o", trace, program], cwd=root, env=gdbtest.base_env(root),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        check(r.returncode == 0, "record: %s" % r.stderr.decode(errors="replace"))
        os.unlink(program)
        # The configuration `backstep ide vscode` writes, and its program copy.
        r = subprocess.run([backstep, "ide", "vscode", "--output", os.path.join(root, "ws"), trace], cwd=root,
                           env=gdbtest.base_env(root), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
        check(r.returncode == 0, "ide vscode: %s" % r.stderr.decode(errors="replace"))
        with open(os.path.join(root, "ws", "launch.json")) as f:
            config = [c for c in json.load(f)["configurations"] if c["type"] == "lldb-dap"][0]

        server = gdbtest.Server(backstep, trace, root, once=True)
        dap = Dap([gdbtest.lldb_dap_program()], root)
        dap.request("initialize", {"clientID": "backstep-test", "adapterID": "lldb-dap", "linesStartAt1": True,
                                   "columnsStartAt1": True, "pathFormat": "path"})
        attach = dap.send("attach", {"program": config["program"], "gdb-remote-port": server.port,
                                     "gdb-remote-hostname": "127.0.0.1", "initCommands": config["initCommands"]})
        dap.event("initialized")
        bps = dap.request("setBreakpoints", {"source": {"path": os.path.abspath(opts.source)},
                                             "breakpoints": [{"line": 9}]})["body"]["breakpoints"]
        check(len(bps) == 1, "one breakpoint: %r" % bps)
        dap.request("configurationDone")
        dap.response(attach, "attach")
        threads = dap.request("threads")["body"]["threads"]
        check(threads, "no threads")
        thread = threads[0]["id"]

        # After configurationDone, lldb-dap resumes the attached process
        # itself (no stopOnEntry): the next stop is the breakpoint.
        stop = dap.event("stopped", lambda m: m["body"].get("reason") == "breakpoint")
        thread = stop["body"].get("threadId", thread)
        frame = top_frame(dap, thread)
        check(frame["name"].startswith("scale") and frame["line"] == 9, "stopped at %r" % frame)
        check(local(dap, frame, "v") == "1", "v = 1 at the first hit")

        dap.forget_events("stopped")
        dap.request("continue", {"threadId": thread})
        dap.event("stopped", lambda m: m["body"].get("reason") == "breakpoint")
        frame = top_frame(dap, thread)
        check(frame["name"].startswith("scale") and frame["line"] == 9, "continue stops at %r" % frame)
        check(local(dap, frame, "v") == "2", "v = 2 at the second hit")

        dap.forget_events("stopped")
        dap.request("next", {"threadId": thread})
        dap.event("stopped", lambda m: m["body"].get("reason") == "step")
        frame = top_frame(dap, thread)
        check(frame["line"] == 10, "next goes to line 10: %r" % frame)
        check(local(dap, frame, "r") == "6", "r = 6 after the next")

        # The debug console: reverse back to the breakpoint (lldb-dap has no
        # stepBack; `process continue --reverse` is lldb's own command).
        dap.forget_events("stopped")
        dap.request("evaluate", {"expression": "`process continue --reverse", "context": "repl"})
        dap.event("stopped", lambda m: m["body"].get("reason") == "breakpoint")
        frame = top_frame(dap, thread)
        check(frame["name"].startswith("scale") and frame["line"] == 9, "reverse to the breakpoint: %r" % frame)
        check(local(dap, frame, "v") == "2", "v = 2 back at the breakpoint")

        dap.request("disconnect", {"terminateDebuggee": True})
        print("PASS: lldb-dap session")
        return 0
    except Failure as e:
        print("FAIL: %s" % e)
        if dap:
            print("\n".join(dap.transcript[-40:]))
        print("work directory kept: %s" % root)
        return 1
    finally:
        if dap:
            dap.close()
        if server:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
