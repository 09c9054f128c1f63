#!/usr/bin/env python3
"""`backstep record --until-fail`: records a program again and again until a
run fails, keeps that run's trace and nothing else.

Usage:
  run_until_fail.py --backstep PATH --flaky PATH --race PATH --subtest NAME [--tmp-root DIR]
  run_until_fail.py --list

Subtests (the program, integration/until_fail/flaky.c, fails on the run a
counter file chooses):
  exit       run 4 exits 3: "run 4 of 4 failed (the program exited with status
             3)", the trace is kept under the trace root's NAME-N (and as the
             latest), and replays after the program is deleted: exit status 3,
             "run 4" on stdout; nothing else is left in the root
  fail_if    run 3 prints "oops: 3" and exits 0: --fail-if 'oops: [0-9]+'
             catches it; -o names the kept trace
  timeout    run 2 sleeps an hour: --timeout 2 stops it as Ctrl-C stops a
             recording, and its trace replays up to there
  never      no run fails in --max-runs 3: exit status 1, nothing kept
  jobs       --jobs 2 with run 5 failing: some run fails, one trace is kept,
             the runs still going are stopped and deleted
  sigint     Ctrl-C (SIGINT to the whole group, as a terminal sends it) while
             a run hangs: exit 130, nothing left, no process left
  usage      --max-runs without --until-fail, a bad --fail-if, --jobs 0,
             --chaos-seed without --chaos or with --until-fail: usage errors
             (exit 2)
  chaos      race.c (a lost update between two threads' load and store):
             --until-fail --chaos catches it within 40 runs; the kept trace
             names its chaos seed and replays the short total exactly
             (exit 1) after the program is deleted; --chaos-seed 42 is the
             seed a trace names
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TIMEOUT = 120
SUBTESTS = ["exit", "fail_if", "timeout", "never", "jobs", "sigint", "usage", "chaos"]


class Failed(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failed(message)


def entries(root):
    """The trace root's entries, but for the shared store of file copies."""
    return sorted(e for e in os.listdir(root) if e != ".backstep-files") if os.path.isdir(root) else []


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--backstep")
    p.add_argument("--flaky")
    p.add_argument("--race")
    p.add_argument("--subtest", choices=SUBTESTS)
    p.add_argument("--tmp-root", default=tempfile.gettempdir())
    p.add_argument("--list", action="store_true")
    opts = p.parse_args()
    if opts.list:
        print("\n".join(SUBTESTS))
        return 0
    backstep = os.path.abspath(opts.backstep)
    os.makedirs(opts.tmp_root, exist_ok=True)
    work = tempfile.mkdtemp(prefix="until-fail-", dir=os.path.abspath(opts.tmp_root))
    traces = os.path.join(work, "traces")
    env = {k: v for k, v in os.environ.items() if not k.startswith("BACKSTEP_DIR")}
    env["BACKSTEP_DIR"] = traces
    program = os.path.join(work, "flaky")
    shutil.copy(opts.flaky, program)
    counter = os.path.join(work, "counter")

    def backstep_run(args, timeout=TIMEOUT):
        return subprocess.run([backstep] + args, cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=timeout)

    def replay(trace):
        os.rename(program, program + ".away")  # the replay needs neither the program nor the counter
        try:
            return backstep_run(["replay", "--autopilot", trace])
        finally:
            os.rename(program + ".away", program)

    try:
        if opts.subtest == "exit":
            r = backstep_run(["record", "--until-fail", "--max-runs", "10", "--", program, counter, "4", "exit"])
            check(r.returncode == 0, "exit status %d: %s%s" % (r.returncode, r.stdout, r.stderr))
            m = re.search(r"backstep: run 4 of 4 failed \(the program exited with status 3\) after [0-9.]+ s; "
                          r"its trace: (\S+)\n", r.stdout)
            check(m, "the summary line: %r" % r.stdout)
            check("run 4\n" in r.stdout, "the failing run's output is shown: %r" % r.stdout)
            kept = m.group(1)
            check(os.path.dirname(kept) == traces and re.match(r"flaky-\d+$", os.path.basename(kept)),
                  "kept as NAME-N in the trace root: %s" % kept)
            check(entries(traces) == sorted([os.path.basename(kept), "latest-trace"]),
                  "nothing else in the root: %s" % entries(traces))
            check(os.path.realpath(os.path.join(traces, "latest-trace")) == os.path.realpath(kept), "the latest")
            rp = replay(kept)
            check(rp.returncode == 3 and rp.stdout == "run 4\n",
                  "the replay: %d %r %r" % (rp.returncode, rp.stdout, rp.stderr))
        elif opts.subtest == "fail_if":
            out = os.path.join(work, "caught")
            r = backstep_run(["record", "--until-fail", "--fail-if", "oops: [0-9]+", "-o", out, "--", program,
                              counter, "3", "print"])
            check(r.returncode == 0, "exit status %d: %s%s" % (r.returncode, r.stdout, r.stderr))
            check("run 3 of 3 failed (its output matched --fail-if)" in r.stdout, r.stdout)
            check(os.path.isdir(out), "-o names the kept trace")
            check(not [e for e in entries(work) if e.startswith(".until-fail")], "no work directory left")
            rp = replay(out)
            check(rp.returncode == 0 and rp.stdout == "run 3\noops: 3\n", "the replay: %r" % rp.stdout)
        elif opts.subtest == "timeout":
            r = backstep_run(["record", "--until-fail", "--timeout", "2", "--", program, counter, "2", "hang"])
            check(r.returncode == 0, "exit status %d: %s%s" % (r.returncode, r.stdout, r.stderr))
            m = re.search(r"run 2 of 2 failed \(it ran past --timeout\) after [0-9.]+ s; its trace: (\S+)", r.stdout)
            check(m, r.stdout)
            rp = replay(m.group(1))
            check("run 2\n" == rp.stdout, "the replay shows the run's output up to the stop: %r" % rp.stdout)
            check("recording stopped" in rp.stderr or rp.returncode != 0,
                  "the replay says the recording was stopped: %d %r" % (rp.returncode, rp.stderr))
        elif opts.subtest == "never":
            r = backstep_run(["record", "--until-fail", "--max-runs", "3", "--", program, counter, "0", "never"])
            check(r.returncode == 1, "exit status %d: %s%s" % (r.returncode, r.stdout, r.stderr))
            check("backstep: no run failed in 3 runs" in r.stdout, r.stdout)
            check([e for e in entries(traces) if not e.startswith(".")] == [] and
                  not [e for e in entries(traces) if e.startswith(".until-fail")],
                  "nothing kept: %s" % entries(traces))
            with open(counter) as f:
                check(f.read() == "3\n", "three runs")
        elif opts.subtest == "jobs":
            r = backstep_run(["record", "--until-fail", "--jobs", "2", "--max-runs", "20", "--", program, counter,
                              "5", "exit"])
            check(r.returncode == 0, "exit status %d: %s%s" % (r.returncode, r.stdout, r.stderr))
            m = re.search(r"backstep: run (\d+) of (\d+) failed \(the program exited with status 3\)", r.stdout)
            check(m, r.stdout)
            kept = [e for e in entries(traces) if e != "latest-trace"]
            check(len(kept) == 1, "one trace kept: %s" % entries(traces))
        elif opts.subtest == "sigint":
            # As a terminal's foreground job: SIGINT not ignored (a test
            # runner may have it ignored, and that would be inherited).
            proc = subprocess.Popen([backstep, "record", "--until-fail", "--jobs", "2", "--", program, counter, "1",
                                     "hang"], cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True,
                                    preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            # Wait until the hanging run has started: the counter says so.
            deadline = time.monotonic() + TIMEOUT
            while not (os.path.exists(counter) and open(counter).read().strip()):
                check(time.monotonic() < deadline, "the first run never started")
                time.sleep(0.05)
            os.killpg(proc.pid, signal.SIGINT)
            out, err = proc.communicate(timeout=TIMEOUT)
            check(proc.returncode == 130 or proc.returncode == -signal.SIGINT,
                  "exit status %d after SIGINT: %r" % (proc.returncode, err))
            check([e for e in entries(traces) if e != "latest-trace"] == [], "nothing left: %s" % entries(traces))
            left = subprocess.run(["pgrep", "-f", program], capture_output=True, text=True).stdout.split()
            check(not left, "processes left: %s" % left)
        elif opts.subtest == "usage":
            for args in (["record", "--max-runs", "3", program], ["record", "--until-fail", "--fail-if", "(", program],
                         ["record", "--until-fail", "--jobs", "0", program],
                         ["record", "--chaos-seed", "4", program],
                         ["record", "--until-fail", "--chaos", "--chaos-seed", "4", program]):
                r = backstep_run(args)
                check(r.returncode == 2 and r.stderr.startswith("backstep: "), "%s: %d %r" % (args, r.returncode,
                                                                                                r.stderr))
        elif opts.subtest == "chaos":
            race = os.path.join(work, "race")
            shutil.copy(opts.race, race)
            r = backstep_run(["record", "--until-fail", "--chaos", "--max-runs", "40", "--", race], timeout=600)
            check(r.returncode == 0, "no lost update in 40 chaos runs: %d %s%s" % (r.returncode, r.stdout, r.stderr))
            m = re.search(r"failed \(the program exited with status 1\) after [0-9.]+ s; its trace: (\S+)", r.stdout)
            check(m, r.stdout)
            total = re.search(r"counter (\d+) of 200000000\n", r.stdout)
            check(total and int(total.group(1)) < 200000000, "a short total: %r" % r.stdout)
            dump = backstep_run(["dump", m.group(1)])
            check(re.search(r"^# chaos: seed \d+$", dump.stdout, re.M), "the trace names its seed")
            os.rename(race, race + ".away")
            rp = backstep_run(["replay", "--autopilot", m.group(1)], timeout=600)
            check(rp.returncode == 1 and rp.stdout == total.group(0),
                  "the replay: %d %r (recorded %r)" % (rp.returncode, rp.stdout, total.group(0)))
            os.rename(race + ".away", race)
            seeded = os.path.join(work, "seeded")
            r = backstep_run(["record", "--chaos", "--chaos-seed", "42", "-o", seeded, "--", program, counter, "0",
                              "never"])
            check(r.returncode == 0 and "backstep: chaos scheduling, seed 42\n" in r.stderr, r.stderr)
            check("# chaos: seed 42\n" in backstep_run(["dump", seeded]).stdout, "the seed given is the one kept")
    except (Failed, subprocess.TimeoutExpired) as e:
        print("FAIL: %s" % e)
        print("work directory kept: %s" % work)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("PASS until_fail.%s" % opts.subtest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
