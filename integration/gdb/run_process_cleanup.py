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
  replay_socket  `backstep replay`: gdb is connected to a Unix socket in a
           0700 directory under $XDG_RUNTIME_DIR (the test's own), its
           commands file is in there too, and all of it is gone afterwards.
  replay_sigterm  SIGTERM to `backstep replay` while gdb waits for commands:
           backstep dies of SIGTERM having ended and reaped gdb, and no file
           it made for gdb is left ($XDG_RUNTIME_DIR and $TMPDIR are empty).
  replay_sigterm_lldb  the same with --debugger lldb, whose private copies
           of the program and libraries must go too.

Exit status: 0 pass, 1 fail.
"""

import argparse
import ctypes
import os
import re
import select
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


def private_env(root):
    """The environment for `backstep replay`, with $XDG_RUNTIME_DIR and
    $TMPDIR empty directories of the test's own. $XDG_RUNTIME_DIR is under
    /tmp: a socket's path must stay short (backstep uses /tmp instead of a
    longer one); the caller removes it (done_with)."""
    env = gdbtest.gdb_env(root)
    env["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="bs-xdg-", dir="/tmp")
    env["TMPDIR"] = os.path.join(root, "tmp")
    os.mkdir(env["TMPDIR"], 0o700)
    return env


def left_in(env):
    """What is left in the test's $XDG_RUNTIME_DIR and $TMPDIR."""
    return sorted(os.path.join(env[v], f) for v in ("XDG_RUNTIME_DIR", "TMPDIR") for f in os.listdir(env[v]))


def done_with(env):
    shutil.rmtree(env["XDG_RUNTIME_DIR"], ignore_errors=True)


def sub_replay_socket(backstep, trace, root):
    env = private_env(root)
    try:
        return replay_socket(backstep, trace, root, env)
    finally:
        done_with(env)


def replay_socket(backstep, trace, root, env):
    script = os.path.join(root, "socket.gdb")
    with open(script, "w") as f:
        f.write("""python
import os, stat
path = gdb.selected_inferior().connection.details
here = os.path.dirname(path)
print("BS-SOCKET %s socket=%s dir-mode=%o dir-uid=%d" % (path, stat.S_ISSOCK(os.stat(path).st_mode),
      stat.S_IMODE(os.stat(here).st_mode), os.stat(here).st_uid))
print("BS-FILES %s" % " ".join(sorted(os.listdir(here))))
end
info registers rip
""")
    proc = subprocess.Popen([backstep, "replay", trace, "--", "-batch", "-nx", "-x", script], cwd=root, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.communicate(timeout=WAIT_S)[0].decode("utf-8", "replace")
    m = re.search(r"^BS-SOCKET (\S+) socket=(\w+) dir-mode=(\d+) dir-uid=(\d+)$", out, re.M)
    if not m:
        return "gdb is not connected to a Unix socket's path; gdb said:\n" + out
    path, is_socket, mode, uid = m.group(1), m.group(2), m.group(3), int(m.group(4))
    here = os.path.dirname(path)
    if os.path.dirname(here) != env["XDG_RUNTIME_DIR"] or not os.path.basename(here).startswith("backstep-"):
        return "the socket %s is not in a backstep-XXXXXX directory under $XDG_RUNTIME_DIR" % path
    if is_socket != "True" or mode != "700" or uid != os.geteuid():
        return "%s: socket=%s, directory mode %s, owner %d: expected a socket in our own 0700 directory" % (
            path, is_socket, mode, uid)
    if not re.search(r"^BS-FILES gdb-commands rsp\.sock$", out, re.M):
        return "the private directory holds something else than gdb's commands and the socket:\n" + out
    if not re.search(r"^rip\s+0x", out, re.M) or proc.returncode != 0:
        return "gdb was not served through the socket (exit %s):\n%s" % (proc.returncode, out)
    if os.path.lexists(here) or left_in(env):
        return "left behind after replay: %s" % (left_in(env) or here)
    return None


def debugger_of(pid):
    """The debugger backstep started: its pid and argv."""
    for child in server_children(pid):
        try:
            with open("/proc/%d/cmdline" % child, "rb") as f:
                argv = [a.decode() for a in f.read().split(b"\0") if a]
        except OSError:
            continue
        if argv and re.search(r"(^|/)(gdb|lldb[-0-9]*)$", argv[0]):
            return child, argv
    return None, []


def made_for(argv):
    """The paths in the debugger's argv that backstep made for it."""
    paths = []
    for i, a in enumerate(argv):
        if i > 0 and argv[i - 1] in ("-x", "-f"):
            paths.append(a)
        m = re.search(r"(?:target extended-remote |unix-connect://)(/\S+)$", a)
        if m:
            paths.append(m.group(1))
    return paths


def sub_replay_sigterm(backstep, trace, root, lldb=False):
    env = private_env(root)
    if lldb:
        debugger_args = ["--debugger", "lldb", trace, "--", "-o", "script print('BS-READY')"]
    else:
        debugger_args = [trace, "--", "-nx", "-ex", "python print('BS-READY')"]
    # The debugger reads its commands from stdin, a pipe kept open: it waits
    # at its prompt, as under a user, until the signal.
    proc = subprocess.Popen([backstep, "replay"] + debugger_args, cwd=root, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    known = {proc.pid}
    out = b""
    try:
        deadline = time.monotonic() + WAIT_S
        while b"BS-READY" not in out:
            ready, _, _ = select.select([proc.stdout], [], [], max(0, deadline - time.monotonic()))
            chunk = os.read(proc.stdout.fileno(), 65536) if ready else b""
            if not chunk:
                return "the debugger never got ready; it said:\n" + out.decode("utf-8", "replace")
            out += chunk
        debugger, argv = debugger_of(proc.pid)
        if debugger is None:
            return "no debugger among backstep's children"
        paths = made_for(argv)
        if not paths or not all(os.path.lexists(p) for p in paths):
            return "the debugger's argv names no files backstep made: %s" % argv
        proc.send_signal(signal.SIGTERM)
        rest = proc.communicate(timeout=WAIT_S)[0]
        if proc.returncode != -signal.SIGTERM:
            return "backstep ended with %s, not by SIGTERM; it said:\n%s" % (
                proc.returncode, (out + rest).decode("utf-8", "replace"))
        if os.path.exists("/proc/%d" % debugger):
            return "the debugger (pid %d) outlived backstep" % debugger
        left = leftovers(known)
        if left:
            return "after SIGTERM, left behind: " + describe(left)
        files = [p for p in paths if os.path.lexists(p)] + left_in(env)
        if files:
            return "after SIGTERM, files left behind: %s" % files
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        done_with(env)
    return None


SUBTESTS = {"detach": sub_detach, "kill": sub_kill, "sigterm": sub_sigterm,
            "sigterm_clients": lambda b, t, r: sub_sigterm(b, t, r, once=False),
            "replay_socket": sub_replay_socket, "replay_sigterm": sub_replay_sigterm,
            "replay_sigterm_lldb": lambda b, t, r: sub_replay_sigterm(b, t, r, lldb=True)}


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
