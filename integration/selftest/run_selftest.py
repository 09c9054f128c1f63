#!/usr/bin/env python3
"""Tests the integration drivers themselves, against fake_backstep.py.

A correct fake must pass; a fake with one injected bug (FAKE_BACKSTEP_BUG)
must make the driver fail, within its timeouts. Needs no real backstep.

Usage: run_selftest.py --scenario-bin DIR --scenario-src DIR --chatty PATH --endless PATH
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INTEGRATION = os.path.dirname(HERE)
FAKE = os.path.join(HERE, "fake_backstep.py")
sys.path.insert(0, INTEGRATION)
import run_scenario  # noqa: E402


def driver(script, args, bug=None, timeout=300, refuse=None, buffering=None):
    env = dict(os.environ)
    env.pop("FAKE_BACKSTEP_BUG", None)
    env.pop("FAKE_BACKSTEP_REFUSE", None)
    env.pop("BACKSTEP_SYSCALL_BUFFER", None)
    if buffering is not None:
        env["BACKSTEP_SYSCALL_BUFFER"] = buffering
    if bug:
        env["FAKE_BACKSTEP_BUG"] = bug
    if refuse:
        env["FAKE_BACKSTEP_REFUSE"] = refuse
    start = time.monotonic()
    p = subprocess.run([sys.executable, os.path.join(INTEGRATION, script)] + args, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), time.monotonic() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scenario-bin", required=True)
    p.add_argument("--scenario-src", required=True)
    p.add_argument("--chatty", required=True)
    p.add_argument("--endless", required=True)
    p.add_argument("--tmp-root", default=None)
    opts = p.parse_args()
    failures = []
    # The expected failures keep their work directories: put them all in one
    # place, removed at the end when everything went as expected.
    if opts.tmp_root:
        os.makedirs(opts.tmp_root, exist_ok=True)
    work = tempfile.mkdtemp(prefix="selftest-", dir=opts.tmp_root)
    tmp = ["--tmp-root", work]

    def scenario(name, bug=None, extra=(), refuse=None, buffering=None):
        return driver("run_scenario.py",
                      ["--backstep", FAKE, "--binary", os.path.join(opts.scenario_bin, name),
                       "--source", os.path.join(opts.scenario_src, name + ".c")] + tmp +
                      list(extra), bug, refuse=refuse, buffering=buffering)

    def bad(subtest, bug=None):
        return driver("run_bad_input.py",
                      ["--backstep", FAKE, "--chatty", opts.chatty, "--endless", opts.endless,
                       "--subtest", subtest] + tmp, bug)

    def expect(label, result, want_rc, want_text=None, max_seconds=None):
        rc, out, secs = result
        ok = rc == want_rc and (want_text is None or want_text in out) and \
            (max_seconds is None or secs <= max_seconds)
        print("%-4s %-55s rc=%d (want %d) %.1fs" % ("ok" if ok else "FAIL", label, rc, want_rc,
                                                    secs), flush=True)
        if not ok:
            failures.append(label)
            print("    " + out[-3000:].replace("\n", "\n    "))

    # Header parsing.
    assert run_scenario.unescape("a\\tb\\n\\x41\\\\ü") == b"a\tb\nA\\\xc3\xbc"
    sc = run_scenario.parse_header(os.path.join(opts.scenario_src, "env_argv.c"))
    assert sc.args[2] == "" and sc.args[1] == "two words" and sc.env["SCENARIO_EMPTY"] == ""
    sc = run_scenario.parse_header(os.path.join(opts.scenario_src, "stdin_text.c"))
    assert sc.stdin.count(b"\n") == 4 and b"\n\n" in sc.stdin, sc.stdin
    sc = run_scenario.parse_header(os.path.join(opts.scenario_src, "crash_segv.c"))
    assert sc.expect_exit == 139
    sc = run_scenario.parse_header(os.path.join(opts.scenario_src, "thread_tls.c"))
    assert sc.requires == {"threads"}
    print("ok   header parsing")

    # A correct tool passes.
    for name in ("file_rw", "stdio_interleave", "crash_segv", "stdin_text", "env_argv",
                 "file_mmap"):
        expect("correct fake: scenario %s" % name, scenario(name), 0)
    for sub in ("corrupt_events_middle", "truncated_events_half", "recorder_killed",
                "ls_two_recordings", "record_missing_program"):
        expect("correct fake: bad input %s" % sub, bad(sub), 0)

    # Each injected bug is caught.
    expect("bug record-stderr is caught", scenario("exit_1", "record-stderr"), 1,
           "recorded stderr differs")
    expect("bug replay-stdout is caught", scenario("file_rw", "replay-stdout"), 1,
           "stdout differs")
    expect("bug replay-stdout is caught (merged output)",
           scenario("stdio_interleave", "replay-stdout"), 1, "stdout differs")
    expect("bug replay-exit is caught", scenario("exit_3", "replay-exit"), 1, "exited with")
    expect("bug diverge is caught", scenario("stdout_large", "diverge"), 1, "divergence")
    expect("bug hang is caught by the timeout", scenario("file_rw", "hang", ["--timeout", "3"]),
           1, "timed out", max_seconds=60)
    expect("bug crash is caught", bad("corrupt_events_middle", "crash"), 1, "SIGSEGV")
    expect("bug record-stderr is caught by bad-input", bad("compress_zlib", "record-stderr"), 1)

    # `requires: threads` describes; it never excuses: a recorder that
    # refuses clone or clone3 fails a thread scenario like any other.
    expect("correct fake: thread scenario", scenario("thread_tls"), 0)
    expect("clone3 refused: thread scenario fails",
           scenario("thread_tls", refuse="clone3"), 1, "record exited with")
    expect("clone refused: thread scenario fails",
           scenario("thread_pool", refuse="clone"), 1, "record exited with")
    expect("clone3 refused: other scenario fails", scenario("file_rw", refuse="clone3"), 1)
    expect("another call refused: thread scenario fails",
           scenario("thread_tls", refuse="fork"), 1, "record exited with")
    expect("bug record-stderr is caught in a thread scenario",
           scenario("thread_pool", "record-stderr"), 1, "recorded stderr differs")

    # `expect-buffered`: the fake buffers nothing (its dump has no
    # buffer-flush lines), like a backstep whose buffering stopped working;
    # a recording made without buffering is not checked.
    expect("no buffered calls: expect-buffered fails", scenario("buf_fd_reuse"), 1,
           "only 0 system calls were buffered")
    expect("recorded unbuffered: expect-buffered not checked",
           scenario("buf_fd_reuse", buffering="0"), 0, "buffered calls: not checked")

    print("%d failure(s)" % len(failures))
    if failures:
        print("work directories kept under %s" % work)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
