#!/usr/bin/env python3
"""Writes fuzz/corpus/session/: the requests real gdb sessions send.

  make_session_seeds.py --backstep build/bin/backstep \
      --target build-fuzz/session_target --out fuzz/corpus/session

Records the target with `backstep record`, serves the trace with
`backstep serve`, and runs a few gdb sessions (breakpoints and reverse
execution, watchpoints, stepping, checkpoints and restarts, files and
threads) through a proxy that keeps what gdb sends. Each session becomes
one seed: its packets' payloads, one a line, as session_fuzz reads them;
"bounds" holds requests that once cost the server memory or its session.
Run it again after a change to session_target.c (its addresses are in the
seeds), and commit the result.
"""
import argparse
import os
import re
import select
import socket
import subprocess
import sys
import tempfile
import threading

SESSIONS = {
    "breakpoints": ["break bump", "continue", "continue", "continue", "reverse-continue",
                    "info registers rip", "print counter", "x/8gx &values", "reverse-continue",
                    "delete", "continue"],
    "watchpoints": ["watch counter", "continue", "continue", "reverse-continue", "delete",
                    "awatch values[2]", "continue", "reverse-continue", "delete",
                    "watch values", "continue"],
    "stepping": ["break bump", "continue", "stepi", "stepi", "reverse-stepi", "next", "reverse-next",
                 "finish", "reverse-finish", "info frame"],
    "checkpoints": ["break bump", "continue", "monitor checkpoint", "continue", "monitor info checkpoints",
                    "monitor when", "run c1", "monitor delete checkpoint 1", "monitor checkpoint-stats"],
    "files_threads": ["info threads", "info proc", "info sharedlibrary", "catch syscall write", "continue",
                      "continue", "reverse-continue", "info signals SIGUSR1", "kill"],
}


# Requests that once cost the server memory or its session, in the order a
# client could send them (gdb.malformed_packets has each with its reply):
# written as they are, not captured.
BOUNDS = ["qSupported:multiprocess+;swbreak+;hwbreak+", "?", "Z2,1,ffffffff", "Z4,1000,ffffffffffffffff",
          "Z2,8000000000000000,8", "Z1,8000000000000000,1", "Z0,ffffffffffffffff,1", "c",
          "m401000,100000000", "qXfer:features:read:target.xml:0,ffffffffffffffff",
          "qXfer:threads:read::0,ffffffffffffffff", "vFile:pread:0,ffffffffffff,0", "bc"]


class Proxy:
    """Forwards one client to the server; keeps what the client sent."""

    def __init__(self, server_port):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]
        self.server_port = server_port
        self.sent = bytearray()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        client, _ = self.listener.accept()
        server = socket.create_connection(("127.0.0.1", self.server_port))
        ends = {client: server, server: client}
        while ends:
            ready, _, _ = select.select(list(ends), [], [], 60)
            if not ready:
                break
            for s in ready:
                data = s.recv(65536)
                if not data:
                    ends = {}
                    break
                if s is client:
                    self.sent += data
                ends[s].sendall(data)
        client.close()
        server.close()


def payloads(stream):
    """The payloads of the '$...#xx' packets in `stream`, escapes undone."""
    out = []
    for m in re.finditer(rb"\$([^#]*)#[0-9a-fA-F]{2}", bytes(stream)):
        raw, data, i = m.group(1), bytearray(), 0
        while i < len(raw):
            if raw[i] == 0x7D and i + 1 < len(raw):
                data.append(raw[i + 1] ^ 0x20)
                i += 2
            else:
                data.append(raw[i])
                i += 1
        out.append(bytes(data))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backstep", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--out", required=True)
    opts = ap.parse_args()
    work = tempfile.mkdtemp(prefix="session-seeds-")
    trace = os.path.join(work, "trace")
    subprocess.run([opts.backstep, "record", "-o", trace, "--", opts.target], check=True,
                   stdout=subprocess.DEVNULL)
    os.makedirs(opts.out, exist_ok=True)
    for name, commands in SESSIONS.items():
        server = subprocess.Popen([opts.backstep, "serve", "--once", "--port", "0", trace],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        port = int(re.search(r"(\d+)\s*$", server.stdout.readline()).group(1))
        proxy = Proxy(port)
        argv = ["gdb", "-batch", "-nx", "-q", "-ex", "set confirm off", "-ex", "set pagination off",
                "-ex", "target extended-remote 127.0.0.1:%d" % proxy.port]
        for c in commands:
            argv += ["-ex", c]
        subprocess.run(argv + [opts.target], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        proxy.thread.join(timeout=10)
        server.terminate()
        server.wait()
        lines = [p for p in payloads(proxy.sent) if b"\n" not in p]
        with open(os.path.join(opts.out, name), "wb") as f:
            f.write(b"\n".join(lines) + b"\n")
        print("%s: %d packets" % (name, len(lines)))
    with open(os.path.join(opts.out, "bounds"), "w") as f:
        f.write("\n".join(BOUNDS) + "\n")
    subprocess.run(["rm", "-rf", work])
    return 0


if __name__ == "__main__":
    sys.exit(main())
