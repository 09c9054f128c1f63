#!/usr/bin/env python3
"""`backstep serve` under several clients and abuse, one subtest at a time.

Usage:
  run_server_clients.py --backstep PATH --binary PATH --source programs/mi_target.c \\
                        --subtest NAME
  run_server_clients.py --list

Each subtest records the program (its binary then deleted), starts its own
`backstep serve --port 0 [OPTIONS] TRACE` and talks to it with real gdb 13
sessions and raw sockets (the RawClient of run_malformed_packets.py):

  two_gdbs    gdb A stops at a breakpoint and holds its session open (it
              waits on a FIFO) while gdb B runs a whole session of its own;
              then A goes on. Both see the right values: each client has its
              own replay.
  slow_loris  a client that sends one byte of a packet every half second
              (--packet-timeout 600, so it stays) must not delay a gdb
              session; afterwards the slow client finishes its packet and
              is answered too.
  refusal     with the default --max-clients (4), four clients are served;
              a fifth gets '+' and an "E.<why>" reply, then the server
              closes it; gdb as a fifth client shows the reason; the
              server's stderr says so. When one client leaves (its process
              is gone), a new client is served again.
  timeouts    --packet-timeout 1 --idle-timeout 3: a client stopped in the
              middle of a packet and a client idle between packets are both
              closed by the server (the test waits for the sockets to
              close, never for a time), with the reason on stderr, and all
              of the server's replay processes are gone afterwards.
  limits      one client: 64 vFile handles, the 65th open gets F-1,18
              (EMFILE) and closing one makes room; 64 `monitor checkpoint`,
              the 65th is refused (console text, then E18), deleting one
              makes room; a packet over PacketSize gets E18 in no-ack mode;
              the session answers after each.
  other_user  (root only) gdb run as uid 65534 (setpriv) is refused: gdb
              shows the reason, serve's stderr names the uid, no replay
              starts; root's own clients are served.
  unix_socket (root only) `serve --unix PATH`: the socket is 0600; made
              0666 by the test, uid 65534's gdb is still refused (SO_PEERCRED)
              while root's gdb is served through it; SIGTERM removes it.
  remote_flag --host 0.0.0.0 without --allow-remote exits 2 saying why;
              with it, serve warns that anyone who reaches the port can run
              code and recommends an ssh tunnel; --host localhost needs no flag.
  silent      --max-clients 2: three connections that never send a packet
              start no replay and hold no slot (a gdb session is served
              meanwhile), and the server closes each within its first-packet
              limit (the test waits for the close, with a generous bound).
  per_peer    --max-clients 1: one peer may hold 1 + 8 connections; the
              tenth is refused with the reason; once the silent ones are
              dropped, the peer is served again.

Exit status: 0 pass, 1 fail, 2 usage error, 77 skipped (printed why).
"""

import argparse
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest  # noqa: E402
from run_malformed_packets import RawClient, ProtocolError, crash_markers, frame  # noqa: E402

WAIT = 60  # seconds: the most any awaited event may take before the test fails
NOBODY = 65534
SKIPPED = 77


class Skip(Exception):
    """The subtest cannot run here; the message says why."""


def hexs(text):
    return text.encode().hex()


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


def children(pid):
    out = []
    try:
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def wait_until(predicate, what):
    """Polls an observable state (process lists) until it holds; the
    deadline only turns a hang into a failure."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    raise ProtocolError("still not the case after %d s: %s" % (WAIT, what))


def wait_closed(client, what):
    """Blocks until the server closes the client's socket (EOF or reset);
    returns whatever arrived before."""
    client.sock.settimeout(WAIT)
    got = bytearray()
    try:
        while True:
            chunk = client.sock.recv(65536)
            if not chunk:
                return bytes(got)
            got += chunk
    except ConnectionResetError:
        return bytes(got)
    except socket.timeout:
        raise ProtocolError("%s: the server did not close the connection within %d s" % (what, WAIT))


def gdb_argv(port, commands):
    argv = ["gdb", "-batch", "-nx", "-q"]
    for cmd in ["set pagination off", "set confirm off", "set width 0", "set sysroot target:",
                "set filename-display basename", "set debuginfod enabled off",
                "target extended-remote 127.0.0.1:%d" % port] + commands:
        argv += ["-ex", cmd]
    return argv


def run_gdb(ctx, port, commands, label):
    res = gdbtest.run(gdb_argv(port, commands), ctx.root, gdbtest.gdb_env(ctx.root), None, WAIT,
                      merged=True)
    out = res.stdout.decode("utf-8", "replace")
    with open(os.path.join(ctx.root, label + ".txt"), "w") as f:
        f.write(out)
    print("%s: %s in %.2f s" % (label, res.describe(), res.elapsed), flush=True)
    return res, out


def hits(out):
    return re.findall(r"^Breakpoint 1, scale \(v=(\d)\) at mi_target\.c:9$", out, re.M)


def monitor(client, command):
    """qRcmd: (console text, final reply)."""
    client.send(frame("qRcmd," + hexs(command)))
    if not client.no_ack and client.ack() != b"+":
        raise ProtocolError("qRcmd %s: no '+'" % command)
    text = ""
    while True:
        reply = client.read_packet()
        if reply.startswith("O") and reply != "OK":
            text += bytes.fromhex(reply[1:]).decode()
            continue
        return text, reply


class Context:
    def __init__(self, opts, root):
        self.opts = opts
        self.root = root
        self.check = gdbtest.Checker()
        self.log = []
        self.servers = []
        self.trace = None

    def record(self):
        if self.trace is None:
            self.trace, _, _ = gdbtest.record(os.path.abspath(self.opts.backstep), self.opts.binary,
                                              self.opts.source, self.root)
        return self.trace

    def serve(self, *extra, listen=("--port", "0")):
        self.record()
        server = gdbtest.Server(os.path.abspath(self.opts.backstep), self.trace, self.root,
                                once=False, log_name="serve%d" % len(self.servers),
                                extra_args=extra, listen=listen)
        self.servers.append(server)
        print("serve %s: %s" % (" ".join(list(listen) + list(extra)), server.path or server.port),
              flush=True)
        return server

    def client(self, server):
        return RawClient(server.port, self.log)

    def served(self, server, label):
        """A raw client that has been answered (so it holds a session)."""
        c = self.client(server)
        reply = c.request("?")
        if not reply.startswith("T"):
            raise ProtocolError("%s: '?' got %r" % (label, reply))
        return c


# --------------------------------------------------------------------------


def t_two_gdbs(ctx):
    server = ctx.serve()
    ready, go = os.path.join(ctx.root, "a-ready"), os.path.join(ctx.root, "a-go")
    os.mkfifo(ready)
    os.mkfifo(go)
    a_cmds = ["break scale", "continue", "print v",
              "shell echo stopped > %s" % ready, "shell head -c1 %s > /dev/null" % go,
              "continue", "reverse-continue", "print v", "print total"]
    a = subprocess.Popen(gdb_argv(server.port, a_cmds), cwd=ctx.root, env=gdbtest.gdb_env(ctx.root),
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    released = threading.Event()

    def release_a():
        # Opening the FIFO for writing waits for A's reader; in a thread so
        # that a dead A cannot hang the test.
        with open(go, "w") as f:
            f.write("x")
        released.set()

    try:
        fd = os.open(ready, os.O_RDONLY | os.O_NONBLOCK)
        import select
        readable, _, _ = select.select([fd], [], [], WAIT)
        os.close(fd)
        if not ctx.check.expect(bool(readable), "gdb A never reached its breakpoint"):
            return
        # A holds its session, stopped at scale(v=1). B debugs meanwhile.
        res, out = run_gdb(ctx, server.port, ["break scale", "continue", "continue", "continue",
                                               "reverse-continue", "print v", "print total"],
                           "gdb-B")
        ok = ctx.check.expect(not res.timed_out and res.returncode == 0,
                              "gdb B, while A is connected: %s" % res.describe())
        ok &= ctx.check.expect(hits(out) == ["1", "2", "3", "2"],
                               "gdb B: expected hits at v=1, 2, 3, then 2 going back; got %s" %
                               hits(out))
        ok &= ctx.check.expect(re.search(r"^\$1 = 2\n\$2 = 3$", out, re.M) is not None,
                               "gdb B: expected $1 = 2 and $2 = 3 (its own replay)")
        if not ok:
            print("---- gdb B ----\n%s" % out)
    finally:
        threading.Thread(target=release_a, daemon=True).start()
        released.wait(WAIT)
        try:
            out_a = a.communicate(timeout=WAIT)[0].decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            gdbtest.kill_group(a.pid)
            out_a = a.communicate()[0].decode("utf-8", "replace")
            ctx.check.fail("gdb A did not finish after being released")
    with open(os.path.join(ctx.root, "gdb-A.txt"), "w") as f:
        f.write(out_a)
    ok = ctx.check.expect(a.returncode == 0, "gdb A: exit status %s" % a.returncode)
    ok &= ctx.check.expect(hits(out_a) == ["1", "2", "1"],
                           "gdb A: expected hits at v=1, 2, then 1 going back; got %s" % hits(out_a))
    ok &= ctx.check.expect(re.search(r"^\$1 = 1\n", out_a, re.M) is not None and
                           re.search(r"^\$2 = 1\n\$3 = 0$", out_a, re.M) is not None,
                           "gdb A: expected $1 = 1, then $2 = 1 and $3 = 0 after going back")
    if not ok:
        print("---- gdb A ----\n%s" % out_a)


def t_slow_loris(ctx):
    server = ctx.serve("--packet-timeout", "600")
    loris = ctx.served(server, "the slow client")
    # Long enough that, at this pace, it outlasts the gdb session by far.
    packet = frame("qSupported:" + ";".join("feature%d+" % i for i in range(40)))
    stop = threading.Event()
    sent = [0]

    def dribble():
        # One byte, then a pause: the pace of the attack, not a synchronisation.
        while sent[0] < len(packet) - 1 and not stop.wait(0.5):
            loris.sock.sendall(packet[sent[0]:sent[0] + 1])
            sent[0] += 1

    t = threading.Thread(target=dribble, daemon=True)
    t.start()
    try:
        res, out = run_gdb(ctx, server.port, ["break scale", "continue", "continue",
                                               "reverse-continue", "print total"], "gdb")
        bytes_then = sent[0]
    finally:
        stop.set()
        t.join()
    ok = ctx.check.expect(not res.timed_out and res.returncode == 0,
                          "gdb beside a slow client: %s" % res.describe())
    ok &= ctx.check.expect(hits(out) == ["1", "2", "1"] and "$1 = 0" in out,
                           "gdb beside a slow client: expected hits 1, 2, 1 and $1 = 0; got %s" %
                           hits(out))
    if not ok:
        print("---- gdb ----\n%s" % out)
    ctx.check.expect(bytes_then < len(packet) - 1,
                     "the slow client had sent its whole packet before gdb was done")
    # The slow client was served all along: its packet, finished, is answered.
    loris.sock.sendall(packet[sent[0]:])
    loris.ack()
    reply = loris.read_packet()
    ctx.check.expect("PacketSize=" in reply, "the slow client's qSupported got %r" % reply[:80])
    loris.close()


def t_refusal(ctx):
    server = ctx.serve()
    held = [ctx.served(server, "client %d" % (i + 1)) for i in range(4)]
    fifth = ctx.client(server)
    fifth.send(frame("qSupported:multiprocess+"))
    ctx.check.expect(fifth.ack() == b"+", "the fifth client's packet was not acknowledged")
    reply = fifth.read_packet()
    ctx.check.expect(reply.startswith("E.") and "--max-clients" in reply and "busy" in reply,
                     "the fifth client got %r, expected E.<why>" % reply)
    rest = wait_closed(fifth, "the fifth client")
    ctx.check.expect(rest == b"", "after the refusal the fifth client got %r" % rest[:80])
    fifth.close()
    res, out = run_gdb(ctx, server.port, ["info registers rip"], "gdb-refused")
    ok = ctx.check.expect(re.search(r"Remote failure reply: E\.backstep serve is busy.*--max-clients",
                                    out) is not None,
                          "gdb as a fifth client does not show why it was refused")
    if not ok:
        print("---- gdb ----\n%s" % out)
    ctx.check.expect("refused a client" in server.stderr(), "serve's stderr does not mention the "
                     "refusal:\n%s" % server.stderr()[-2000:])
    # The four are still served.
    for i, c in enumerate(held):
        ctx.check.expect(c.request("qC").startswith("QC"), "client %d no longer answers" % (i + 1))
    # One leaves; once its process is gone, a newcomer is served.
    held.pop(0).close()
    wait_until(lambda: len(children(server.proc.pid)) == 3, "three client processes left")
    newcomer = ctx.served(server, "a client after one left")
    newcomer.close()
    for c in held:
        c.close()


def t_timeouts(ctx):
    server = ctx.serve("--packet-timeout", "1", "--idle-timeout", "3")
    half = ctx.served(server, "the half-packet client")  # client 1
    idle = ctx.served(server, "the idle client")          # client 2
    ctx.check.expect(len(descendants(server.proc.pid)) >= 2,
                     "no replay processes while two clients are served")
    half.send(b"$m1000,4")
    rest = wait_closed(half, "a client stopped in the middle of a packet")
    ctx.check.expect(rest == b"", "the half-packet client got %r" % rest[:80])
    rest = wait_closed(idle, "a client idle between packets")
    ctx.check.expect(rest == b"", "the idle client got %r" % rest[:80])
    half.close()
    idle.close()
    # Their sessions are gone: no process of the server's is left.
    wait_until(lambda: descendants(server.proc.pid) == [], "the dropped clients' replays ended")
    err = server.stderr()
    ctx.check.expect(re.search(r"dropped client 1: a packet unfinished after 1 s", err) is not None,
                     "serve's stderr does not say why client 1 was dropped:\n%s" % err[-2000:])
    ctx.check.expect(re.search(r"dropped client 2: no request for 3 s", err) is not None,
                     "serve's stderr does not say why client 2 was dropped:\n%s" % err[-2000:])
    # And the server goes on.
    ctx.served(server, "a client after the drops").close()


def t_limits(ctx):
    server = ctx.serve()
    c = ctx.served(server, "the client")
    exe = c.request("qXfer:exec-file:read::0,1000")
    if not ctx.check.expect(exe.startswith("l/"), "qXfer:exec-file got %r" % exe):
        return
    path = exe[1:]

    def open_exe():
        return c.request("vFile:open:%s,0,0" % hexs(path))

    handles = [open_exe() for _ in range(64)]
    ctx.check.expect(all(re.match(r"^F[0-9a-f]+$", h) for h in handles),
                     "the first 64 vFile opens: %s" % sorted(set(handles))[:5])
    ctx.check.expect(open_exe() == "F-1,18", "the 65th vFile open was not refused with EMFILE")
    ctx.check.expect(c.request("vFile:close:%s" % handles[0][1:]) == "F0", "vFile:close failed")
    ctx.check.expect(re.match(r"^F[0-9a-f]+$", open_exe()) is not None,
                     "no vFile open after closing one")

    for i in range(64):
        text, final = monitor(c, "checkpoint")
        if not ctx.check.expect(final == "OK" and text.startswith("Checkpoint %d " % (i + 1)),
                                "checkpoint %d: %r, %r" % (i + 1, text, final)):
            return
    text, final = monitor(c, "checkpoint")
    ctx.check.expect(final == "E18" and "Too many checkpoints" in text,
                     "the 65th checkpoint: %r, %r; expected a refusal" % (text, final))
    text, final = monitor(c, "delete checkpoint 1")
    ctx.check.expect(final == "OK", "delete checkpoint 1: %r" % final)
    text, final = monitor(c, "checkpoint")
    ctx.check.expect(final == "OK" and text.startswith("Checkpoint 65 "),
                     "a checkpoint after deleting one: %r, %r" % (text, final))

    ctx.check.expect(c.request("QStartNoAckMode") == "OK", "QStartNoAckMode")
    c.no_ack = True
    c.send(frame(b"qZ" + b"A" * 0x20010))
    ctx.check.expect(c.read_packet() == "E18", "a packet over PacketSize in no-ack mode")
    ctx.check.expect(c.request("qC").startswith("QC"), "qC after the limits")
    c.close()


def need_root():
    if os.geteuid() != 0:
        raise Skip("needs root, to run a client as another user (uid %d)" % NOBODY)
    if not shutil.which("setpriv"):
        raise Skip("setpriv (util-linux) is not installed")


def gdb_as_nobody(ctx, target, label):
    """gdb, run as uid 65534, connecting to `target`; its output."""
    argv = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups",
            "gdb", "-batch", "-nx", "-q", "-ex", "set debuginfod enabled off",
            "-ex", "target extended-remote " + target, "-ex", "info registers rip"]
    env = dict(gdbtest.gdb_env(ctx.root), HOME="/")
    res = gdbtest.run(argv, "/", env, None, WAIT, merged=True)
    out = res.stdout.decode("utf-8", "replace")
    with open(os.path.join(ctx.root, label + ".txt"), "w") as f:
        f.write(out)
    print("%s: %s" % (label, res.describe()), flush=True)
    return out


REFUSED_REPLY = "Remote failure reply: E.backstep serve refused the connection: it runs as uid %d, " \
    "this server serves only uid 0 (its owner)" % NOBODY


def t_other_user(ctx):
    need_root()
    server = ctx.serve()
    out = gdb_as_nobody(ctx, "127.0.0.1:%d" % server.port, "gdb-nobody")
    ok = ctx.check.expect(REFUSED_REPLY in out, "uid %d's gdb was not refused with the reason" % NOBODY)
    ok &= ctx.check.expect(re.search(r"^rip ", out, re.M) is None, "uid %d's gdb read a register" % NOBODY)
    if not ok:
        print("---- gdb as uid %d ----\n%s" % (NOBODY, out))
    ctx.check.expect(children(server.proc.pid) == [], "a replay started for the refused client")
    ctx.check.expect(re.search(r"refused a client from 127\.0\.0\.1:\d+: it runs as uid %d, this server "
                               r"serves only uid 0 \(its owner\)" % NOBODY, server.stderr()) is not None,
                     "serve's stderr does not name the refused uid:\n%s" % server.stderr()[-2000:])
    # The owner is served, by a raw client and by gdb.
    ctx.served(server, "root's client").close()
    res, out = run_gdb(ctx, server.port, ["info registers rip"], "gdb-root")
    ctx.check.expect(res.returncode == 0 and re.search(r"^rip\s+0x", out, re.M) is not None,
                     "root's gdb was not served:\n%s" % out[-2000:])


def t_unix_socket(ctx):
    need_root()
    # A directory uid 65534 can search, so that only the socket's own mode
    # and the server's check stand in its way.
    where = tempfile.mkdtemp(prefix="backstep-unix-", dir="/tmp")
    try:
        os.chmod(where, 0o755)
        path = os.path.join(where, "rsp.sock")
        server = ctx.serve(listen=("--unix", path))
        st = os.stat(path)
        ctx.check.expect(stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600,
                         "the socket is not a 0600 socket: %o" % st.st_mode)
        ctx.check.expect(server.first_line.decode().strip() == "backstep: serving %s on %s" %
                         (ctx.trace, path), "serve's first line: %r" % server.first_line)
        os.chmod(path, 0o666)
        out = gdb_as_nobody(ctx, path, "gdb-nobody")
        ctx.check.expect(REFUSED_REPLY in out, "uid %d's gdb was not refused through the Unix socket:\n%s" %
                         (NOBODY, out[-2000:]))
        ctx.check.expect(re.search(r"refused a client from a local process \(pid \d+\): it runs as uid %d" %
                                   NOBODY, server.stderr()) is not None,
                         "serve's stderr does not name the refused uid:\n%s" % server.stderr()[-2000:])
        res = gdbtest.run(["gdb", "-batch", "-nx", "-q", "-ex", "set debuginfod enabled off",
                           "-ex", "target extended-remote " + path, "-ex", "info registers rip"],
                          ctx.root, gdbtest.gdb_env(ctx.root), None, WAIT, merged=True)
        out = res.stdout.decode("utf-8", "replace")
        ctx.check.expect(res.returncode == 0 and re.search(r"^rip\s+0x", out, re.M) is not None,
                         "root's gdb was not served through the Unix socket:\n%s" % out[-2000:])
        server.proc.send_signal(signal.SIGTERM)
        ctx.check.expect(server.wait(WAIT) == -signal.SIGTERM, "serve did not end by SIGTERM")
        ctx.check.expect(not os.path.lexists(path), "the socket is still there after SIGTERM")
        ctx.servers.remove(server)
        server.stop()
    finally:
        shutil.rmtree(where, ignore_errors=True)


def t_remote_flag(ctx):
    backstep = os.path.abspath(ctx.opts.backstep)
    trace = ctx.record()
    res = gdbtest.run([backstep, "serve", "--host", "0.0.0.0", "--port", "0", trace], ctx.root,
                      gdbtest.base_env(ctx.root), None, WAIT)
    err = res.stderr.decode("utf-8", "replace")
    ctx.check.expect(res.returncode == 2, "--host 0.0.0.0 without --allow-remote: %s" % res.describe())
    ctx.check.expect("is not a loopback address" in err and "--allow-remote" in err and "ssh -L" in err,
                     "--host 0.0.0.0 without --allow-remote does not say why:\n%s" % err)
    ctx.check.expect(b"serving" not in res.stdout, "it served anyway: %r" % res.stdout[:200])
    server = ctx.serve("--allow-remote", listen=("--host", "0.0.0.0", "--port", "0"))
    err = server.stderr()
    ctx.check.expect(re.search(r"backstep: warning: serving on 0\.0\.0\.0:%d, which other hosts can reach "
                               r"\(--allow-remote\): anyone who connects can read the recording .* and run code "
                               r"as uid \d+\..*ssh -L %d:localhost:%d HOST" % (server.port, server.port, server.port),
                               err) is not None, "no warning with --allow-remote:\n%s" % err)
    ctx.served(server, "a client over 0.0.0.0").close()
    loopback = ctx.serve(listen=("--host", "localhost", "--port", "0"))
    ctx.check.expect("warning" not in loopback.stderr(), "a warning for localhost:\n%s" % loopback.stderr())
    ctx.served(loopback, "a client over localhost").close()


def silent_clients(ctx, server, count):
    """`count` connections that send nothing."""
    return [ctx.client(server) for _ in range(count)]


def t_silent(ctx):
    server = ctx.serve("--max-clients", "2")
    silent = silent_clients(ctx, server, 3)
    # A real client is served while they sit there; the silent ones started
    # no replay (the server's only child is the real client's).
    res, out = run_gdb(ctx, server.port, ["info registers rip"], "gdb")
    ok = ctx.check.expect(res.returncode == 0 and re.search(r"^rip\s+0x", out, re.M) is not None,
                          "gdb beside three silent connections: %s" % res.describe())
    if not ok:
        print("---- gdb ----\n%s" % out)
    wait_until(lambda: children(server.proc.pid) == [], "gdb's client process ended")
    for i, c in enumerate(silent):
        rest = wait_closed(c, "silent connection %d" % (i + 1))
        ctx.check.expect(rest == b"", "silent connection %d got %r" % (i + 1, rest[:80]))
        c.close()
    dropped = re.findall(r"dropped a connection from 127\.0\.0\.1:\d+: no request within 10 s",
                         server.stderr())
    ctx.check.expect(len(dropped) == 3, "serve's stderr shows %d of the 3 silent connections dropped:\n%s" %
                     (len(dropped), server.stderr()[-2000:]))
    ctx.check.expect("dropped client" not in server.stderr(), "a silent connection was served (a replay "
                     "started for it):\n%s" % server.stderr()[-2000:])
    ctx.served(server, "a client after the silent ones").close()


def t_per_peer(ctx):
    server = ctx.serve("--max-clients", "1")
    silent = silent_clients(ctx, server, 9)
    tenth = ctx.client(server)
    tenth.send(frame("qSupported:multiprocess+"))
    ctx.check.expect(tenth.ack() == b"+", "the tenth connection's packet was not acknowledged")
    reply = tenth.read_packet()
    ctx.check.expect(reply.startswith("E.backstep serve is busy: uid %d already holds 9 connections" %
                                      os.geteuid()) and "--max-clients + 8" in reply,
                     "the tenth connection got %r" % reply)
    wait_closed(tenth, "the tenth connection")
    tenth.close()
    ctx.check.expect(re.search(r"refused a client from 127\.0\.0\.1:\d+: uid %d already holds 9 connections" %
                               os.geteuid(), server.stderr()) is not None,
                     "serve's stderr does not say why the tenth was refused:\n%s" % server.stderr()[-2000:])
    for i, c in enumerate(silent):
        wait_closed(c, "silent connection %d" % (i + 1))
        c.close()
    ctx.served(server, "the peer after its silent connections were dropped").close()


SUBTESTS = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("t_")}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backstep")
    p.add_argument("--binary")
    p.add_argument("--source")
    p.add_argument("--subtest")
    p.add_argument("--list", action="store_true")
    p.add_argument("--tmp-root", default=tempfile.gettempdir())
    p.add_argument("--keep", action="store_true")
    opts = p.parse_args()
    if opts.list:
        print("\n".join(SUBTESTS))
        return 0
    if not (opts.backstep and opts.binary and opts.source and opts.subtest in SUBTESTS):
        p.error("--backstep, --binary, --source and --subtest (one of %s) are required" %
                ", ".join(SUBTESTS))
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="server-%s-" % opts.subtest, dir=os.path.abspath(opts.tmp_root))
    ctx = Context(opts, root)
    skipped = None
    try:
        SUBTESTS[opts.subtest](ctx)
    except Skip as e:
        skipped = str(e)
    except (ProtocolError, OSError, gdbtest.RecordError) as e:
        ctx.check.fail("%s: %s" % (opts.subtest, e))
    except Exception:
        import traceback
        traceback.print_exc()
        ctx.check.fail("driver error")
    finally:
        for server in ctx.servers:
            ctx.check.expect(server.alive(), "backstep serve exited on its own (status %s)" %
                             server.proc.poll())
            server.stop()
            for marker in crash_markers():
                ctx.check.expect(marker not in server.stderr(), "serve's stderr shows a crash "
                                 "(%r):\n%s" % (marker, server.stderr()[-3000:]))
    with open(os.path.join(root, "packet-log.txt"), "w") as f:
        f.write("\n".join(ctx.log) + "\n")
    name = "gdb.server_clients.%s" % opts.subtest
    if ctx.check.failures:
        print("---- packet log (last 40 lines) ----\n%s" % "\n".join(ctx.log[-40:]))
        for server in ctx.servers:
            print("---- serve stderr ----\n%s" % server.stderr()[-3000:])
        print("%s: %d check(s) failed; work directory kept: %s" %
              (name, len(ctx.check.failures), root))
        return 1
    if not opts.keep:
        shutil.rmtree(root, ignore_errors=True)
    if skipped:
        print("SKIP %s: %s" % (name, skipped))
        return SKIPPED
    print("PASS %s" % name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
