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
     gdbtest.normalise_threads), a last line
     "[backstep replay exit status N]" is added, and the result must equal
     NAME.out exactly. A mismatch prints a unified diff.

--show prints the normalised output instead of comparing (to write a new
expected file: review it line by line first).

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
from run_scenario import SKIPPED, machine_lacks, parse_header  # noqa: E402


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


def run_one(opts, name, root, backstep):
    # A scenario's own `// timeout:` (a long correctness run) raises the limit.
    with open(opts.source) as f:
        declared = re.search(r"^// timeout: (\d+)$", f.read(), re.M)
    if declared and float(declared.group(1)) > opts.timeout:
        opts.timeout = float(declared.group(1))
    trace, _, _ = gdbtest.record(backstep, opts.binary, opts.source, root, opts.timeout)
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
    if text == expected:
        return True
    diff = difflib.unified_diff(expected.splitlines(keepends=True), text.splitlines(keepends=True),
                                "expected/" + os.path.basename(opts.expected),
                                "actual/" + os.path.basename(opts.expected))
    print("FAIL: gdb's output differs from %s (normalised; - expected, + actual):" %
          opts.expected)
    sys.stdout.writelines(diff)
    return False


if __name__ == "__main__":
    sys.exit(main())
