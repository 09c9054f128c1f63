#!/usr/bin/env python3
"""A stand-in for backstep that only tests the integration drivers.

It does not trace anything: `record` runs the program with pipes and logs what
it writes to stdout/stderr and its exit status; `replay --autopilot` writes the
log back. That is enough to follow the CLI contract the drivers check (exit
statuses, messages, trace layout `header` + `events` + `files/`, `dump`, `ls`,
`latest-trace`), so run_selftest.py can show that the drivers pass a correct
tool and catch a broken one. FAKE_BACKSTEP_BUG=<name> injects one bug:
  record-stderr   record prints an extra line on stderr
  replay-stdout   replay changes one byte of stdout
  replay-exit     replay exits with a different status
  diverge         replay reports a divergence
  hang            replay never finishes
  crash           replay dies of SIGSEGV on a damaged trace
and FAKE_BACKSTEP_REFUSE=<call> makes record stop at once the way backstep
does at a system call it cannot record ("unsupported system call (system
call clone3, event 1)", exit status 125).
"""

import json
import os
import selectors
import shutil
import signal
import struct
import subprocess
import sys
import time
import zlib

MAGIC = b"FAKEBACKSTEP1\n"
BUG = os.environ.get("FAKE_BACKSTEP_BUG", "")


def die(msg, code=1):
    sys.stderr.write("backstep: %s\n" % msg)
    sys.exit(code)


def backstep_dir():
    return os.environ.get("BACKSTEP_DIR") or os.path.expanduser("~/.local/share/backstep")


def write_all(fd, data):
    while data:
        n = os.write(fd, data)
        data = data[n:]


class EventWriter:
    def __init__(self, path):
        self.f = open(path, "wb")
        self.n = 0

    def write(self, event):
        payload = json.dumps(event).encode()
        self.f.write(struct.pack("<II", len(payload), zlib.crc32(payload)) + payload)
        self.f.flush()
        self.n += 1


def find_program(prog):
    if "/" in prog:
        return prog if os.path.exists(prog) else None
    for d in os.environ.get("PATH", "").split(":"):
        p = os.path.join(d or ".", prog)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def cmd_record(args):
    out, codec = None, "zstd"
    while args and args[0].startswith("-"):
        a = args.pop(0)
        if a == "--":
            break
        if a == "-o" and args:
            out = args.pop(0)
        elif a.startswith("--compress="):
            codec = a.split("=", 1)[1]
            if codec not in ("zstd", "zlib"):
                die("unknown compression '%s' (expected zstd or zlib)" % codec, 2)
        else:
            die("record: unknown option '%s'" % a, 2)
    if not args:
        die("record: no program given (usage: backstep record [-o DIR] [--] PROG [ARGS...])", 2)
    prog = args[0]
    path = find_program(prog)
    if path is None:
        die("cannot execute '%s': No such file or directory" % prog, 127)
    if not os.access(path, os.X_OK) or os.path.isdir(path):
        die("cannot execute '%s': Permission denied" % prog, 126)
    default = out is None
    if default:
        base = backstep_dir()
        os.makedirs(base, exist_ok=True)
        n = 0
        while os.path.exists(os.path.join(base, "%s-%d" % (os.path.basename(prog), n))):
            n += 1
        out = os.path.join(base, "%s-%d" % (os.path.basename(prog), n))
    if os.path.exists(out):
        die("trace directory '%s' already exists" % out)
    try:
        os.mkdir(out)
    except OSError as e:
        die("cannot create trace directory '%s': %s" % (out, e.strerror))
    os.mkdir(os.path.join(out, "files"))
    shutil.copy2(path, os.path.join(out, "files", os.path.basename(path) + "-0"))
    header = json.dumps({"argv": args, "cwd": os.getcwd(), "codec": codec}).encode()
    with open(os.path.join(out, "header"), "wb") as f:
        f.write(MAGIC + struct.pack("<I", zlib.crc32(header)) + header)
    if default:
        link = os.path.join(os.path.dirname(out), "latest-trace")
        if os.path.islink(link):
            os.unlink(link)
        os.symlink(os.path.basename(out), link)
    ev = EventWriter(os.path.join(out, "events"))
    ev.write({"kind": "exec", "argv": args})
    refuse = os.environ.get("FAKE_BACKSTEP_REFUSE")
    if refuse:
        sys.stderr.write("backstep: recording stopped: unsupported system call "
                         "(system call %s, event 1)\n" % refuse)
        die("the trace in %s replays up to that point" % out, 125)

    st1, st2 = os.fstat(1), os.fstat(2)
    merged = (st1.st_dev, st1.st_ino) == (st2.st_dev, st2.st_ino)
    proc = subprocess.Popen(args, executable=path, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT if merged else subprocess.PIPE)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, 1)
    if not merged:
        sel.register(proc.stderr, selectors.EVENT_READ, 2)
    open_streams = len(sel.get_map())
    while open_streams:
        for key, _ in sel.select():
            data = os.read(key.fileobj.fileno(), 65536)
            if not data:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            # Like a syscall recorded at its exit: the output happened first.
            write_all(key.data, data)
            ev.write({"kind": "write", "fd": key.data, "data": data.hex()})
    status = proc.wait()
    code = 128 - status if status < 0 else status
    ev.write({"kind": "exit", "status": code})
    if BUG == "record-stderr":
        sys.stderr.write("backstep: recorded %d events\n" % ev.n)
    sys.exit(code)


def open_trace(trace):
    if trace is None:
        trace = os.path.join(backstep_dir(), "latest-trace")
    if not os.path.isdir(trace):
        die("cannot open trace '%s': %s" % (trace, "Not a directory" if os.path.exists(trace)
                                            else "No such file or directory"))
    hp = os.path.join(trace, "header")
    try:
        with open(hp, "rb") as f:
            data = f.read()
    except OSError as e:
        die("cannot read %s: %s" % (hp, e.strerror))
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 4:
        die("%s: not a backstep trace header (bad magic)" % hp)
    (crc,) = struct.unpack("<I", data[len(MAGIC):len(MAGIC) + 4])
    body = data[len(MAGIC) + 4:]
    if zlib.crc32(body) != crc:
        die("%s: header checksum mismatch" % hp)
    header = json.loads(body)
    prog = os.path.basename(header["argv"][0])
    copy = os.path.join(trace, "files", prog + "-0")
    if not os.path.isfile(copy):
        die("%s: missing file %s" % (trace, copy))
    return trace, header


def events(trace):
    """Yields (number, event); ends with ("truncated", n) or ("corrupt", n, offset)."""
    ep = os.path.join(trace, "events")
    try:
        with open(ep, "rb") as f:
            data = f.read()
    except OSError as e:
        die("cannot read %s: %s" % (ep, e.strerror))
    off, n = 0, 0
    while off < len(data):
        if off + 8 > len(data):
            yield ("truncated", n, off)
            return
        length, crc = struct.unpack("<II", data[off:off + 8])
        payload = data[off + 8:off + 8 + length]
        if len(payload) < length:
            yield ("truncated", n, off)
            return
        if zlib.crc32(payload) != crc:
            yield ("corrupt", n, off)
            return
        yield ("event", n, json.loads(payload))
        off += 8 + length
        n += 1
    yield ("truncated", n, off)


def cmd_replay(args):
    autopilot = False
    trace = None
    for a in args:
        if a == "--autopilot":
            autopilot = True
        elif a.startswith("-"):
            die("replay: unknown option '%s'" % a, 2)
        elif trace is None:
            trace = a
        else:
            die("replay: too many arguments", 2)
    if not autopilot:
        die("replay: only --autopilot is supported by the fake", 2)
    trace, _ = open_trace(trace)
    if BUG == "hang":
        while True:
            time.sleep(1)
    flipped = False
    for item in events(trace):
        if item[0] == "truncated":
            die("%s/events: the trace ends after event %d (byte %d): truncated recording" %
                (trace, item[1], item[2]))
        if item[0] == "corrupt":
            if BUG == "crash":
                os.kill(os.getpid(), signal.SIGSEGV)
            die("%s/events: corrupt event %d at byte %d" % (trace, item[1], item[2]))
        n, e = item[1], item[2]
        if BUG == "diverge" and n == 3:
            die("replay diverged at event 3 (rip differs)")
        if e["kind"] == "write":
            data = bytes.fromhex(e["data"])
            if BUG == "replay-stdout" and e["fd"] == 1 and data and not flipped:
                data = bytes([data[0] ^ 1]) + data[1:]
                flipped = True
            write_all(e["fd"], data)
        elif e["kind"] == "exit":
            sys.exit(e["status"] + (1 if BUG == "replay-exit" else 0))


def cmd_dump(args):
    if len(args) > 1:
        die("dump: too many arguments", 2)
    trace, _ = open_trace(args[0] if args else None)
    for item in events(trace):
        if item[0] == "truncated":
            if item[1] > 0 and item[2] == os.path.getsize(os.path.join(trace, "events")):
                return
            die("%s/events: truncated after event %d" % (trace, item[1]))
        if item[0] == "corrupt":
            die("%s/events: corrupt event %d at byte %d" % (trace, item[1], item[2]))
        n, e = item[1], item[2]
        if e["kind"] == "exec":
            print("%d exec argv=%s" % (n, e["argv"]))
        elif e["kind"] == "write":
            print("%d syscall write fd=%d len=%d" % (n, e["fd"], len(e["data"]) // 2))
        else:
            print("%d exit status=%d" % (n, e["status"]))


def cmd_ls(args):
    base = backstep_dir()
    if not os.path.isdir(base):
        return
    for name in sorted(os.listdir(base)):
        if name == "latest-trace":
            continue
        latest = os.path.realpath(os.path.join(base, "latest-trace")) == \
            os.path.realpath(os.path.join(base, name))
        print("%s%s" % (name, "  (latest)" if latest else ""))


def main():
    argv = sys.argv[1:]
    if not argv:
        die("usage: backstep record|replay|dump|ls ...", 2)
    cmd, rest = argv[0], argv[1:]
    handlers = {"record": cmd_record, "replay": cmd_replay, "dump": cmd_dump, "ls": cmd_ls}
    if cmd not in handlers:
        die("unknown command '%s'" % cmd, 2)
    handlers[cmd](rest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
