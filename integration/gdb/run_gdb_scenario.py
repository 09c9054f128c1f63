#!/usr/bin/env python3
"""Debug one recorded scenario with gdb, forwards and backwards, and compare
gdb's output with the expected file.

Usage:
  run_gdb_scenario.py --backstep PATH --binary PATH --source NAME.c \\
                      --script NAME.gdb --expected NAME.out [options]

What happens, in a fresh work directory (kept on failure):
  1. the binary is copied into run/ with the inputs its header declares (the
     header syntax of ../run_scenario.py: `// args:`, `// input:`,
     `// stdin:`, `// expect-exit:` ...), and recorded there with
     `backstep record -o trace -- ./NAME ARGS`; the exit status must be the
     declared one;
  2. the binary and the inputs are deleted;
  3. the script is copied into the work directory and run from there:
       backstep replay trace -- -batch -nx -x NAME.gdb
     with stdin /dev/null and stdout and stderr in one pipe (so their order is
     checked too);
  4. the output is normalised (the work directory -> WORK, hex numbers of 8 to
     16 digits -> 0xADDR, process ids -> PID, gdb's "Thread PID.TID" ->
     "Thread PID.PID" for the main thread and "Thread PID.TIDn" for the
     others, n counting threads in order of first appearance: see
     gdbtest.normalise_threads; event numbers, on both sides, -> "event #k"
     in order of first appearance, since they depend on the CPU), a last line
     "[backstep replay exit status N]" is added, and the result must equal
     NAME.out exactly. A mismatch prints a unified diff.

Header lines this driver reads besides run_scenario.py's:
  // compare: native gdb      also run the script under gdb natively, on a
                              copy of the program (before recording), and
                              compare the hit counts, watchpoint reports
                              (old and new values), breakpoint stops and
                              printed values of both sessions
                              (native_compare.py; a script that goes back
                              marks where with `echo -- backwards --\n`)
  // expect-positions: N      the recording holds at least N forced
                              positions (`backstep dump --stats`), so that
                              the replay runs through them
  // expect-stored-states: N  ... of which at least N carry a stored state

--show prints the normalised output instead of comparing (to write a new
expected file: review it line by line first); the native comparison is
still made and printed.

Exit status: 0 pass, 1 fail, 2 usage error, 77 skipped (a `// requires:` of
the machine it lacks: run_scenario.py, machine_lacks).
"""

import argparse
import difflib
import os
import subprocess
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest  # noqa: E402
import native_compare  # noqa: E402
from run_scenario import SKIPPED, machine_lacks, parse_header, tail  # noqa: E402

# `backstep dump --stats`: "# positions: 4 (counted 2, by digest 2: 0
# fixpoints, 0 with a stored state), stored state 0 bytes".
POSITIONS = re.compile(r"^# positions: (\d+)\b.*$", re.M)
STORED = re.compile(r"\b(\d+) with a stored state\b")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backstep", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--script", required=True)
    p.add_argument("--expected")
    p.add_argument("--tmp-root", default=tempfile.gettempdir())
    p.add_argument("--timeout", type=float, default=gdbtest.TIMEOUT)
    p.add_argument("--keep", action="store_true")
    p.add_argument("--show", action="store_true", help="print the normalised output")
    opts = p.parse_args()
    if not opts.show and not opts.expected:
        p.error("--expected is required unless --show")
    if not gdbtest.gdb_available():
        print("FAIL: gdb is not installed")
        return 1
    name = os.path.splitext(os.path.basename(opts.source))[0]
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="gdb-%s-" % name, dir=os.path.abspath(opts.tmp_root))
    backstep = os.path.abspath(opts.backstep)
    ok = False
    lacking = machine_lacks(parse_header(opts.source), os.path.abspath(opts.binary), root)
    if lacking:
        shutil.rmtree(root, ignore_errors=True)
        print("SKIPPED gdb.%s: %s" % (name, lacking))
        return SKIPPED
    try:
        ok = run_one(opts, name, root, backstep)
    except gdbtest.RecordError as e:
        print("FAIL: %s" % e)
    except Exception:
        import traceback
        traceback.print_exc()
        print("FAIL: driver error")
    if ok and not opts.keep:
        shutil.rmtree(root, ignore_errors=True)
    else:
        print("work directory kept: %s" % root)
    if ok and not opts.show:
        print("PASS gdb.%s" % name)
    return 0 if ok else 1


def debuggee_args(backstep, source, trace):
    """`// debug: OPTION child N` in the source's header: debug the Nth process
    the program created, with OPTION (-p, --onfork, --onexec). Recorded pids
    vary, so the header names the process by rank, and the pid comes from
    `backstep ps` (one row per process in creation order; the first is the
    program itself), as a user would find it."""
    with open(source, encoding="utf-8") as f:
        m = re.search(r"^// debug: (\S+) child (\d+)$", f.read(), re.M)
    if not m:
        return []
    table = subprocess.run([backstep, "ps", trace], capture_output=True, text=True, check=True).stdout
    rows = [line.split("\t") for line in table.splitlines()[1:]]
    children = [row[0] for row in rows[1:]]
    rank = int(m.group(2))
    if rank > len(children):
        raise RuntimeError("the trace has %d child processes, the header wants child %d" % (len(children), rank))
    return [m.group(1), children[rank - 1]]


def header_number(text, key):
    m = re.search(r"^// %s: (\d+)$" % re.escape(key), text, re.M)
    return int(m.group(1)) if m else None


def run_native(opts, root):
    """The script's native part under gdb natively, on a copy of the program
    with its inputs in root/native; returns the normalised output, or None
    when that session failed (said why)."""
    sc = parse_header(opts.source)
    native_dir = os.path.join(root, "native")
    os.makedirs(native_dir)
    exe = os.path.join(native_dir, os.path.basename(opts.binary))
    shutil.copy2(opts.binary, exe)
    for input_name, data in sc.inputs:
        with open(os.path.join(native_dir, input_name), "wb") as f:
            f.write(data)
    stdin_file = None
    if sc.stdin:
        stdin_file = os.path.join(root, "native-stdin")
        with open(stdin_file, "wb") as f:
            f.write(sc.stdin)
    with open(opts.script, encoding="utf-8") as f:
        script_text = f.read()
    script = os.path.join(root, "native-" + os.path.basename(opts.script))
    with open(script, "w", encoding="utf-8") as f:
        f.write(native_compare.native_script(script_text))
    env = gdbtest.gdb_env(root)
    env.update(sc.env)
    argv = native_compare.native_gdb_argv("./" + os.path.basename(exe), sc.args, script, stdin_file)
    res = gdbtest.run(argv, native_dir, env, None, opts.timeout, merged=True)
    print("native gdb: %s in %.2f s" % (res.describe(), res.elapsed), flush=True)
    raw = res.stdout.decode("utf-8", "replace")
    with open(os.path.join(root, "gdb-native-output.txt"), "w") as f:
        f.write(raw)
    if res.timed_out:
        print("FAIL: native gdb timed out after %.0f s; output so far:\n%s" % (opts.timeout, raw))
        return None
    text = gdbtest.normalise(raw, root)
    print("native gdb reported: %s" % native_compare.summary(text), flush=True)
    return text


def check_positions(backstep, trace, root, source_text):
    """`// expect-positions: N` and `// expect-stored-states: N`: the
    recording must hold that many forced positions, or the scenario would
    not test what it says."""
    want = header_number(source_text, "expect-positions")
    want_stored = header_number(source_text, "expect-stored-states")
    if want is None and want_stored is None:
        return True
    res = gdbtest.run([backstep, "dump", "--stats", trace], root, gdbtest.base_env(root), None, gdbtest.TIMEOUT)
    m = POSITIONS.search(res.stdout.decode("utf-8", "replace"))
    if res.timed_out or res.status() != 0 or not m:
        print("FAIL: backstep dump --stats: %s, no positions line; stdout:\n%s\nstderr:\n%s" %
              (res.describe(), tail(res.stdout), tail(res.stderr)))
        return False
    total = int(m.group(1))
    with_state = STORED.search(m.group(0))
    stored = int(with_state.group(1)) if with_state else 0
    print("%s (expected at least %d, %d with a stored state)" %
          (m.group(0)[2:], want or 0, want_stored or 0), flush=True)
    ok = True
    if want is not None and total < want:
        print("FAIL: the recording holds %d forced positions, expected at least %d (expect-positions)" %
              (total, want))
        ok = False
    if want_stored is not None and stored < want_stored:
        print("FAIL: %d positions carry a stored state, expected at least %d (expect-stored-states)" %
              (stored, want_stored))
        ok = False
    return ok


EVENT_NUMBER = re.compile(r"\b(event:?) (\d+)\b", re.I)


def number_events(text):
    """`event N` (and gdb's `Current event: N`) -> `event #k`, k counting the distinct event numbers in
    order of first appearance (see run_one)."""
    names = {}

    def rename(m):
        names.setdefault(m.group(2), len(names) + 1)
        return "%s #%d" % (m.group(1), names[m.group(2)])

    return EVENT_NUMBER.sub(rename, text)


def compare_with_native(native_text, text):
    problems = native_compare.compare(native_text, text)
    if not problems:
        print("native gdb and replay reported the same", flush=True)
        return True
    for title, want, got in problems:
        print("FAIL: %s:" % title)
        sys.stdout.writelines(difflib.unified_diff(want, got, "expected", "actual", n=2))
    return False


def run_one(opts, name, root, backstep):
    with open(opts.source) as f:
        source_text = f.read()
    # A scenario's own `// timeout:` (a long correctness run) raises the limit.
    declared = re.search(r"^// timeout: (\d+)$", source_text, re.M)
    if declared and float(declared.group(1)) > opts.timeout:
        opts.timeout = float(declared.group(1))
    native_text = None
    if re.search(r"^// compare: native gdb$", source_text, re.M):
        native_text = run_native(opts, root)
        if native_text is None:
            return False
    trace, _, _ = gdbtest.record(backstep, opts.binary, opts.source, root, opts.timeout)
    positions_ok = check_positions(backstep, trace, root, source_text)
    script = os.path.join(root, os.path.basename(opts.script))
    shutil.copyfile(opts.script, script)
    argv = [backstep, "replay"] + debuggee_args(backstep, opts.source, trace) + \
        [trace, "--", "-batch", "-nx", "-x", os.path.basename(script)]
    res = gdbtest.run(argv, root, gdbtest.gdb_env(root), None, opts.timeout, merged=True)
    print("replay under gdb: %s in %.2f s" % (res.describe(), res.elapsed), flush=True)
    raw = res.stdout.decode("utf-8", "replace")
    with open(os.path.join(root, "gdb-output.txt"), "w") as f:
        f.write(raw)
    if res.timed_out:
        print("FAIL: timed out after %.0f s; output so far:\n%s" % (opts.timeout, raw))
        return False
    text = gdbtest.normalise(raw, root)
    if text and not text.endswith("\n"):
        text += "\n"
    text += "[backstep replay exit status %d]\n" % res.status()
    native_ok = True
    if native_text is not None:
        print("replay reported: %s" % native_compare.summary(native_compare.split_backwards(text)[0]),
              flush=True)
        native_ok = compare_with_native(native_text, text)
    if opts.show:
        sys.stdout.write(text)
        return True
    # Recordings made without syscall buffering (BACKSTEP_SYSCALL_BUFFER=0,
    # the suite's second pass) number their events differently: a scenario
    # that prints event numbers has its expected output for that mode in
    # NAME.nobuf.out.
    nobuf = opts.expected[:-len(".out")] + ".nobuf.out"
    if os.environ.get("BACKSTEP_SYSCALL_BUFFER") == "0" and os.path.exists(nobuf):
        opts.expected = nobuf
    with open(opts.expected, encoding="utf-8") as f:
        expected = f.read()
    # Event numbers (`monitor when`, checkpoints) count the recording's
    # events, which include one for each cpuid the dynamic loader runs: how
    # many depends on the CPU (an AMD loader asks fewer leaves than an
    # Intel one). Both sides name them in order of first appearance, so a
    # scenario still checks which positions are the same event.
    expected, text = number_events(expected), number_events(text)
    if text == expected:
        return native_ok and positions_ok
    diff = difflib.unified_diff(expected.splitlines(keepends=True), text.splitlines(keepends=True),
                                "expected/" + os.path.basename(opts.expected),
                                "actual/" + os.path.basename(opts.expected))
    print("FAIL: gdb's output differs from %s (normalised; - expected, + actual):" %
          opts.expected)
    sys.stdout.writelines(diff)
    return False


if __name__ == "__main__":
    sys.exit(main())
