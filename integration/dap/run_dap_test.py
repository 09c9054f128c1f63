#!/usr/bin/env python3
"""`backstep dap` driven by Microsoft's DAP test client, as VS Code drives
an adapter (session_test.js).

Usage:
  run_dap_test.py --backstep PATH --binary PATH --source PATH --script JS [--port] [--env K=V]...
                  [--tmp-root DIR] [--keep]

The program is recorded in a fresh work directory and its binary deleted
(gdbtest.record); then `node JS BACKSTEP TRACE SOURCE` runs the session,
with HOME in the work directory (no user's .gdbinit). With --port, the
adapter is started first as `backstep dap --port 0 --once` (VS Code's
debugServer), the client connects to the port it says, and the adapter
must exit 0 after the session. With --attach, `backstep serve --port 0
--once TRACE` is started first and the session attaches to it. The npm packages are
those `scripts/setup` installs into integration/dap/node_modules.

Exit status: 0 pass, 1 fail, 77 skipped (no Node.js or no test client
installed: said on stdout), 2 usage error.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gdb"))
import gdbtest  # noqa: E402

SKIP = 77
TIMEOUT = 300


def start_listening(argv, root, env, pattern, stream):
    """Starts `argv`, a backstep that says where it listens on the first line
    of `stream`; returns the process and the pattern's group 1."""
    pipes = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    pipes[stream] = subprocess.PIPE
    proc = subprocess.Popen(argv, cwd=root, env=env, stdin=subprocess.DEVNULL, start_new_session=True, **pipes)
    line = getattr(proc, stream).readline().decode(errors="replace")
    m = re.search(pattern, line.strip())
    if not m:
        gdbtest.kill_group(proc.pid)
        raise gdbtest.RecordError("`%s`'s first line %r does not say where it listens" % (" ".join(argv[1:3]), line))
    return proc, m.group(1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backstep", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--script", required=True)
    p.add_argument("--tmp-root", default=tempfile.gettempdir())
    p.add_argument("--keep", action="store_true")
    p.add_argument("--port", action="store_true", help="the adapter on a TCP port, not stdin/stdout")
    p.add_argument("--attach", action="store_true",
                   help="`backstep serve --port 0 --once TRACE` first; the client attaches to it")
    p.add_argument("--expect-server-output", metavar="TEXT", help="with --attach: what the server must echo")
    p.add_argument("--install-extension", action="store_true",
                   help="`backstep ide vscode --install` first; BACKSTEP_VSCODE_EXTENSION names its folder")
    p.add_argument("--env", action="append", default=[], metavar="K=V", help="for the adapter and the client")
    p.add_argument("--child-pid-env", metavar="NAME",
                   help="set NAME to the recorded pid of the trace's second process (`backstep ps`)")
    opts = p.parse_args()
    node = shutil.which("node")
    modules = os.path.join(HERE, "node_modules")
    if not node:
        print("SKIP: Node.js is not installed (scripts/setup installs it)")
        return SKIP
    if not os.path.isdir(os.path.join(modules, "@vscode", "debugadapter-testsupport")):
        print("SKIP: the DAP test client is not installed: run `npm ci --prefix integration/dap` "
              "(scripts/setup does)")
        return SKIP
    if not gdbtest.gdb_available():
        print("FAIL: gdb is not installed")
        return 1
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="dap-", dir=os.path.abspath(opts.tmp_root))
    try:
        trace, _, _ = gdbtest.record(os.path.abspath(opts.backstep), opts.binary, opts.source, root)
    except gdbtest.RecordError as e:
        print("FAIL: %s" % e)
        return 1
    env = gdbtest.gdb_env(root)
    env["NODE_PATH"] = modules
    if opts.install_extension:
        extensions = os.path.join(root, "extensions")
        r = subprocess.run([os.path.abspath(opts.backstep), "ide", "vscode", "--output", os.path.join(root, "ws"),
                            "--install", "--extensions-dir", extensions, trace], capture_output=True, text=True,
                           env=env, cwd=root, timeout=TIMEOUT)
        if r.returncode != 0:
            print("FAIL: ide vscode --install: %s" % r.stderr)
            return 1
        env["BACKSTEP_VSCODE_EXTENSION"] = os.path.join(extensions, os.listdir(extensions)[0])
    if opts.child_pid_env:
        ps = subprocess.run([os.path.abspath(opts.backstep), "ps", trace], capture_output=True, text=True, env=env,
                            timeout=TIMEOUT)
        pids = [row.split()[0] for row in ps.stdout.splitlines()[1:] if row.split()]
        if ps.returncode != 0 or len(pids) < 2:
            print("FAIL: `backstep ps` lists no second process: %s%s" % (ps.stdout, ps.stderr))
            return 1
        env[opts.child_pid_env] = pids[1]
    for assignment in opts.env:
        key, _, value = assignment.partition("=")
        env[key] = value
    argv = [node, os.path.abspath(opts.script), os.path.abspath(opts.backstep), trace,
            os.path.abspath(opts.source)]
    adapter = server = None
    try:
        if opts.port:
            adapter, port = start_listening([os.path.abspath(opts.backstep), "dap", "--port", "0", "--once"], root, env,
                                            r"backstep: dap: listening on 127\.0\.0\.1:(\d+)$", "stderr")
            env["BACKSTEP_DAP_PORT"] = port
        if opts.attach:
            server, target = start_listening([os.path.abspath(opts.backstep), "serve", "--port", "0", "--once", trace],
                                             root, env, r" on (127\.0\.0\.1:\d+)$", "stdout")
            env["BACKSTEP_DAP_ATTACH"] = target
    except gdbtest.RecordError as e:
        print("FAIL: %s" % e)
        for p in (adapter, server):
            if p is not None:
                gdbtest.kill_group(p.pid)
        return 1
    try:
        r = subprocess.run(argv, cwd=root, env=env, timeout=TIMEOUT)
        status = r.returncode
        if adapter is not None and status == 0:
            code = adapter.wait(TIMEOUT)
            if code != 0:
                print("FAIL: `backstep dap --port 0 --once` exited %d after the session" % code)
                status = 1
    except subprocess.TimeoutExpired:
        print("FAIL: the DAP session did not end within %d s" % TIMEOUT)
        status = 1
    finally:
        if server is not None:
            try:
                if server.wait(TIMEOUT) != 0 and status == 0:
                    print("FAIL: `backstep serve --once` did not exit 0 after the session")
                    status = 1
                echoed = server.stdout.read().decode(errors="replace")
                if opts.expect_server_output and opts.expect_server_output not in echoed and status == 0:
                    print("FAIL: the server did not echo %r: %r" % (opts.expect_server_output, echoed))
                    status = 1
            except subprocess.TimeoutExpired:
                print("FAIL: `backstep serve --once` still runs after the session")
                gdbtest.kill_group(server.pid)
                status = 1
        if adapter is not None and adapter.poll() is None:
            gdbtest.kill_group(adapter.pid)
            adapter.wait()
    if status != 0:
        print("dap test failed; work directory kept: %s" % root)
        return 1
    if opts.keep:
        print("work directory kept: %s" % root)
    else:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
