#!/usr/bin/env python3
"""The trace's copies of mapped files and the end of its event stream.

Usage (as run_bad_input.py, whose helpers it shares):
  run_trace_files.py --backstep PATH --chatty PATH --endless PATH --subtest NAME
  run_trace_files.py --list

A trace's `files/` must never share an inode with a host file (a trace that
hard-linked the host's libc once let a fuzz of the trace change the machine's
libc), never widen a file's permissions, and replay must refuse a copy that
changed after the recording instead of showing bytes that never existed.
Before any subtest writes into a trace's files/, it asserts that the file is
not a host file.
"""

import os
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bad_input as bad  # noqa: E402
from run_bad_input import Skip, flip  # noqa: E402

HOST_LIBS = ["/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"]


def inode(path):
    st = os.stat(path)
    return (st.st_dev, st.st_ino)


def stored(trace, prefix):
    """The path of the trace's copy whose name starts with `prefix`."""
    files = os.path.join(trace, "files")
    names = sorted(n for n in os.listdir(files) if n.startswith(prefix))
    if not names:
        raise Skip("no files/%s* in the trace (has: %s)" % (prefix, ", ".join(os.listdir(files))))
    return os.path.join(files, names[0])


def host_inodes(ctx):
    paths = [ctx.chatty] + [p for p in HOST_LIBS if os.path.exists(p)]
    return {inode(os.path.realpath(p)): p for p in paths}


def make_writable_copy(ctx, path):
    """Asserts that `path` (in a trace's files/) is backstep's alone, then
    makes it writable for the damage a subtest does."""
    st = os.stat(path)
    hosts = host_inodes(ctx)
    if (st.st_dev, st.st_ino) in hosts or st.st_nlink != 1:
        raise RuntimeError("refusing to write %s: it is linked elsewhere (%d links%s)" %
                           (path, st.st_nlink, ", the host's " + hosts.get((st.st_dev, st.st_ino), "")))
    os.chmod(path, st.st_mode | stat.S_IWUSR)


def latest(ctx):
    return os.path.realpath(os.path.join(ctx.env["BACKSTEP_DIR"], "latest-trace"))


def t_files_are_never_host_inodes(ctx):
    c = ctx.check
    traces = []
    for _ in range(2):
        _, rec = ctx.record(count=20, out="")
        traces.append((latest(ctx), rec))
    root = ctx.env["BACKSTEP_DIR"]
    links = {}
    for d, _, names in os.walk(root):
        for n in names:
            links[inode(os.path.join(d, n))] = links.get(inode(os.path.join(d, n)), 0) + 1
    hosts = host_inodes(ctx)
    for trace, rec in traces:
        for name in sorted(os.listdir(os.path.join(trace, "files"))):
            path = os.path.join(trace, "files", name)
            st = os.stat(path)
            key = (st.st_dev, st.st_ino)
            c.expect(key not in hosts, "%s is the host's %s" % (path, hosts.get(key)))
            c.expect(st.st_nlink == links[key], "%s has %d links, %d of them inside the trace root" %
                     (path, st.st_nlink, links[key]))
            c.expect(st.st_mode & 0o222 == 0, "%s is writable (mode %o)" % (path, st.st_mode))
        ctx.good_replay(trace, rec)
    # The root's store shares one copy of libc between its traces.
    c.expect(inode(stored(traces[0][0], "libc.so.6")) == inode(stored(traces[1][0], "libc.so.6")),
             "the two traces of one root hold two copies of libc")


def t_files_outside_the_root_are_plain_copies(ctx):
    trace, rec = ctx.record(count=20)
    hosts = host_inodes(ctx)
    for name in sorted(os.listdir(os.path.join(trace, "files"))):
        path = os.path.join(trace, "files", name)
        st = os.stat(path)
        ctx.check.expect(st.st_nlink == 1 and (st.st_dev, st.st_ino) not in hosts,
                         "%s has %d links" % (path, st.st_nlink))
    # Never wider than the source: libc is 0644 (or 0755) on the host.
    libc = os.stat(os.path.realpath(HOST_LIBS[0])).st_mode & 0o777
    mode = os.stat(stored(trace, "libc.so.6")).st_mode & 0o7777
    ctx.check.expect(mode == (libc & 0o555) | 0o400, "libc %o copied as %o" % (libc, mode))


def t_program_overwritten_same_size(ctx):
    trace, rec = ctx.record(count=20)
    prog = stored(trace, "chatty")
    make_writable_copy(ctx, prog)
    size = os.path.getsize(prog)
    flip(prog, [size // 2])
    ctx.check.expect(os.path.getsize(prog) == size, "the size changed")
    res = ctx.replay(trace)
    ctx.expect_clean_failure(res, "program copy overwritten in place",
                             mention="files/%s was changed after recording: its content hash differs" %
                             os.path.basename(prog), prefix_of=b"")


def t_library_truncated(ctx):
    trace, rec = ctx.record(count=20)
    libc = stored(trace, "libc.so.6")
    size = os.path.getsize(libc)
    make_writable_copy(ctx, libc)
    os.truncate(libc, 16384)
    ctx.expect_clean_failure(ctx.replay(trace), "libc copy truncated",
                             mention="files/%s was changed after recording: size 16384, recorded %d" %
                             (os.path.basename(libc), size), prefix_of=b"")


def t_library_byte_flipped(ctx):
    trace, rec = ctx.record(count=20)
    libc = stored(trace, "libc.so.6")
    make_writable_copy(ctx, libc)
    flip(libc, [os.path.getsize(libc) // 3])
    ctx.expect_clean_failure(ctx.replay(trace), "a byte of the libc copy flipped",
                             mention="files/%s was changed after recording" % os.path.basename(libc),
                             prefix_of=b"")


def t_library_changed_and_sums_emptied(ctx):
    # files.sums is only the early check: with it emptied, the hash recorded
    # with the mapping still stops replay at the mmap of the copy.
    trace, rec = ctx.record(count=20)
    libc = stored(trace, "libc.so.6")
    make_writable_copy(ctx, libc)
    flip(libc, [os.path.getsize(libc) // 3])
    sums = os.path.join(trace, "files.sums")
    os.chmod(sums, 0o644)
    open(sums, "w").close()
    ctx.expect_clean_failure(ctx.replay(trace), "a changed libc copy, files.sums emptied",
                             mention="files/%s was changed after recording" % os.path.basename(libc),
                             prefix_of=b"")


def t_library_changed_under_gdb(ctx):
    trace, rec = ctx.record(count=20)
    libc = stored(trace, "libc.so.6")
    make_writable_copy(ctx, libc)
    flip(libc, [os.path.getsize(libc) // 3])
    res = ctx.bs("replay", trace, "--", "-batch", "-nx", "-ex", "continue", cwd="/")
    ctx.expect_clean_failure(res, "replay under gdb of a changed libc copy",
                             mention="files/%s was changed after recording" % os.path.basename(libc))


def t_damage_after_the_exit_event(ctx):
    trace, rec = ctx.record(count=20)
    events = os.path.join(trace, "events")
    ctx.good_replay(trace, rec, "replay before the damage")
    with open(events, "ab") as f:
        f.write(bytes(range(7, 7 + 64)))
    dump = ctx.bs("dump", trace)
    ctx.expect_clean_failure(dump, "dump of a trace with garbage after the exit", mention="events")
    res = ctx.replay(trace)
    ctx.expect_clean_failure(res, "replay of a trace with garbage after the exit", mention="events")
    ctx.check.expect(res.stdout == rec.stdout, "the replay did not run to the exit")


def t_partial_chunk_after_the_exit_event(ctx):
    trace, rec = ctx.record(count=20)
    with open(os.path.join(trace, "events"), "ab") as f:
        f.write(b"BSCK\x01\x02\x03")
    ctx.expect_clean_failure(ctx.replay(trace), "replay of a trace with a partial chunk after the exit",
                             mention="follows the exit event")


bad.SUBTESTS = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("t_")}

if __name__ == "__main__":
    sys.exit(bad.main())
