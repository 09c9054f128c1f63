"""What the drivers of refused recordings check (run_int80_refused.py,
run_stub_area_refused.py): the recording stops at the refused call with
exit 125 and a message that says why, before the call runs; replay of the
trace runs up to it and gives the same reason, never a divergence."""
import os
import shutil
import subprocess

REFUSED = 125  # `backstep record` when it stopped at a call it cannot record


def record_refused(backstep, argv, cwd, env, trace, want, failures, stdout=b"before\n"):
    """Records `argv` into `trace`; appends to `failures` unless it was
    refused with a message containing `want`, having printed only
    `stdout`. Returns record's stderr."""
    rec = subprocess.run([backstep, "record", "-o", trace, "--"] + argv, cwd=cwd, env=env,
                         stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    err = rec.stderr.decode(errors="replace")
    if rec.returncode != REFUSED:
        failures.append("record exit %d, expected %d (refused): %s" % (rec.returncode, REFUSED, err))
    if want not in err:
        failures.append("record's message does not name %r: %s" % (want, err))
    if rec.stdout != stdout:
        failures.append("record stdout %r, expected only %r (the call must not run)" % (rec.stdout, stdout))
    return err


def replay_stops_there(backstep, trace, env, want, failures, stdout=b"before\n"):
    """Replays `trace`; appends to `failures` unless it ran up to the refused
    call and gave the recording's reason (`want`)."""
    rep = subprocess.run([backstep, "replay", "--autopilot", trace], cwd="/", env=env,
                         stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    rerr = rep.stderr.decode(errors="replace")
    if rep.returncode != REFUSED or want not in rerr or "diverged" in rerr or rep.stdout != stdout:
        failures.append("replay exit %d, stdout %r, expected the recording's reason: %s" %
                        (rep.returncode, rep.stdout, rerr))


def finish(work, failures, passed):
    """Prints the failures (keeping `work`) or `passed` (removing it); the
    driver's exit status."""
    for f in failures:
        print("FAIL: " + f)
    if failures:
        print("work directory kept: %s" % work)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("PASS: " + passed)
    return 0
