#!/usr/bin/env python3
"""A function called during replay that never returns, interrupted, and the
replay unharmed afterwards: the packets a debugger sends, one by one.

Usage:
  run_diversion_interrupt.py --backstep PATH --binary PATH --source scenarios/call_functions.c

What happens, in a fresh work directory (kept on failure):
  1. the program is recorded and its binary deleted (gdbtest.record);
  2. `backstep serve --port 0 --once TRACE`; a raw RSP client (no gdb: gdb
     in batch mode turns ^C into a Python KeyboardInterrupt) connects;
  3. it stops at `visit` (a breakpoint), reads the registers (`g`), sets
     the pc to `spin` (`P10`: the write starts a diversion) and continues;
     then it sends ^C (0x03) at once. spin loops for ever: the ^C can only
     arrive while it runs, or before, when the server takes it at its first
     look. The stop must be SIGINT (`T02`) with the pc inside spin;
  4. `bc` inside the called function must be refused (`E.` reply);
  5. the registers go back (`G` with what `g` read) and the replay
     continues: the next stop must be `visit` again with the next value of
     its argument (rdi), then, without breakpoints, the program's exit
     (`W00`), with the recorded output on the server's stdout.

Exit status: 0 pass, 1 fail, 2 usage error.
"""

import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest  # noqa: E402
from run_malformed_packets import RawClient  # noqa: E402

PIE_BASE = 0x555555554000  # the recorded program's base (ASLR is off in a recording)


class Failure(Exception):
    pass


def symbol(binary, name):
    out = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
    m = re.search(r"^([0-9a-f]+) T %s$" % name, out, re.M)
    if not m:
        raise Failure("no symbol %s in %s" % (name, binary))
    return int(m.group(1), 16)


def le64(value):
    return struct.pack("<Q", value).hex()


def stop_fields(reply, what):
    if not reply.startswith("T"):
        raise Failure("%s: expected a stop reply, got %r" % (what, reply))
    fields = dict(f.split(":", 1) for f in reply[3:].rstrip(";").split(";") if ":" in f)
    return int(reply[1:3], 16), fields


def pc_of(fields):
    return struct.unpack("<Q", bytes.fromhex(fields["10"]))[0]


def session(c, binary):
    base = PIE_BASE
    visit, spin = base + symbol(binary, "visit"), base + symbol(binary, "spin")
    if c.request("QStartNoAckMode") != "OK":
        raise Failure("QStartNoAckMode refused")
    c.no_ack = True
    c.request("?")
    if c.request("Z0,%x,1" % visit) != "OK":
        raise Failure("Z0 at visit refused")
    sig, fields = stop_fields(c.request("vCont;c"), "continue to visit")
    if pc_of(fields) != visit:
        raise Failure("expected the stop at visit 0x%x, got pc 0x%x" % (visit, pc_of(fields)))
    saved = c.request("g")
    rdi = struct.unpack("<Q", bytes.fromhex(saved[5 * 16:6 * 16]))[0]
    # The call: pc to spin (a diversion starts), then continue and ^C.
    if c.request("P10=%s" % le64(spin)) != "OK":
        raise Failure("P10 (the pc) refused")
    c.send(b"$vCont;c#a8")
    c.send(b"\x03")
    reply = c.read_packet(timeout=60)
    sig, fields = stop_fields(reply, "interrupt in spin")
    if sig != 2 or not spin <= pc_of(fields) < spin + 0x40:
        raise Failure("expected SIGINT (T02) inside spin (0x%x), got %r" % (spin, reply))
    # Backwards from inside the called function: refused.
    reply = c.request("bc")
    if not reply.startswith("E."):
        raise Failure("bc inside the called function: expected an E. reply, got %r" % reply)
    # Registers back: the next resume is the replay's.
    if c.request("G" + saved) != "OK":
        raise Failure("G (registers back) refused")
    sig, fields = stop_fields(c.request("vCont;c"), "continue after the call")
    regs = c.request("g")
    next_rdi = struct.unpack("<Q", bytes.fromhex(regs[5 * 16:6 * 16]))[0]
    if pc_of(fields) != visit or next_rdi != rdi + 1:
        raise Failure("after the call: expected visit(%d), got pc 0x%x rdi %d" % (rdi + 1, pc_of(fields), next_rdi))
    if c.request("z0,%x,1" % visit) != "OK":
        raise Failure("z0 refused")
    reply = c.request("vCont;c")
    if reply.startswith("T"):  # the end of the recording comes first, then the exit
        reply = c.request("vCont;c")
    if reply != "W00":
        raise Failure("expected the program's exit (W00), got %r" % reply)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backstep", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--tmp-root", default=tempfile.gettempdir())
    p.add_argument("--timeout", type=float, default=gdbtest.TIMEOUT)
    opts = p.parse_args()
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="diversion-interrupt-", dir=os.path.abspath(opts.tmp_root))
    backstep = os.path.abspath(opts.backstep)
    ok = False
    server = None
    log = []
    try:
        trace, _, recorded = gdbtest.record(backstep, opts.binary, opts.source, root, opts.timeout)
        recorded_stdout = recorded.stdout
        server = gdbtest.Server(backstep, trace, root, once=True)
        c = RawClient(server.port, log)
        try:
            session(c, opts.binary)
        finally:
            c.close()
        if server.wait(30) is None:
            raise Failure("the server did not exit after the client left")
        out = bytes(server.rest)
        if recorded_stdout not in out:
            raise Failure("the server's stdout %r lacks the recorded output %r" % (out, recorded_stdout))
        if "diverged" in server.stderr():
            raise Failure("the replay diverged:\n%s" % server.stderr())
        ok = True
    except (Failure, gdbtest.RecordError, RuntimeError, OSError) as e:
        print("FAIL: %s" % e)
        print("--- packets ---\n" + "\n".join(log[-40:]))
        if server:
            print("--- server stderr ---\n" + server.stderr())
    finally:
        if server:
            server.stop()
    if ok:
        print("PASS")
        shutil.rmtree(root, ignore_errors=True)
    else:
        print("work directory kept: %s" % root)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
