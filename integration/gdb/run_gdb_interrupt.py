#!/usr/bin/env python3
"""gdb's interrupt (^C) during a `continue` through seconds of computation
with no system call, and going back to where it stopped.

Usage:
  run_gdb_interrupt.py --backstep PATH --binary PATH --source programs/long_loop.c [options]

What happens, in a fresh work directory (kept on failure):
  1. the program is recorded and its binary deleted (gdbtest.record);
  2. `backstep serve --port 0 --once TRACE` starts, and gdb/MI in async mode
     connects to it (`-gdb-set mi-async on`);
  3. `-exec-continue`; once gdb reports *running and the replay has echoed
     the program's "start" line (its last system call before the loop: from
     then on the program only computes), `-exec-interrupt`. The stop must
     be gdb's SIGINT (T02) in main's loop, with the loop counter strictly
     between 0 and its end. Nothing waits for a time: each step waits for
     gdb's or the server's output, with a timeout;
  4. `reverse-stepi` then `stepi` must give back every register and the
     counter exactly as at the interrupt; so must 40 of each (the counter
     goes down on the way: whole passes back). reverse-stepi back to the
     State anchor (the moment the interrupt came), then once more: that
     search gives up (millions of passes) with a clear message and the
     position and registers stay as they were. `run c1` (a checkpoint
     made there) after a `reverse-continue` to a breakpoint before the loop,
     and `reverse-stepi` + `stepi` from there;
  5. `continue` to the end: the replay must print the recorded last line,
     byte for byte, and the program exit normally;
  6. the server's stderr must not mention a divergence.

Exit status: 0 pass, 1 fail, 2 usage error.
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest  # noqa: E402
from run_gdb_mi import quit_gdb, run_mi_test  # noqa: E402

STEP_TIMEOUT = 60  # seconds for one command and its stop
PASSES = 600000000  # long_loop.c's PASSES
LOOP_LINES = ("19", "20")  # the for statement and its body
BACK_STEPS = 40  # a few passes round the loop (about a dozen instructions each)


def main():
    return run_mi_test("interrupt", __doc__.split("\n")[0], session, check_log=True)


def wait_for_output(server, text, timeout):
    """Waits until the replayed program's output (the server's stdout) holds
    `text`. Polls a buffer another thread fills; the condition, not the
    time, ends the wait."""
    deadline = time.monotonic() + timeout
    while text.encode() not in bytes(server.rest):
        if time.monotonic() > deadline:
            raise MiFailure("the replay did not print %r within %d s (output so far: %r)" %
                            (text, timeout, bytes(server.rest)))
        if not server.alive():
            raise MiFailure("serve exited while waiting for %r" % text)
        time.sleep(0.01)


def session(gdb, server, check, recorded_stdout):
    def command(cmd, expect_class="done", timeout=STEP_TIMEOUT):
        tok = gdb.send(cmd)
        rec = gdb.result(tok, timeout)
        if rec.cls != expect_class:
            raise MiFailure("%s: expected ^%s, got %s" % (cmd, expect_class, rec.line))
        return rec

    def stopped():
        st = gdb.stopped()
        frame = st.results.get("frame", {})
        print("  *stopped reason=%s func=%s line=%s" %
              (st.results.get("reason"), frame.get("func"), frame.get("line")), flush=True)
        return st

    def execute(cmd):
        print(cmd, flush=True)
        command(cmd, "running")
        return stopped()

    def value(expr):
        return command("-data-evaluate-expression %s" % expr).results.get("value")

    names = []

    def registers():
        rec = command("-data-list-register-values --skip-unavailable x")
        out = {}
        for r in rec.results.get("register-values", []):
            n = int(r["number"])
            if n < len(names) and names[n]:
                out[names[n]] = r["value"]
        return out

    def same_state(label, regs, counter):
        now = registers()
        diff = ["%s: %s -> %s" % (k, regs.get(k), now.get(k))
                for k in sorted(set(regs) | set(now)) if regs.get(k) != now.get(k)]
        check.expect(not diff, "%s: registers differ from the interrupt's: %s" %
                     (label, "; ".join(diff[:12])))
        got = value("counter")
        check.expect(got == counter, "%s: counter is %s, was %s at the interrupt" %
                     (label, got, counter))
        print("  %s: %d registers and counter=%s as at the interrupt" % (label, len(now), got),
              flush=True)

    command("-gdb-set mi-async on")
    command("-gdb-set confirm off")
    command("-gdb-set pagination off")
    command("-gdb-set remotetimeout 10000")
    command("-target-select extended-remote 127.0.0.1:%d" % server.port, "connected")
    names = command("-data-list-register-names").results.get("register-names", [])

    # Continue from the start; interrupt once the program computes.
    print("-exec-continue", flush=True)
    command("-exec-continue", "running")
    gdb.read_until(lambda r: r.kind == "*" and r.cls == "running", STEP_TIMEOUT, "*running")
    wait_for_output(server, "start\n", STEP_TIMEOUT)
    # The echo comes as the replay replays the write: the program may still
    # be on its way back from write() into the loop when the interrupt lands
    # (seen once under load). Then it is continued and interrupted again: the
    # loop runs for seconds.
    for attempt in range(5):
        print("-exec-interrupt", flush=True)
        command("-exec-interrupt")
        st = stopped()
        frame = st.results.get("frame", {})
        if frame.get("func") == "main" or st.results.get("signal-name") != "SIGINT":
            break
        print("  stopped in %s before the loop; continuing" % frame.get("func"), flush=True)
        command("-exec-continue", "running")
        gdb.read_until(lambda r: r.kind == "*" and r.cls == "running", STEP_TIMEOUT, "*running")
    check.expect(st.results.get("reason") == "signal-received" and
                 st.results.get("signal-name") == "SIGINT",
                 "-exec-interrupt: expected a SIGINT stop, got %s" % st.line)
    check.expect(frame.get("func") == "main" and frame.get("line") in LOOP_LINES,
                 "-exec-interrupt: expected a stop in main's loop (lines %s), got %s" %
                 ("/".join(LOOP_LINES), st.line))
    counter = value("counter")
    check.expect(counter is not None and counter.isdigit() and 0 < int(counter) < PASSES,
                 "-exec-interrupt: the counter should be inside the loop, is %s" % counter)
    regs = registers()
    print("  interrupted at pc %s, counter=%s" % (regs.get("rip"), counter), flush=True)
    command('-interpreter-exec console "monitor checkpoint"')
    print("  monitor checkpoint: %s" % "".join(gdb.console).strip(), flush=True)

    st = execute("-exec-step-instruction --reverse")
    check.expect(st.results.get("reason") == "end-stepping-range",
                 "reverse-stepi: expected end-stepping-range, got %s" % st.line)
    check.expect(registers().get("rip") != regs.get("rip") or value("counter") != counter,
                 "reverse-stepi: nothing changed")
    st = execute("-exec-step-instruction")
    check.expect(st.results.get("reason") == "end-stepping-range",
                 "stepi: expected end-stepping-range, got %s" % st.line)
    same_state("reverse-stepi + stepi", regs, counter)

    # Further back, over whole passes round the loop, and forward again.
    for _ in range(BACK_STEPS):
        command("-exec-step-instruction --reverse", "running")
        gdb.stopped()
    back = value("counter")
    check.expect(back is not None and back.isdigit() and int(back) < int(counter),
                 "%d reverse-stepi: the counter should be below %s, is %s" %
                 (BACK_STEPS, counter, back))
    print("  %d reverse-stepi: counter=%s" % (BACK_STEPS, back), flush=True)
    for _ in range(BACK_STEPS):
        command("-exec-step-instruction", "running")
        gdb.stopped()
    same_state("%d reverse-stepi + %d stepi" % (BACK_STEPS, BACK_STEPS), regs, counter)

    # Back to the moment the interrupt came (the State anchor: "+state
    # PC/DIGEST" with no steps after it), and once more: that needs a search
    # from the event before, one trap per pass, which gives up here (millions
    # of passes) with a clear message and stays where it was.
    def position():
        command('-interpreter-exec console "monitor when"')
        text = "".join(r[2:] for r in gdb.transcript[-4:] if r.startswith('@"'))
        m = re.search(r"Position: ([^\\]*)", text)
        return m.group(1) if m else text

    steps = 0
    while not re.search(r"\+state 0x[0-9a-f]+/[0-9a-f]+$", position()):
        command("-exec-step-instruction --reverse", "running")
        gdb.stopped()
        steps += 1
        if steps > 5000:
            raise MiFailure("5000 reverse-stepi did not reach the State anchor: %s" % position())
    anchor = position()
    anchor_regs = registers()
    print("  %d reverse-stepi to the anchor: %s" % (steps, anchor), flush=True)
    check.expect(steps >= 256, "only %d instructions between the anchor and the stop" % steps)
    first = len(gdb.transcript)
    command("-exec-step-instruction --reverse", "running", timeout=300)
    gdb.stopped()
    said = "\n".join(gdb.transcript[first:])
    check.expect("cannot find the place where the program was interrupted" in said and
                 "not searching further" in said,
                 "reverse-stepi before the anchor: no clear message that the search gave up:\n%s" % said)
    check.expect(position() == anchor, "after the search gave up, the position is %s, not %s" %
                 (position(), anchor))
    check.expect(registers() == anchor_regs, "after the search gave up, the registers changed")

    # Back before the loop, then to the checkpoint made at the interrupt.
    command("-break-insert before_loop")
    st = execute("-exec-continue --reverse")
    check.expect(st.results.get("reason") == "breakpoint-hit" and
                 st.results.get("frame", {}).get("func") == "before_loop",
                 "reverse-continue: expected the breakpoint in before_loop, got %s" % st.line)
    check.expect(value("counter") == "0", "reverse-continue: counter is %s before the loop" %
                 value("counter"))
    command("-break-delete")
    print("run c1", flush=True)
    command('-interpreter-exec console "run c1"', "running")
    stopped()
    same_state("run c1", regs, counter)
    execute("-exec-step-instruction --reverse")
    execute("-exec-step-instruction")
    same_state("run c1, reverse-stepi + stepi", regs, counter)

    # On to the end: the recorded output, then the exit.
    last_line = recorded_stdout.splitlines()[-1] + "\n"
    st = execute("-exec-continue")
    check.expect(st.results.get("reason") is None,
                 "continue: expected the end of the recorded history, got %s" % st.line)
    wait_for_output(server, last_line, STEP_TIMEOUT)
    check.expect(re.search(r"counter=%d\b" % PASSES, last_line) is not None,
                 "the recording's last line is %r" % last_line)
    st = execute("-exec-continue")
    check.expect(st.results.get("reason") == "exited-normally",
                 "continue: expected exited-normally, got %s" % st.line)

    rc = quit_gdb(gdb, server, check, STEP_TIMEOUT)
    check.expect(rc == 0, "backstep serve --once exited with status %s" % rc)


if __name__ == "__main__":
    sys.exit(main())
