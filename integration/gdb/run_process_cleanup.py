#!/usr/bin/env python3
"""No replayed process or checkpoint outlives its client or backstep.

The driver makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER):
any process backstep leaves behind, alive or a zombie, is reparented to the
driver instead of init, where it is counted. Each subtest builds
checkpoints (reverse-continues, `monitor checkpoint`) under real gdb, then:

  detach   `backstep serve`: gdb detaches; the client's process must end
           having reaped everything (nothing reparented to us), while the
           server goes on; then SIGTERM ends the server, again leaving nothing.
  kill     `backstep replay`: gdb's `kill`, then gdb quits: nothing left.
  sigterm  `backstep serve --once`: SIGTERM to backstep while gdb is still
           connected: backstep dies of SIGTERM having killed and reaped its
           replay and checkpoints.
  sigterm_clients  the same with `backstep serve` (a process per client):
           the server passes SIGTERM to its client's process and waits for
           it, which ends its replay and checkpoints first.

Exit status: 0 pass, 1 fail.
"""

import argparse
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest  # noqa: E402

PR_SET_CHILD_SUBREAPER = 36
WAIT_S = 60

COMMANDS = """set pagination off
set confirm off
break visit
continue
continue
continue
reverse-continue
reverse-continue
monitor checkpoint
monitor checkpoint-stats
"""


def children():
    """Pids of the driver's children (live or zombie)."""
    pids = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/children" % tid) as f:
                pids.update(int(p) for p in f.read().split())
        except OSError:
            pass
    return pids


def describe(pids):
    out = []
    for p in sorted(pids):
        try:
            with open("/proc/%d/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out.append("%d (state %s)" % (p, fields[0]))
        except OSError:
            out.append("%d (gone)" % p)
    return ", ".join(out)


def leftovers(known):
    """Children that are not processes the driver started: reparented to us."""
    found = children() - known
    for p in found:  # reap the zombies, end the live ones: the next check starts clean
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(p, 0)
        except ChildProcessError:
            pass
    return found


def wait_until(what, condition):
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out waiting for " + what)
        time.sleep(0.05)


def server_children(pid):
    pids = set()
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                pids.update(int(p) for p in f.read().split())
    except OSError:
        pass
    return pids


def gdb(root, port, extra, wait=True):
    script = os.path.join(root, "client.gdb")
    with open(script, "w") as f:
        f.write("target extended-remote 127.0.0.1:%d\n" % port + COMMANDS + extra)
    proc = subprocess.Popen(["gdb", "-batch", "-nx", "-x", script], cwd=root, env=gdbtest.gdb_env(root),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if wait:
        out = proc.communicate(timeout=WAIT_S)[0].decode("utf-8", "replace")
        return proc, out
    return proc, None


def check_stats(out):
    if "Automatic checkpoints:" not in out or "Checkpoint 1 at" not in out:
        raise RuntimeError("no checkpoints were made; gdb said:\n" + out)


def sub_detach(backstep, trace, root):
    server = gdbtest.Server(backstep, trace, root, once=False)
    known = {server.proc.pid}
    try:
        _, out = gdb(root, server.port, "detach\n")
        check_stats(out)
        wait_until("the client's process to end", lambda: not server_children(server.proc.pid))
        left = leftovers(known)
        if left:
            return "after the client detached, left behind: " + describe(left)
        if not server.alive():
            return "the server stopped with its client"
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(WAIT_S)
        left = leftovers(known)
        if left:
            return "after SIGTERM to the server, left behind: " + describe(left)
    finally:
        server.stop()
    return None


def sub_kill(backstep, trace, root):
    script = os.path.join(root, "kill.gdb")
    with open(script, "w") as f:
        f.write(COMMANDS + "kill\n")
    proc = subprocess.Popen([backstep, "replay", trace, "--", "-batch", "-nx", "-x", script], cwd=root,
                            env=gdbtest.gdb_env(root), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    out = proc.communicate(timeout=WAIT_S)[0].decode("utf-8", "replace")
    check_stats(out)
    left = leftovers({proc.pid})
    if left:
        return "after gdb's kill and exit, left behind: " + describe(left)
    return None


def sub_sigterm(backstep, trace, root, once=True):
    server = gdbtest.Server(backstep, trace, root, once=once)
    ready = os.path.join(root, "ready")
    # gdb stays connected (in a shell command) until the driver is done.
    client, _ = gdb(root, server.port, "shell touch %s\nshell sleep %d\n" % (ready, WAIT_S), wait=False)
    known = {server.proc.pid, client.pid}
    try:
        wait_until("gdb's commands", lambda: os.path.exists(ready))
        def replaying():
            # --once: the server's children; otherwise its client's process's.
            if once:
                return server_children(server.proc.pid)
            return set().union(*[server_children(c) for c in server_children(server.proc.pid)] or [set()])
        if not replaying():
            return "backstep has no replay processes to end"
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(WAIT_S)
        if server.proc.returncode != -signal.SIGTERM:
            return "backstep ended with %s, not by SIGTERM" % server.proc.returncode
        left = leftovers(known)
        if left:
            return "after SIGTERM with gdb connected, left behind: " + describe(left)
    finally:
        client.kill()
        client.wait()
        server.stop()
    return None


SUBTESTS = {"detach": sub_detach, "kill": sub_kill, "sigterm": sub_sigterm,
            "sigterm_clients": lambda b, t, r: sub_sigterm(b, t, r, once=False)}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backstep", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--subtest", choices=sorted(SUBTESTS), required=True)
    p.add_argument("--tmp-root", default=tempfile.gettempdir())
    opts = p.parse_args()
    if not gdbtest.gdb_available():
        print("FAIL: gdb is not installed")
        return 1
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("FAIL: prctl(PR_SET_CHILD_SUBREAPER) failed")
        return 1
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="cleanup-%s-" % opts.subtest, dir=os.path.abspath(opts.tmp_root))
    backstep = os.path.abspath(opts.backstep)
    try:
        trace, _, _ = gdbtest.record(backstep, opts.binary, opts.source, root)
        why = SUBTESTS[opts.subtest](backstep, trace, root)
    except Exception as e:  # a driver error is a failure, with its reason
        why = "%s: %s" % (type(e).__name__, e)
    if why:
        print("FAIL: " + why)
        print("work directory kept: %s" % root)
        return 1
    shutil.rmtree(root, ignore_errors=True)
    print("PASS: %s" % opts.subtest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
