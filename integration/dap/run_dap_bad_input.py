#!/usr/bin/env python3
"""`backstep dap` given bad input: each gets a clear answer, nothing hangs.

Usage:
  run_dap_bad_input.py --backstep PATH --binary PATH --source PATH [--tmp-root DIR]

Over stdin/stdout, with a recording of the program (binary deleted):
  - a header whose Content-Length is not a number: exit status 125 and the
    reason on stderr (the stream cannot be trusted after it);
  - a body that is not JSON: an `output` event says it was ignored, and
    the next request is answered;
  - an unknown request, a launch of a trace that does not exist, a launch
    with a gdb that does not exist, one with a gdb that exits at once: each
    a failed response whose message says why; then a launch that works, on
    the same adapter;
  - the client's input ending without `disconnect`, while stopped: the
    adapter exits 0 and leaves no process behind.

Exit status: 0 pass, 1 fail, 2 usage error.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gdb"))
import gdbtest  # noqa: E402

TIMEOUT = 60


def frame(message):
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(seq, command, arguments=None):
    return frame({"seq": seq, "type": "request", "command": command, "arguments": arguments or {}})


def messages(stream):
    """The DAP messages in `stream` (bytes), in order."""
    out = []
    while stream:
        head, sep, rest = stream.partition(b"\r\n\r\n")
        if not sep:
            raise ValueError("a partial header at the end: %r" % stream[:80])
        length = int(head.split(b":", 1)[1])
        out.append(json.loads(rest[:length]))
        stream = rest[length:]
    return out


def response(msgs, seq):
    for m in msgs:
        if m.get("type") == "response" and m.get("request_seq") == seq:
            return m
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backstep", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--tmp-root", default=tempfile.gettempdir())
    opts = p.parse_args()
    backstep = os.path.abspath(opts.backstep)
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="dap-bad-", dir=os.path.abspath(opts.tmp_root))
    check = gdbtest.Checker()
    trace, _, _ = gdbtest.record(backstep, opts.binary, opts.source, root)
    env = gdbtest.gdb_env(root)

    def adapter(stdin):
        return subprocess.run([backstep, "dap", trace], input=stdin, capture_output=True, env=env, cwd=root,
                              timeout=TIMEOUT)

    print("-- a Content-Length that is not a number")
    r = adapter(b"Content-Length: 12x\r\n\r\n{}")
    check.expect(r.returncode == 125, "exit status %d, expected 125" % r.returncode)
    check.expect(b"the client's stream is broken: DAP message Content-Length is not a decimal number" in r.stderr,
                 "stderr: %r" % r.stderr)

    print("-- not JSON, an unknown request, launches that cannot work, one that does, then EOF")
    stdin = (request(1, "initialize") + b"Content-Length: 3\r\n\r\nabc" + request(2, "frobnicate") +
             request(3, "launch", {"trace": os.path.join(root, "no-such-trace")}) +
             request(4, "launch", {"trace": trace, "gdbPath": os.path.join(root, "no-such-gdb")}) +
             request(7, "launch", {"trace": trace, "gdbPath": "/bin/false"}) +
             request(5, "launch", {"trace": trace}) + request(6, "threads"))
    r = adapter(stdin)
    check.expect(r.returncode == 0, "exit status %d after EOF, expected 0; stderr %r" % (r.returncode, r.stderr))
    msgs = messages(r.stdout)
    ignored = [m for m in msgs if m.get("event") == "output" and "not JSON" in m["body"]["output"]]
    check.expect(len(ignored) == 1, "one output event for the body that is not JSON: %r" % msgs)
    expected = {
        2: "backstep dap does not handle the request 'frobnicate'",
        3: "no trace at '%s'" % os.path.join(root, "no-such-trace"),
        4: "gdb has exited: cannot start %s: No such file or directory" % os.path.join(root, "no-such-gdb"),
    }
    # A gdb that exits at once, saying nothing: whether its input is closed
    # when the first command is written or its output ends first, the same
    # answer (a race the CI once lost with "cannot write to gdb").
    expected[7] = "gdb has exited"
    for seq, text in expected.items():
        m = response(msgs, seq)
        check.expect(m is not None and m["success"] is False and m["message"].startswith(text),
                     "request %d: expected a failure starting %r, got %r" % (seq, text, m))
    launched = response(msgs, 5)
    check.expect(launched is not None and launched["success"] is True, "the third launch: %r" % launched)
    threads = response(msgs, 6)
    check.expect(threads is not None and len(threads["body"]["threads"]) == 1,
                 "one thread at the start of the recording: %r" % threads)
    # Nothing is left: no gdb, no replayed process (they were the adapter's
    # children, and would be reparented; look for the trace in command lines).
    left = subprocess.run(["pgrep", "-f", trace], capture_output=True, text=True).stdout.split()
    check.expect(not left, "processes left behind: %s" % left)

    if check.failures:
        print("dap.bad_input: %d check(s) failed; work directory kept: %s" % (len(check.failures), root))
        return 1
    shutil.rmtree(root, ignore_errors=True)
    print("PASS dap.bad_input")
    return 0


if __name__ == "__main__":
    sys.exit(main())
