"""Reads and rewrites the events of a trace (docs/trace-format.md), for the
tests that need events the recorder never writes (a signal number of 200,
an abort message full of escape sequences). Works on zlib and stored chunks
only: record with --compress=zlib. Always edit a copy (`copy_trace`), never
a trace that another subtest keeps.
"""

import ctypes
import ctypes.util
import os
import shutil
import stat
import struct
import zlib

KIND = {"exec": 1, "syscall": 2, "rdtsc": 3, "signal": 4, "fatal-signal": 5, "exit": 6, "abort": 7}
TAG_REGS, TAG_MAPPINGS, TAG_STATUS, TAG_MESSAGE = 1, 5, 8, 9
MAPPING_FILE = 2
MAPPING_HEAD = struct.Struct("<QQIIQB")
MAPPING_TAIL = struct.Struct("<QQQ")
CHUNK_HEADER = struct.Struct("<IBIIQIII")
CHUNK_MAGIC = 0x4B435342
PREAMBLE = 12


def _xxh3_64(data):
    name = ctypes.util.find_library("xxhash")
    if name is None:
        raise RuntimeError("libxxhash is not installed (backstep links it: it should be)")
    lib = ctypes.CDLL(name)
    lib.XXH3_64bits.restype = ctypes.c_uint64
    lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    return lib.XXH3_64bits(data, len(data))


class Event:
    def __init__(self, kind, tid, fields):
        self.kind, self.tid, self.fields = kind, tid, fields  # fields: [(tag, bytes)]

    def get(self, tag):
        for t, v in self.fields:
            if t == tag:
                return v
        return None

    def set(self, tag, value):
        self.fields = [(t, v) for t, v in self.fields if t != tag] + [(tag, value)]

    def set_status(self, status):
        self.set(TAG_STATUS, struct.pack("<q", status))

    def encode(self):
        payload = b"".join(struct.pack("<BI", t, len(v)) + v for t, v in self.fields)
        return struct.pack("<BII", self.kind, self.tid, len(payload)) + payload


def decode_mappings(field):
    """A mappings field as dicts: start, end, prot, flags, offset, kind,
    file, name, tail (file_size, file_hash, shared object, packed)."""
    (count,), at, out = struct.unpack_from("<I", field), 4, []
    for _ in range(count):
        start, end, prot, flags, offset, kind = MAPPING_HEAD.unpack_from(field, at)
        at += MAPPING_HEAD.size
        strings = []
        for _ in range(2):
            (n,) = struct.unpack_from("<I", field, at)
            strings.append(field[at + 4:at + 4 + n])
            at += 4 + n
        tail = field[at:at + MAPPING_TAIL.size]
        at += MAPPING_TAIL.size
        out.append(dict(start=start, end=end, prot=prot, flags=flags, offset=offset, kind=kind,
                        file=strings[0], name=strings[1], tail=tail))
    return out


def encode_mappings(mappings):
    out = struct.pack("<I", len(mappings))
    for m in mappings:
        out += MAPPING_HEAD.pack(m["start"], m["end"], m["prot"], m["flags"], m["offset"], m["kind"])
        for s in (m["file"], m["name"]):
            out += struct.pack("<I", len(s)) + s
        out += m["tail"]
    return out


def read_events(trace):
    data = open(os.path.join(trace, "events"), "rb").read()
    events, off = [], PREAMBLE
    while off < len(data):
        magic, codec, raw_len, comp_len, first, count, _, _ = CHUNK_HEADER.unpack_from(data, off)
        if magic != CHUNK_MAGIC:
            raise ValueError("bad chunk magic at %d" % off)
        body = data[off + CHUNK_HEADER.size:off + CHUNK_HEADER.size + comp_len]
        if codec == 2:
            raw = zlib.decompress(body)
        elif codec == 3:
            raw = body
        else:
            raise ValueError("chunk codec %d: record with --compress=zlib" % codec)
        at = 0
        for _ in range(count):
            kind, tid, plen = struct.unpack_from("<BII", raw, at)
            payload, fields, p = raw[at + 9:at + 9 + plen], [], 0
            while p < len(payload):
                tag, flen = struct.unpack_from("<BI", payload, p)
                fields.append((tag, payload[p + 5:p + 5 + flen]))
                p += 5 + flen
            events.append(Event(kind, tid, fields))
            at += 9 + plen
        off += CHUNK_HEADER.size + comp_len
    return data[:PREAMBLE], events


def write_events(trace, preamble, events, per_chunk=1000):
    out = bytearray(preamble)
    for first in range(0, len(events), per_chunk):
        group = events[first:first + per_chunk]
        raw = b"".join(e.encode() for e in group)
        body = zlib.compress(raw, 1)
        head = struct.pack("<IBIIQII", CHUNK_MAGIC, 2, len(raw), len(body), first, len(group),
                           _xxh3_64(body) & 0xFFFFFFFF)
        out += head + struct.pack("<I", zlib.crc32(head)) + body
    path = os.path.join(trace, "events")
    os.chmod(path, 0o600)
    with open(path, "wb") as f:
        f.write(out)


def copy_trace(trace, dest):
    """A copy of `trace` whose own files (not files/) can be rewritten."""
    shutil.copytree(trace, dest, symlinks=True, copy_function=shutil.copy)
    for name in os.listdir(dest):
        p = os.path.join(dest, name)
        if os.path.isfile(p):
            os.chmod(p, os.stat(p).st_mode | stat.S_IWUSR)
    return dest
