#!/usr/bin/env python3
"""`backstep ps`: the processes of recorded trees, read from the trace alone.

Usage:
  run_ps.py --backstep PATH --threaded-fork PATH --subtest NAME [--tmp-root DIR]
  run_ps.py --list

Subtests:
  shell_tree     /bin/sh -c with pipelines (one in a nested shell), a failing
                 command, a shell killed by SIGKILL and a subshell that never
                 execs: every row's parent, exit code and command
  thread_parent  a process forked by a worker thread (proc_threaded_fork):
                 its PPID is the process, not the thread's tid
  stopped        a recording stopped by SIGTERM while two processes run:
                 their EXIT is "none"
  bad_traces     a damaged trace, a missing one, too many arguments: a
                 "backstep:" error and a non-zero status, no table

Pids vary from run to run: the rows are checked by their relations (which
row's PID is which row's PPID), commands and exit codes.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile

TIMEOUT = 120

# Creation order under dash: the three members of the first pipeline, ls,
# the nested shell and its two pipeline members, the shell that kills
# itself, then the subshell.
SHELL_SCRIPT = ('seq 1 100 | grep 7 | wc -l; ls /nonexistent-dir 2>/dev/null; '
                'sh -c "seq 3 | wc -l; exit 4"; sh -c "kill -KILL \\$\\$"; (exit 3); exit 5')


class Failed(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failed(message)


def run(argv, cwd, timeout=TIMEOUT, stdin=subprocess.DEVNULL):
    return subprocess.run(argv, cwd=cwd, stdin=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout)


def parse_ps(out):
    """The rows of `ps` output as dicts; checks the header line."""
    lines = out.decode("utf-8", "replace").splitlines()
    check(lines and lines[0] == "PID\tPPID\tEXIT\tCMD", "bad header line: %r" % lines[:1])
    rows = []
    for line in lines[1:]:
        fields = line.split("\t", 3)
        check(len(fields) == 4, "a row without four tab-separated fields: %r" % line)
        check(fields[0].isdigit(), "PID is not a number: %r" % line)
        check(fields[1] == "-" or fields[1].isdigit(), "PPID is not a number or '-': %r" % line)
        rows.append({"pid": fields[0], "ppid": fields[1], "exit": fields[2], "cmd": fields[3]})
    pids = [r["pid"] for r in rows]
    check(len(set(pids)) == len(pids), "a PID appears twice: %s" % pids)
    return rows


def ps(opts, trace, cwd):
    res = run([opts.backstep, "ps", trace], cwd)
    print(res.stdout.decode("utf-8", "replace"), end="")
    check(res.returncode == 0, "ps exited with %d: %s" % (res.returncode, res.stderr.decode()))
    return parse_ps(res.stdout), res


def expect_rows(rows, expected):
    """expected: (parent index or None, exit, cmd) per row, in order."""
    check(len(rows) == len(expected), "%d rows, expected %d" % (len(rows), len(expected)))
    for i, (row, (parent, exit_text, cmd)) in enumerate(zip(rows, expected)):
        want_ppid = "-" if parent is None else rows[parent]["pid"]
        check(row["ppid"] == want_ppid, "row %d: PPID %s, expected %s (row %s's PID)" %
              (i, row["ppid"], want_ppid, parent))
        check(row["exit"] == exit_text, "row %d: EXIT %s, expected %s" % (i, row["exit"], exit_text))
        check(row["cmd"] == cmd, "row %d: CMD %r, expected %r" % (i, row["cmd"], cmd))


def t_shell_tree(opts, root):
    trace = os.path.join(root, "trace")
    rec = run([opts.backstep, "record", "-o", trace, "--", "/bin/sh", "-c", SHELL_SCRIPT], root)
    check(rec.returncode == 5, "record exited with %d, expected 5: %s" % (rec.returncode, rec.stderr.decode()))
    check(rec.stdout == b"19\n3\n", "the recording printed %r" % rec.stdout)
    rows, _ = ps(opts, trace, root)
    expect_rows(rows, [
        (None, "5", "/bin/sh -c " + SHELL_SCRIPT),
        (0, "0", "seq 1 100"),
        (0, "0", "grep 7"),
        (0, "0", "wc -l"),
        (0, "2", "ls /nonexistent-dir"),
        (0, "4", "sh -c seq 3 | wc -l; exit 4"),
        (5, "0", "seq 3"),
        (5, "0", "wc -l"),
        (0, "-9", "sh -c kill -KILL $$"),
        (0, "3", "(forked without exec)"),
    ])
    # The default trace (the latest) gives the same table.
    res = run([opts.backstep, "record", "--", "/bin/sh", "-c", "exit 0"], root)
    check(res.returncode == 0, "second record failed: %s" % res.stderr.decode())
    latest = run([opts.backstep, "ps"], root)
    check(latest.returncode == 0, "ps of the latest trace failed: %s" % latest.stderr.decode())
    expect_rows(parse_ps(latest.stdout), [(None, "0", "/bin/sh -c exit 0")])


def t_thread_parent(opts, root):
    exe = os.path.join(root, "proc_threaded_fork")
    shutil.copy2(opts.threaded_fork, exe)
    trace = os.path.join(root, "trace")
    rec = run([opts.backstep, "record", "-o", trace, "--", "./proc_threaded_fork"], root)
    check(rec.returncode == 0, "record exited with %d: %s" % (rec.returncode, rec.stderr.decode()))
    rows, _ = ps(opts, trace, root)
    # main forks a child, then a worker thread forks another.
    expect_rows(rows, [
        (None, "0", "./proc_threaded_fork"),
        (0, "17", "(forked without exec)"),
        (0, "17", "(forked without exec)"),
    ])


def t_stopped(opts, root):
    trace = os.path.join(root, "trace")
    script = 'sh -c "echo started; read line"; echo never'
    proc = subprocess.Popen([opts.backstep, "record", "-o", trace, "--", "/bin/sh", "-c", script],
                            cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        # The nested shell prints once it runs; then it waits for a line of
        # stdin that never comes, and its parent waits for it.
        first = proc.stdout.readline()
        check(first == b"started\n", "the recording printed %r" % first)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    print("record: status %d, stderr %r" % (proc.returncode, err))
    check(proc.returncode != 0, "the stopped recording exited with 0")
    rows, res = ps(opts, trace, root)
    expect_rows(rows, [
        (None, "none", "/bin/sh -c " + script),
        (0, "none", "sh -c echo started; read line"),
    ])


def expect_error(res, what):
    print("%s: status %d, stdout %r, stderr %r" % (what, res.returncode, res.stdout, res.stderr))
    check(res.returncode != 0, "%s: exit status 0" % what)
    check(res.stderr.startswith(b"backstep: "), "%s: no 'backstep:' error: %r" % (what, res.stderr))
    check(b"Traceback" not in res.stderr and b"terminate called" not in res.stderr,
          "%s: crashed: %r" % (what, res.stderr))
    check(b"PID\tPPID" not in res.stdout, "%s: printed a table anyway" % what)


def t_bad_traces(opts, root):
    trace = os.path.join(root, "trace")
    rec = run([opts.backstep, "record", "-o", trace, "--", "/bin/sh", "-c", "seq 3 | wc -l"], root)
    check(rec.returncode == 0, "record failed: %s" % rec.stderr.decode())
    events = os.path.join(trace, "events")
    with open(events, "r+b") as f:
        data = bytearray(f.read())
        data[len(data) // 2] ^= 0xFF
        f.seek(0)
        f.write(data)
    expect_error(run([opts.backstep, "ps", trace], root), "ps of a damaged trace")
    expect_error(run([opts.backstep, "ps", os.path.join(root, "no-such-trace")], root), "ps of a missing trace")
    res = run([opts.backstep, "ps", trace, trace], root)
    expect_error(res, "ps with two traces")
    check(res.returncode == 2, "ps with two traces: status %d, expected 2 (usage)" % res.returncode)


SUBTESTS = {"shell_tree": t_shell_tree, "thread_parent": t_thread_parent, "stopped": t_stopped,
            "bad_traces": t_bad_traces}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backstep")
    p.add_argument("--threaded-fork", help="the proc_threaded_fork scenario binary")
    p.add_argument("--subtest", choices=sorted(SUBTESTS))
    p.add_argument("--tmp-root", default=tempfile.gettempdir())
    p.add_argument("--list", action="store_true")
    opts = p.parse_args(argv)
    if opts.list:
        print("\n".join(SUBTESTS))
        return 0
    if not opts.backstep or not opts.subtest or (opts.subtest == "thread_parent" and not opts.threaded_fork):
        p.error("--backstep and --subtest are required (and --threaded-fork for thread_parent)")
    opts.backstep = os.path.abspath(opts.backstep)
    if opts.threaded_fork:
        opts.threaded_fork = os.path.abspath(opts.threaded_fork)
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="ps-%s-" % opts.subtest, dir=opts.tmp_root)
    # Traces recorded without -o, and the latest-trace link, stay in here.
    os.environ["BACKSTEP_DIR"] = os.path.join(root, "backstep-dir")
    os.environ["LC_ALL"] = "C"
    try:
        SUBTESTS[opts.subtest](opts, root)
    except Failed as e:
        print("FAIL: %s (work directory kept: %s)" % (e, root))
        return 1
    except subprocess.TimeoutExpired as e:
        print("FAIL: timed out: %s (work directory kept: %s)" % (e, root))
        return 1
    shutil.rmtree(root, ignore_errors=True)
    print("PASS ps.%s" % opts.subtest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
