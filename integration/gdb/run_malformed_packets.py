#!/usr/bin/env python3
"""Malformed input to `backstep serve`, over a plain socket (no gdb), then a
real gdb session on the same server.

Usage:
  run_malformed_packets.py --backstep PATH --binary PATH --source programs/mi_target.c

What happens, in a fresh work directory (kept on failure):
  1. the program is recorded and its binary deleted;
  2. `backstep serve --port 0 TRACE` (no --once: it serves client after
     client) starts; the port comes from its first stdout line;
  3. a port probe connects and closes at once: the server must keep serving;
  4. a raw client, in ack mode, sends:
       garbage bytes between packets         -> ignored; the next packet is answered
       packets with bad checksums            -> '-' and no reply
       a truncated packet, then a valid one  -> (a '-' allowed) then '+' and the reply
       a packet longer than 0x20000 bytes    -> '+' and E18 (over PacketSize)
       malformed known packets (m without a length, Zx, , vCont;q, ...)
                                             -> '+' and an "Enn" reply
       huge lengths (m0,ffffffffffffffff, ...) -> a reply at once (Enn or a short one)
       unknown packets                       -> '+' and the empty reply
       QStartNoAckMode, then a packet with a wrong checksum
                                             -> answered, with no '+'/'-' (nobody checks)
       watchpoints longer than the debug registers hold (Z2,1,ffffffff)
                                             -> Enn at once; the serving process's
                                                VmHWM stays under 200 MB
       breakpoints and watchpoints outside user space (Z2,8000000000000000,8)
                                             -> Enn, and a continue still stops
       m, x and qXfer of 4 GiB and more      -> replies within PacketSize
       4200 hardware breakpoints             -> OK up to the bound (4096), then E18
     and after each step a valid packet must still be answered; then it
     closes the connection without saying goodbye;
  5. a client sends half a packet and leaves; another port probe; then gdb (batch) connects to the same server, sets
     a breakpoint, continues twice, reverse-continues, and prints values;
  6. one more raw client must still get answers; the server is then killed.
     The server must never have exited on its own, and its stderr must show
     no crash.

Exit status: 0 pass, 1 fail, 2 usage error.
"""

import argparse
import os
import re
import shutil
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest  # noqa: E402

IO_TIMEOUT = 20  # seconds for one reply
QUIET = 0.5      # seconds of silence that stand for "no reply" after a nack


def checksum(payload):
    return "%02x" % (sum(payload) & 0xFF)


def frame(payload, digits=None):
    if isinstance(payload, str):
        payload = payload.encode("latin-1")
    return b"$" + payload + b"#" + (digits or checksum(payload)).encode()


class ProtocolError(Exception):
    pass


class RawClient:
    def __init__(self, port, log):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=IO_TIMEOUT)
        self.buf = bytearray()
        self.log = log
        self.no_ack = False

    def close(self):
        self.sock.close()

    def send(self, data):
        shown = data if len(data) < 120 else data[:60] + b"...(%d bytes)" % len(data)
        self.log.append("-> %r" % shown)
        self.sock.sendall(data)

    def _fill(self, timeout):
        self.sock.settimeout(timeout)
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            return False
        if not chunk:
            raise ProtocolError("the server closed the connection")
        self.buf += chunk
        return True

    def next_byte(self, timeout=IO_TIMEOUT):
        deadline = time.monotonic() + timeout
        while not self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not self._fill(left):
                raise ProtocolError("no reply within %.1f s" % timeout)
        b = bytes(self.buf[:1])
        del self.buf[:1]
        return b

    def quiet(self, seconds=QUIET):
        """True if nothing arrives for `seconds` (the absence of a reply)."""
        if self.buf:
            return False
        return not self._fill(seconds)

    def read_packet(self, timeout=IO_TIMEOUT):
        """The next '$...#xx' packet's payload; checks its checksum and acks it."""
        c = self.next_byte(timeout)
        if c != b"$":
            raise ProtocolError("expected '$', got %r (then %r)" % (c, bytes(self.buf[:40])))
        raw = bytearray()
        while True:
            c = self.next_byte(timeout)
            if c == b"#":
                break
            raw += c
        digits = self.next_byte(timeout) + self.next_byte(timeout)
        if digits.decode("latin-1").lower() != checksum(raw):
            raise ProtocolError("reply %r has checksum %r, should be %s" % (bytes(raw[:60]),
                                                                              digits, checksum(raw)))
        if not self.no_ack:
            self.sock.sendall(b"+")
        # Undo '}' escapes (binary replies); run-length encoding is not expected.
        out = bytearray()
        i = 0
        while i < len(raw):
            if raw[i] == 0x7D and i + 1 < len(raw):
                out.append(raw[i + 1] ^ 0x20)
                i += 2
            else:
                out.append(raw[i])
                i += 1
        text = out.decode("latin-1")
        self.log.append("<- $%s" % (text if len(text) < 200 else text[:200] + "..."))
        return text

    def request_stop(self, payload):
        """Sends a resume; returns the stop reply after any console output
        ('O' packets)."""
        reply = self.request(payload)
        while reply.startswith("O") and reply != "OK":
            reply = self.read_packet()
        return reply

    def ack(self, timeout=IO_TIMEOUT):
        c = self.next_byte(timeout)
        self.log.append("<- %r" % c)
        return c

    def request(self, payload):
        """Sends a valid packet; returns the reply payload."""
        self.send(frame(payload))
        if not self.no_ack:
            a = self.ack()
            if a != b"+":
                raise ProtocolError("%r: expected '+', got %r" % (payload, a))
        return self.read_packet()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backstep", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--tmp-root", default=tempfile.gettempdir())
    p.add_argument("--keep", action="store_true")
    opts = p.parse_args()
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="gdb-malformed-", dir=os.path.abspath(opts.tmp_root))
    check = gdbtest.Checker()
    log = []
    server = None
    try:
        trace, _, _ = gdbtest.record(os.path.abspath(opts.backstep), opts.binary, opts.source,
                                     root)
        server = gdbtest.Server(os.path.abspath(opts.backstep), trace, root, once=False)
        print("serve: port %d" % server.port, flush=True)
        scenario(server, root, check, log)
    except gdbtest.RecordError as e:
        check.fail(str(e))
    except Exception:
        import traceback
        traceback.print_exc()
        check.fail("driver error")
    finally:
        stderr = ""
        if server is not None:
            check.expect(server.alive(), "backstep serve exited on its own (status %s)" %
                         server.proc.poll())
            server.stop()
            stderr = server.stderr()
            for marker in crash_markers():
                check.expect(marker not in stderr, "serve's stderr shows a crash (%r):\n%s" %
                             (marker, stderr[-3000:]))
    with open(os.path.join(root, "packet-log.txt"), "w") as f:
        f.write("\n".join(log) + "\n")
    if check.failures:
        print("---- packet log (last 80 lines) ----\n%s" % "\n".join(log[-80:]))
        print("---- serve stderr ----\n%s" % stderr[-3000:])
        print("gdb.malformed_packets: %d check(s) failed; work directory kept: %s" %
              (len(check.failures), root))
        return 1
    if opts.keep:
        print("work directory kept: %s" % root)
    else:
        shutil.rmtree(root, ignore_errors=True)
    print("PASS gdb.malformed_packets")
    return 0


def crash_markers():
    return ["terminate called", "AddressSanitizer", "runtime error:", "Segmentation fault",
            "Assertion", "core dumped"]


ERROR_REPLY = re.compile(r"^E[0-9a-fA-F]{2}$")
# Generous: a serving process of this small program holds well under 50 MB.
MEMORY_BOUND_KB = 200 * 1024


def serving_memory(server):
    """(pid, VmHWM in kB) of each process serving a client: the server's
    children (`serve` forks one per client)."""
    pid = server.proc.pid
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            children = [int(p) for p in f.read().split()]
    except OSError:
        return []
    out = []
    for child in children:
        try:
            with open("/proc/%d/status" % child) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        out.append((child, int(line.split()[1])))
        except OSError:
            pass  # it ended meanwhile
    return out


def probe(server, check, label):
    """Connects and closes at once, like a port scanner or an IDE's check."""
    s = socket.create_connection(("127.0.0.1", server.port), timeout=IO_TIMEOUT)
    s.close()
    # The server must still accept and answer a client after it.
    c = RawClient(server.port, [])
    try:
        reply = c.request("?")
        check.expect(reply.startswith("T"), "%s: '?' after a port probe got %r" % (label, reply))
    except (ProtocolError, OSError) as e:
        check.fail("%s: the server did not answer after a port probe: %s" % (label, e))
    finally:
        c.close()
    check.expect(server.alive(), "%s: the server exited after a port probe" % label)
    print("%s: ok" % label, flush=True)


def step(check, label, fn):
    try:
        fn()
        print("%-44s ok" % label, flush=True)
        return True
    except (ProtocolError, OSError) as e:
        check.fail("%s: %s" % (label, e))
        return False


def scenario(server, root, check, log):
    probe(server, check, "port probe before any client")

    c = RawClient(server.port, log)

    def still_answers(what):
        reply = c.request("qC")
        if not reply.startswith("QC"):
            raise ProtocolError("after %s, qC got %r" % (what, reply))

    def garbage():
        c.send(b"garbage \x00\xff\xfe\r\n#xx")
        reply = c.request("?")
        if not reply.startswith("T"):
            raise ProtocolError("'?' after garbage got %r" % reply)

    def bad_checksums():
        for pkt in (frame("qC", "00"), frame("qSupported:multiprocess+", "ff"),
                    frame("?", "zz")):
            c.send(pkt)
            a = c.ack()
            if a != b"-":
                raise ProtocolError("%r: expected '-', got %r" % (pkt, a))
            if not c.quiet():
                raise ProtocolError("%r: a reply came after the '-': %r" % (pkt, bytes(c.buf)))
        still_answers("bad checksums")

    def truncated():
        c.send(b"$qSupported:multipro" + frame("qC"))
        a = c.ack()
        if a == b"-":  # for the dropped partial packet
            a = c.ack()
        if a != b"+":
            raise ProtocolError("expected '+' for the valid packet, got %r" % a)
        reply = c.read_packet()
        if not reply.startswith("QC"):
            raise ProtocolError("qC after a truncated packet got %r" % reply)

    def oversized():
        # Received, but over the PacketSize the server advertised: '+' (a
        # '-' would only make the client send it again) and an error reply.
        payload = b"qZ" + b"A" * 0x20010
        c.send(frame(payload))
        a = c.ack()
        if a != b"+":
            raise ProtocolError("expected '+' for a %d-byte packet, got %r" % (len(payload), a))
        reply = c.read_packet()
        if reply != "E18":
            raise ProtocolError("a %d-byte packet got %r, expected E18" % (len(payload), reply[:80]))
        still_answers("an oversized packet")

    def malformed_known():
        bad = ["m", "m1000", "m1000,", "mxyz,4", "m1000,zz", "Zx,", "Z0,zz,1", "Z0,1000",
               "z9,1000,1", "vCont;q", "vCont;x", "vCont;c:zz", "Hgzz", "p", "pzz",
               "qXfer:features:read:target.xml:zz,100", "vFile:pread:zz", "X1000",
               "T", "vRun;zz"]
        wrong = []
        for pkt in bad:
            reply = c.request(pkt)
            if not ERROR_REPLY.match(reply):
                wrong.append("%s -> %r" % (pkt, reply))
        if wrong:
            raise ProtocolError("malformed packets without an Enn reply: %s" % "; ".join(wrong))
        still_answers("malformed packets")

    def huge_lengths():
        # Lengths no client would send: a reply (of any kind) must come at
        # once, without allocating or reading that much.
        for pkt, want in (("m0,ffffffffffffffff", ERROR_REPLY),
                          ("m7ffffffff000,100000000", ERROR_REPLY),
                          ("Z2,1000,ffffffffffffffff", ERROR_REPLY),
                          ("qXfer:features:read:target.xml:0,ffffffffffffffff", re.compile("^[lm]")),
                          ("qXfer:auxv:read::ffffffffffffffff,10", re.compile("^(l|E[0-9a-fA-F]{2})$")),
                          ("vFile:pread:0,ffffffffffff,0", re.compile("^F")),
                          ("qRcmd,zz", ERROR_REPLY)):
            reply = c.request(pkt)
            if not want.match(reply):
                raise ProtocolError("%s -> %r" % (pkt, reply[:80]))
        still_answers("huge lengths")

    def memory_bombs():
        # Each of these once cost memory in proportion to its length
        # (Z2,1,ffffffff passed 3 GB): an error at once, and the process
        # serving this client stays small.
        for pkt in ("Z2,1,ffffffff", "Z4,1000,ffffffff", "Z2,0,fffffffffffffff0", "Z2,1000,21",
                    "Z2,1000,0"):
            reply = c.request(pkt)
            if not ERROR_REPLY.match(reply):
                raise ProtocolError("%s -> %r, expected an error" % (pkt, reply[:80]))
        check_memory("after the watchpoint bombs")
        still_answers("watchpoint lengths")

    def outside_user_space():
        # Once answered OK; the next resume then failed in ptrace(POKEUSER)
        # and the session was lost. Refused at arrival now, and the session
        # goes on: a continue after them still runs.
        for pkt in ("Z2,8000000000000000,8", "Z4,ffffffffff600000,8", "Z2,7ffffffff000,8",
                    "Z2,fffffffffffffffc,8", "Z1,8000000000000000,1", "Z0,ffffffffffffffff,1"):
            reply = c.request(pkt)
            if not ERROR_REPLY.match(reply):
                raise ProtocolError("%s -> %r, expected an error" % (pkt, reply[:80]))
        reply = c.request("Z2,7fffffffeff8,8")  # the last 8 bytes below the end
        if reply != "OK":
            raise ProtocolError("Z2,7fffffffeff8,8 -> %r, expected OK" % reply[:80])
        reply = c.request_stop("c")
        if not reply.startswith(("T", "W")):
            raise ProtocolError("a continue after them got %r, expected a stop" % reply[:200])
        reply = c.request("z2,7fffffffeff8,8")
        still_answers("traps outside user space")

    def long_reads():
        # At most what fits the PacketSize comes back (0x20000; m is hex).
        for pkt in ("m401000,100000000", "m0,ffffffffffff", "x401000,100000000",
                    "qXfer:features:read:target.xml:0,ffffffffffffffff"):
            reply = c.request(pkt)
            if len(reply) > 0x20000:
                raise ProtocolError("%s -> a %d-byte reply, over PacketSize" % (pkt, len(reply)))
        check_memory("after the long reads")
        still_answers("long reads")

    def breakpoints_past_the_bound():
        # Hardware breakpoints (Z1 reads no memory) at distinct addresses,
        # sent in one go: OK up to the bound (4096), then E18 for each.
        count = 4200
        c.send(b"".join(frame("Z1,%x,1" % (0x10000000 + i)) for i in range(count)))
        replies = [c.read_packet() for _ in range(count)]
        ok = replies.count("OK")
        refused = [r for r in replies[ok:]]
        if ok > 4096 or ok < 4000 or any(r != "E18" for r in refused) or not refused:
            raise ProtocolError("%d breakpoints: %d OK, then %r" % (count, ok, sorted(set(refused))))
        check_memory("after %d breakpoints" % count)
        still_answers("breakpoints past the bound")

    def check_memory(when):
        for pid, hwm in serving_memory(server):
            if hwm > MEMORY_BOUND_KB:
                raise ProtocolError("%s: the serving process %d reached %d kB (VmHWM), over %d kB" %
                                    (when, pid, hwm, MEMORY_BOUND_KB))

    def unknown():
        wrong = []
        for pkt in ("qBackstepNoSuchQuery", "vNoSuchPacket", "jNoSuchThing", "QNoSuchSetting:1",
                    "vMustReplyEmpty"):
            reply = c.request(pkt)
            if reply != "":
                wrong.append("%s -> %r" % (pkt, reply))
        if wrong:
            raise ProtocolError("unknown packets without the empty reply: %s" % "; ".join(wrong))
        still_answers("unknown packets")

    def no_ack_mode():
        reply = c.request("QStartNoAckMode")
        if reply != "OK":
            raise ProtocolError("QStartNoAckMode got %r" % reply)
        c.no_ack = True
        c.send(frame("qC", "00"))
        reply = c.read_packet()
        if not reply.startswith("QC"):
            raise ProtocolError("qC with a wrong checksum in no-ack mode got %r" % reply)
        still_answers("no-ack mode")

    step(check, "garbage between packets", garbage)
    step(check, "bad checksums get '-'", bad_checksums)
    step(check, "truncated packet, then a valid one", truncated)
    step(check, "oversized packet gets E18", oversized)
    step(check, "malformed known packets get Enn", malformed_known)
    step(check, "huge lengths are refused or cut short", huge_lengths)
    step(check, "unknown packets get the empty reply", unknown)
    step(check, "no-ack mode", no_ack_mode)
    step(check, "watchpoint lengths are bounded", memory_bombs)
    step(check, "traps outside user space are refused", outside_user_space)
    step(check, "long reads fit the packet size", long_reads)
    step(check, "breakpoints past the bound get E18", breakpoints_past_the_bound)
    c.close()
    if not check.expect(server.alive(), "the server exited after the malformed-packet client"):
        return
    # A client that leaves in the middle of a packet.
    c = RawClient(server.port, log)
    c.send(b"$m1000,4")
    c.close()

    probe(server, check, "port probe after the malformed-packet client")

    # A real gdb session on the same server.
    cmds = ["set pagination off", "set confirm off", "set width 0", "set sysroot target:",
            "set filename-display basename",
            "target extended-remote 127.0.0.1:%d" % server.port,
            "break scale", "continue", "continue", "reverse-continue", "print total", "print v"]
    argv = ["gdb", "-batch", "-nx", "-q"]
    for cmd in cmds:
        argv += ["-ex", cmd]
    res = gdbtest.run(argv, root, gdbtest.gdb_env(root), None, 100, merged=True)
    out = res.stdout.decode("utf-8", "replace")
    with open(os.path.join(root, "gdb-output.txt"), "w") as f:
        f.write(out)
    print("gdb session: %s in %.2f s" % (res.describe(), res.elapsed), flush=True)
    hits = re.findall(r"^Breakpoint 1, scale \(v=(\d)\) at mi_target\.c:9$", out, re.M)
    ok = check.expect(not res.timed_out and res.returncode == 0,
                      "gdb after the malformed packets: %s" % res.describe())
    ok &= check.expect(hits == ["1", "2", "1"],
                       "gdb after the malformed packets: expected breakpoint hits at "
                       "v=1, v=2, then v=1 going back; got %s" % hits)
    ok &= check.expect(re.search(r"^\$1 = 0$", out, re.M) is not None and
                       re.search(r"^\$2 = 1$", out, re.M) is not None,
                       "gdb after the malformed packets: expected $1 = 0 and $2 = 1")
    if not ok:
        print("---- gdb output ----\n%s" % out)
    check.expect(server.alive(), "the server exited after the gdb session")

    # And it still serves.
    c = RawClient(server.port, log)
    step(check, "a client after the gdb session", lambda: c.request("?"))
    c.close()


if __name__ == "__main__":
    sys.exit(main())
