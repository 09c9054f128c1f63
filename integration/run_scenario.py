#!/usr/bin/env python3
"""Record one scenario program with backstep, then replay it and compare.

Usage:
  run_scenario.py --backstep PATH --binary PATH --source NAME.c [options]
  run_scenario.py --native --binary PATH --source NAME.c    (no backstep: checks the scenario)

What happens, in a fresh temporary directory:
  1. native run: the binary is copied into native/, the declared inputs are
     created, the program runs with the declared stdin, args and environment.
     Its exit status must be the declared one (default 0).
  2. record run: the same in run/, under `backstep record -o trace -- ./NAME ARGS`.
     The exit status must be the declared one, and stdout and stderr must equal
     the native run's once lines starting with "~" (values that vary from run to
     run) are left out: so the recorder adds nothing to stderr and changes
     nothing the program sees.
  3. the binary is deleted, every file left in run/ is overwritten in place with
     other bytes (same inode, so a trace that hard-linked a file notices), every
     second input is deleted, and run/ is renamed.
  4. replay: `backstep replay --autopilot trace` with cwd=/, stdin=/dev/null and a
     changed environment must reproduce the recorded stdout and stderr byte for
     byte and the exit status, and must not say "diverged".

Header syntax: comment lines at the very top of NAME.c, `// KEY: VALUE`:
  scenario: TEXT            what the scenario is about (documentation only)
  args: ARGS                command-line arguments, split like a POSIX shell
  env: KEY=VALUE            an environment variable (repeatable; value taken as is)
  stdin: TEXT               a line of stdin, TEXT + "\\n" (repeatable; C escapes)
  stdin-random: SIZE        SIZE deterministic pseudo-random bytes of stdin
  input: NAME = TEXT        an input file with TEXT (C escapes: \\n \\t \\\\ \\xHH \\0)
  input-random: NAME SIZE   an input file of SIZE deterministic pseudo-random bytes
  input-lines: NAME COUNT   an input file of COUNT deterministic text lines
  expect-exit: N            the exit status (128+signal for a fatal signal); default 0
  output: separate|merged|sockets
                            merged: stderr goes into the stdout pipe (order
                            checked); sockets: stdout and stderr are each a
                            unix stream socket instead of a pipe
  stdout: compare|any       any: no native-vs-record comparison of stdout
  stderr: compare|any       any: no native-vs-record comparison of stderr
  timeout: SECONDS          limit for each process (default 120)
  requires: threads         the program starts threads (a description only:
                            threads are recorded like the rest, and a recorder
                            that refuses clone/clone3 fails the scenario)
  requires: ia32-emulation  the program makes int 0x80 calls; requires: ldt, it
                            loads LDT selectors; requires: tsc-fault, it makes
                            rdtsc fault for itself; requires: debug-registers, a
                            gdb scenario needs hardware breakpoints that fire.
                            The program probes the machine
                            first (scenario.h, require_machine): on a kernel
                            without it, native and recorded runs report SKIPPED
  requires: cpuid-faulting  the recording needs cpuid to trap (--cpuid-faulting):
                            on a CPU or kernel that cannot, the recorder must
                            refuse with its message and exit status 125, and the
                            scenario then reports SKIPPED
  record-args: ARGS         options for `backstep record` (before the --)
  record-env: NAME=VALUE    (repeatable) set for `backstep record` only, e.g.
                            BACKSTEP_PATCH_RDTSC=1 (patch rdtsc sites even
                            where the kernel traps rdtsc)
  stack-limit: BYTES        RLIMIT_STACK (soft) of the native and recorded runs;
                            replay runs with the driver's own
  expect-buffered: N        when the recording buffers system calls (the
                            environment's BACKSTEP_SYSCALL_BUFFER is not "0"
                            and record-args has no --no-syscall-buffer), the
                            `buffer-flush N calls` lines of `backstep dump`
                            must add up to at least N
  expect-traced: NAME N     (repeatable) the same, and the trace holds at
                            most N `syscall NAME` events: the other NAME
                            calls were buffered
  expect-exec-traps: PERCENT every exec after the recording's first traps
                            (`rdtsc` events of `backstep dump`: trapped
                            cpuid, rdtsc, RDRAND) at most PERCENT% as often
                            as the first, from its Exec event to the next
                            Exec or the end of its thread
Any other comment line at the top is description. Input names are relative
to the program's working directory and may not contain "/" or "..".

Exit status: 0 if every check passed, 1 otherwise (2 for a usage error, 77
for a scenario skipped because the machine lacks what it requires: a kernel
feature the program probes for, cpuid faulting; the reason is printed).
"""

import argparse
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DEFAULT_TIMEOUT = 120


class ScenarioError(Exception):
    """A malformed scenario header."""


# --------------------------------------------------------------------------
# Header parsing


def unescape(text):
    """C-style escapes (\\n \\t \\r \\0 \\\\ \\xHH) to bytes; other bytes as UTF-8."""
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 == len(text):
            out += c.encode("utf-8")
            i += 1
            continue
        n = text[i + 1]
        simple = {"n": b"\n", "t": b"\t", "r": b"\r", "0": b"\0", "\\": b"\\"}
        if n in simple:
            out += simple[n]
            i += 2
        elif n == "x" and re.match(r"[0-9a-fA-F]{2}", text[i + 2:i + 4]):
            out.append(int(text[i + 2:i + 4], 16))
            i += 4
        else:
            raise ScenarioError("unknown escape \\%s in %r" % (n, text))
    return bytes(out)


def random_bytes(name, size):
    """Deterministic pseudo-random bytes, seeded by the name."""
    return random.Random("backstep-scenario:%s:%d" % (name, size)).randbytes(size)


def text_lines(name, count):
    rng = random.Random("backstep-lines:%s:%d" % (name, count))
    return b"".join(b"line %05d: %032x\n" % (i, rng.getrandbits(128)) for i in range(count))


class Scenario:
    def __init__(self, name):
        self.name = name
        self.description = []
        self.args = []
        self.env = {}
        self.stdin = b""
        self.inputs = []  # list of (name, bytes)
        self.expect_exit = 0
        self.merged = False
        self.sockets = False  # stdout and stderr are sockets, not pipes
        self.compare_stdout = True
        self.compare_stderr = True
        self.timeout = DEFAULT_TIMEOUT
        self.requires = set()  # "threads"
        self.stack_limit = None
        self.record_args = []
        self.record_env = {}
        self.expect_buffered = None
        self.expect_traced = {}  # call name -> the most `syscall NAME` events
        self.expect_exec_traps = None  # percent of the first exec's traps


DIRECTIVE = re.compile(r"^//\s?([a-z][a-z0-9-]*):(?: (.*)|)$")
KNOWN = {"scenario", "args", "env", "stdin", "stdin-random", "input", "input-random",
         "input-lines", "expect-exit", "output", "stdout", "stderr", "timeout", "requires",
         "stack-limit", "record-args", "record-env", "expect-buffered", "expect-traced",
         "expect-exec-traps"}
REQUIREMENTS = {"threads", "cpuid-faulting", "ia32-emulation", "ldt", "tsc-fault", "debug-registers"}
# What the machine's kernel may lack whatever backstep does: the program
# probes it itself (scenario.h, require_machine) and exits 77 without it.
MACHINE_REQUIREMENTS = {"ia32-emulation", "ldt", "tsc-fault", "debug-registers"}
SKIPPED = 77  # CTest's SKIP_RETURN_CODE for the scenario tests


def check_input_name(name):
    if not name or "/" in name or name in (".", "..") or name.startswith("-"):
        raise ScenarioError("bad input file name %r" % name)
    return name


def parse_header(path):
    name = os.path.splitext(os.path.basename(path))[0]
    sc = Scenario(name)
    stdin_parts = []
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.startswith("//"):
                break
            m = DIRECTIVE.match(line)
            if not m or m.group(1) not in KNOWN:
                sc.description.append(line[2:].strip())
                continue
            key, value = m.group(1), m.group(2) or ""
            if key == "scenario":
                sc.description.append(value)
            elif key == "args":
                sc.args = shlex.split(value)
            elif key == "env":
                k, sep, v = value.partition("=")
                if not sep or not k:
                    raise ScenarioError("env needs KEY=VALUE: %r" % value)
                sc.env[k] = v
            elif key == "stdin":
                stdin_parts.append(unescape(value) + b"\n")
            elif key == "stdin-random":
                stdin_parts.append(random_bytes("<stdin>", int(value)))
            elif key == "input":
                fname, sep, text = value.partition(" = ")
                if not sep:
                    raise ScenarioError("input needs NAME = TEXT: %r" % value)
                sc.inputs.append((check_input_name(fname.strip()), unescape(text)))
            elif key == "input-random":
                fname, size = value.split()
                sc.inputs.append((check_input_name(fname), random_bytes(fname, int(size))))
            elif key == "input-lines":
                fname, count = value.split()
                sc.inputs.append((check_input_name(fname), text_lines(fname, int(count))))
            elif key == "expect-exit":
                sc.expect_exit = int(value)
            elif key == "output":
                if value not in ("separate", "merged", "sockets"):
                    raise ScenarioError("output: separate|merged|sockets, not %r" % value)
                sc.merged = value == "merged"
                sc.sockets = value == "sockets"
            elif key in ("stdout", "stderr"):
                if value not in ("compare", "any"):
                    raise ScenarioError("%s: compare|any, not %r" % (key, value))
                setattr(sc, "compare_" + key, value == "compare")
            elif key == "timeout":
                sc.timeout = float(value)
            elif key == "requires":
                for req in value.split():
                    if req not in REQUIREMENTS:
                        raise ScenarioError("requires: %s, not %r" %
                                            ("|".join(sorted(REQUIREMENTS)), req))
                    sc.requires.add(req)
            elif key == "record-args":
                sc.record_args = shlex.split(value)
            elif key == "record-env":
                name, eq, val = value.partition("=")
                if not eq or not name.strip():
                    raise ScenarioError("record-env needs NAME=VALUE: %r" % value)
                sc.record_env[name.strip()] = val.strip()
            elif key == "stack-limit":
                sc.stack_limit = int(value)
            elif key == "expect-buffered":
                sc.expect_buffered = int(value)
                if sc.expect_buffered < 1:
                    raise ScenarioError("expect-buffered needs a count of at least 1: %r" % value)
            elif key == "expect-exec-traps":
                if not value.isdigit():
                    raise ScenarioError("expect-exec-traps needs a percentage: %r" % value)
                sc.expect_exec_traps = int(value)
            elif key == "expect-traced":
                parts = value.split()
                if len(parts) != 2 or not re.match(r"[a-z_][a-z0-9_]*\Z", parts[0]) or not parts[1].isdigit():
                    raise ScenarioError("expect-traced needs NAME N (a system call, a count): %r" % value)
                sc.expect_traced[parts[0]] = int(parts[1])
    sc.stdin = b"".join(stdin_parts)
    names = [n for n, _ in sc.inputs]
    if len(set(names)) != len(names):
        raise ScenarioError("an input file is declared twice")
    return sc


# --------------------------------------------------------------------------
# Processes


class Result:
    def __init__(self, argv, returncode, stdout, stderr, elapsed, timed_out):
        self.argv = argv
        self.returncode = returncode  # as subprocess reports it (negative: signal)
        self.stdout = stdout
        self.stderr = stderr
        self.elapsed = elapsed
        self.timed_out = timed_out

    def status(self):
        """Exit status the way a shell reports it: 128+N for signal N."""
        if self.returncode < 0:
            return 128 - self.returncode
        return self.returncode

    def describe(self):
        if self.timed_out:
            return "timed out after %.0f s" % self.elapsed
        if self.returncode < 0:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = "signal %d" % -self.returncode
            return "killed by %s" % name
        return "exit status %d" % self.returncode


def limits(stack_limit):
    """What the child sets before exec: no core dumps, and the stack limit."""
    def apply():
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if stack_limit is not None:
            hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
            if hard != resource.RLIM_INFINITY:
                stack = min(stack_limit, hard)
            else:
                stack = stack_limit
            resource.setrlimit(resource.RLIMIT_STACK, (stack, hard))
    return apply


def run(argv, cwd, env, stdin_data=b"", timeout=DEFAULT_TIMEOUT, merged=False, sockets=False,
        stack_limit=None):
    """Runs argv in its own session; kills the whole group on timeout."""
    if sockets:
        return run_on_sockets(argv, cwd, env, stdin_data, timeout, stack_limit)
    start = time.monotonic()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env,
        stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merged else subprocess.PIPE,
        start_new_session=True, preexec_fn=limits(stack_limit))
    timed_out = False
    try:
        out, err = proc.communicate(input=stdin_data, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(proc.pid)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            out, err = b"", b""
    # Whatever the program left running in its session goes too.
    kill_group(proc.pid)
    return Result(argv, proc.returncode if proc.returncode is not None else -9,
                  out or b"", err or b"", time.monotonic() - start, timed_out)


def run_on_sockets(argv, cwd, env, stdin_data, timeout, stack_limit=None):
    """As run(), with stdout and stderr each one end of a socketpair."""
    import socket
    import threading
    start = time.monotonic()
    pairs = [socket.socketpair(), socket.socketpair()]
    got = [[], []]

    def drain(sock, into):
        while True:
            data = sock.recv(65536)
            if not data:
                return
            into.append(data)

    proc = subprocess.Popen(
        argv, cwd=cwd, env=env,
        stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
        stdout=pairs[0][1].fileno(), stderr=pairs[1][1].fileno(),
        start_new_session=True, preexec_fn=limits(stack_limit))
    for ours, theirs in pairs:
        theirs.close()
    readers = [threading.Thread(target=drain, args=(pairs[i][0], got[i]), daemon=True) for i in (0, 1)]
    for t in readers:
        t.start()
    timed_out = False
    try:
        proc.communicate(input=stdin_data, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(proc.pid)
        proc.wait()
    kill_group(proc.pid)  # what it left running holds the sockets
    for t in readers:
        t.join(timeout=10)
    for ours, _ in pairs:
        ours.close()
    return Result(argv, proc.returncode if proc.returncode is not None else -9,
                  b"".join(got[0]), b"".join(got[1]), time.monotonic() - start, timed_out)


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# --------------------------------------------------------------------------
# Comparisons and reports


def deterministic(data):
    """The lines of data that do not start with '~'."""
    return b"".join(l for l in data.splitlines(keepends=True) if not l.startswith(b"~"))


def first_difference(a, b):
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n if len(a) != len(b) else None


def snippet(data, offset, width=60):
    lo = max(0, offset - width)
    return repr(data[lo:offset + width])


def diff_summary(label_a, a, label_b, b):
    off = first_difference(a, b)
    if off is None:
        return None
    line = a[:off].count(b"\n") + 1
    return ("%s (%d bytes) and %s (%d bytes) differ at offset %d (line %d):\n"
            "    %s: %s\n    %s: %s" % (label_a, len(a), label_b, len(b), off, line,
                                      label_a, snippet(a, off), label_b, snippet(b, off)))


def tail(data, limit=3000):
    text = data.decode("utf-8", "replace")
    if len(text) > limit:
        text = "...\n" + text[-limit:]
    return text


class Checker:
    def __init__(self):
        self.failures = []

    def fail(self, message):
        self.failures.append(message)
        print("FAIL: " + message, flush=True)

    def expect(self, cond, message):
        if not cond:
            self.fail(message)
        return cond


# --------------------------------------------------------------------------
# The scenario run


def base_env(sc, backstep_dir):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCENARIO_")}
    env.update({"LC_ALL": "C", "TZ": "UTC", "BACKSTEP_DIR": backstep_dir})
    env.update(sc.env)
    return env


def prepare_dir(path, binary, sc):
    os.makedirs(path)
    exe = os.path.join(path, os.path.basename(binary))
    shutil.copy2(binary, exe)
    for name, data in sc.inputs:
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)
        os.chmod(os.path.join(path, name), 0o644)
    return exe


def scramble_tree(path, sc):
    """Overwrites every file under path in place, deletes every second input."""
    for dirpath, _, files in os.walk(path):
        for fname in files:
            full = os.path.join(dirpath, fname)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            with open(full, "r+b") as f:
                data = f.read()
                f.seek(0)
                f.write(data.translate(XOR_TABLE))
                if not data:
                    f.write(b"changed after recording\n")
    for i, (name, _) in enumerate(sc.inputs):
        if i % 2 == 1:
            try:
                os.unlink(os.path.join(path, name))
            except FileNotFoundError:
                pass


XOR_TABLE = bytes(b ^ 0xA5 for b in range(256))


def report_run(label, res):
    print("%s: %s in %.2f s, stdout %d bytes, stderr %d bytes" %
          (label, res.describe(), res.elapsed, len(res.stdout), len(res.stderr)), flush=True)


def native_run(sc, binary, root, check, subdir="native"):
    env = base_env(sc, os.path.join(root, "backstep-dir"))
    d = os.path.join(root, subdir)
    exe = prepare_dir(d, binary, sc)
    res = run(["./" + os.path.basename(exe)] + sc.args, d, env, sc.stdin, sc.timeout, sc.merged, sc.sockets,
              sc.stack_limit)
    report_run(subdir, res)
    if not check.expect(not res.timed_out, "native run timed out"):
        return res
    check.expect(res.status() == sc.expect_exit,
                 "native run: %s, expected exit status %d\nstderr:\n%s" %
                 (res.describe(), sc.expect_exit, tail(res.stderr)))
    for stream in (res.stdout, res.stderr):
        check.expect(b"CHECK failed" not in stream and b"SYS failed" not in stream,
                     "native run: a self-check failed:\n%s" % tail(stream))
    return res


def machine_lacks(sc, binary, root):
    """What of sc's machine requirements this machine's kernel lacks, or None
    (the program's own probe, run with SCENARIO_PROBE=1, exits 77)."""
    if not sc.requires & MACHINE_REQUIREMENTS:
        return None
    env = dict(os.environ, SCENARIO_PROBE="1")
    probe = subprocess.run([binary], cwd=root, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if probe.returncode != SKIPPED:
        return None
    return probe.stderr.decode("utf-8", "replace").strip() or "the machine lacks what the scenario needs"


def scenario_main(opts):
    sc = parse_header(opts.source)
    binary = os.path.abspath(opts.binary)
    if not os.path.isfile(binary):
        print("error: scenario binary %s does not exist" % binary, file=sys.stderr)
        return 2
    if opts.timeout:
        sc.timeout = opts.timeout
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="scn-%s-" % sc.name, dir=opts.tmp_root)
    check = Checker()
    print("scenario %s: %s" % (sc.name, " ".join(sc.description)), flush=True)
    lacking = machine_lacks(sc, binary, root)
    if lacking:
        shutil.rmtree(root, ignore_errors=True)
        print("SKIPPED %s: %s" % (sc.name, lacking))
        return SKIPPED
    try:
        native = native_run(sc, binary, root, check)
        if opts.native:
            # Later native runs must agree with the first on every line that
            # does not start with '~': the scenario's own determinism.
            for i in range(2, opts.native_runs + 1):
                again = native_run(sc, binary, root, check, "native%d" % i)
                pairs = [("stdout", sc.compare_stdout, native.stdout, again.stdout),
                         ("stderr", sc.compare_stderr, native.stderr, again.stderr)]
                for label, compare, a, b in pairs:
                    d = diff_summary("run 1 " + label, deterministic(a),
                                     "run %d %s" % (i, label), deterministic(b))
                    check.expect(not compare or d is None,
                                 "native runs disagree outside '~' lines:\n%s" % d)
            if opts.verbose:
                sys.stdout.write(tail(native.stdout, 1 << 20))
                sys.stderr.write(tail(native.stderr, 1 << 20))
            return finish(check, root, opts, sc)
        skip = record_and_replay(sc, binary, root, native, check, opts)
        if skip and not check.failures:
            shutil.rmtree(root, ignore_errors=True)
            print("SKIPPED %s: %s" % (sc.name, skip))
            return SKIPPED
        return finish(check, root, opts, sc)
    except Exception:
        import traceback
        traceback.print_exc()
        print("FAIL: driver error (work directory kept: %s)" % root)
        return 1


BACKSTEP_FAILURE = 125


# A machine whose CPU or kernel cannot make cpuid fault (some VMs and CPUs):
# `record --cpuid-faulting` refuses at the start with this message.
CPUID_FAULTING_REFUSAL = re.compile(rb"^backstep: recording stopped: --cpuid-faulting: this CPU or kernel cannot "
                                    rb"make cpuid trap.*$", re.M)


def missing_requirement(sc, rec):
    """Why the recording of sc could not be made, or None."""
    if rec.timed_out or rec.returncode != BACKSTEP_FAILURE:
        return None
    err = rec.stdout if sc.merged else rec.stderr
    if "cpuid-faulting" in sc.requires:
        m = CPUID_FAULTING_REFUSAL.search(err)
        if m:
            return "this machine cannot make cpuid trap (%s)" % m.group(0).decode("utf-8", "replace")
    return None


def record_and_replay(sc, binary, root, native, check, opts):
    """Records and replays; returns why it was skipped, or None."""
    backstep = os.path.abspath(opts.backstep)
    if not os.access(backstep, os.X_OK):
        check.fail("backstep binary %s is missing or not executable" % backstep)
        return
    env = base_env(sc, os.path.join(root, "backstep-dir"))
    os.makedirs(env["BACKSTEP_DIR"])
    run_dir = os.path.join(root, "run")
    exe = prepare_dir(run_dir, binary, sc)
    trace = os.path.join(root, "trace")
    argv = [backstep, "record", "-o", trace] + sc.record_args + ["--", "./" + os.path.basename(exe)] + sc.args
    rec = run(argv, run_dir, dict(env, **sc.record_env), sc.stdin, sc.timeout, sc.merged, sc.sockets,
              sc.stack_limit)
    report_run("record", rec)
    if not check.expect(not rec.timed_out, "record timed out (%.0f s); stderr:\n%s" %
                        (sc.timeout, tail(rec.stderr))):
        return
    skip = missing_requirement(sc, rec)
    if skip:
        return skip
    check.expect(rec.returncode >= 0, "backstep record was %s; stderr:\n%s" %
                 (rec.describe(), tail(rec.stderr)))
    check.expect(rec.returncode == sc.expect_exit,
                 "record exited with %s, expected %d; stderr:\n%s" %
                 (rec.describe(), sc.expect_exit, tail(rec.stderr)))
    streams = [("stdout", sc.compare_stdout, native.stdout, rec.stdout)]
    if not sc.merged:
        streams.append(("stderr", sc.compare_stderr, native.stderr, rec.stderr))
    for label, compare, nat, recd in streams:
        if not compare or native.timed_out:
            continue
        d = diff_summary("native " + label, deterministic(nat),
                         "recorded " + label, deterministic(recd))
        check.expect(d is None, "recorded %s differs from the native run's (lines "
                     "starting with '~' left out):\n%s\nrecord stderr:\n%s" %
                     (label, d, tail(rec.stderr)))
    if not check.expect(os.path.isdir(trace), "record wrote no trace directory %s" % trace):
        return
    check_buffered(sc, backstep, trace, env, check)
    check_exec_traps(sc, backstep, trace, env, check)

    # Take away everything the replay must not need.
    os.unlink(exe)
    shutil.rmtree(os.path.join(root, "native"), ignore_errors=True)
    scramble_tree(run_dir, sc)
    os.rename(run_dir, run_dir + ".after-record")

    for i in range(opts.replays):
        renv = {k: v for k, v in env.items() if k not in sc.env}
        renv.update({"SCENARIO_GREETING": "changed for replay", "TZ": "Asia/Tokyo",
                     "LC_ALL": "C"})
        cwd = "/" if i == 0 else tempfile.gettempdir()
        rep = run([backstep, "replay", "--autopilot", trace], cwd, renv, None, sc.timeout,
                  sc.merged, sc.sockets)
        label = "replay" if opts.replays == 1 else "replay %d" % (i + 1)
        report_run(label, rep)
        if not check.expect(not rep.timed_out, "%s timed out (%.0f s); stderr:\n%s" %
                            (label, sc.timeout, tail(rep.stderr))):
            continue
        check.expect(rep.returncode >= 0, "%s was %s" % (label, rep.describe()))
        check.expect(rep.returncode == rec.returncode,
                     "%s exited with %s, the recording with %d" %
                     (label, rep.describe(), rec.returncode))
        d = diff_summary("recorded stdout", rec.stdout, "replayed stdout", rep.stdout)
        check.expect(d is None, "%s: stdout differs:\n%s" % (label, d))
        if not sc.merged:
            d = diff_summary("recorded stderr", rec.stderr, "replayed stderr", rep.stderr)
            check.expect(d is None, "%s: stderr differs:\n%s" % (label, d))
        check.expect(b"diverged" not in rep.stderr and b"diverged" not in rep.stdout,
                     "%s reports a divergence" % label)
        if check.failures:
            print("replay stderr:\n%s" % tail(rep.stderr), flush=True)
            break


# `backstep dump` shows the calls the preload library performed in the
# program itself as `buffer-flush N calls`, one line per flush of a buffer.
BUFFER_FLUSH = re.compile(rb"\bbuffer-flush (\d+) calls?\b")


def buffering_requested(sc):
    """Whether this recording was asked to buffer system calls."""
    return os.environ.get("BACKSTEP_SYSCALL_BUFFER") != "0" and \
        "--no-syscall-buffer" not in sc.record_args


def dump_of(sc, backstep, trace, env, check):
    """`backstep dump` of the trace (its stdout), or None after a failed check."""
    res = run([backstep, "dump", trace], "/", env, None, sc.timeout)
    if not check.expect(not res.timed_out and res.returncode == 0,
                        "backstep dump of the trace: %s; stderr:\n%s" %
                        (res.describe(), tail(res.stderr))):
        return None
    return res.stdout


def check_buffered(sc, backstep, trace, env, check):
    """expect-buffered: the trace holds at least that many buffered calls;
    expect-traced: at most that many traced calls of a name."""
    if sc.expect_buffered is None and not sc.expect_traced:
        return
    if not buffering_requested(sc):
        print("buffered calls: not checked (recorded without syscall buffering)", flush=True)
        return
    dump = dump_of(sc, backstep, trace, env, check)
    if dump is None:
        return
    for name, most in sorted(sc.expect_traced.items()):
        traced = len(re.findall(rb"\bsyscall " + name.encode() + rb"\(", dump))
        print("traced %s calls: %d (expected at most %d)" % (name, traced, most), flush=True)
        check.expect(traced <= most, "%d %s calls were traced, expected at most %d (expect-traced)" %
                     (traced, name, most))
    if sc.expect_buffered is None:
        return
    flushes = BUFFER_FLUSH.findall(dump)
    calls = sum(int(n) for n in flushes)
    print("buffered calls: %d in %d flushes (expected at least %d)" %
          (calls, len(flushes), sc.expect_buffered), flush=True)
    check.expect(calls >= sc.expect_buffered,
                 "only %d system calls were buffered (%d buffer-flush events), expected at "
                 "least %d (expect-buffered)" % (calls, len(flushes), sc.expect_buffered))


DUMP_EVENT = re.compile(rb"^\d+ tid (\d+) ([a-z-]+)", re.M)


def check_exec_traps(sc, backstep, trace, env, check):
    """expect-exec-traps: the traps of each exec after the first, against
    the first's."""
    if sc.expect_exec_traps is None:
        return
    dump = dump_of(sc, backstep, trace, env, check)
    if dump is None:
        return
    traps = []  # per exec, in trace order
    current = {}  # tid -> index into traps
    for tid, kind in DUMP_EVENT.findall(dump):
        if kind == b"exec":
            current[tid] = len(traps)
            traps.append(0)
        elif kind == b"rdtsc" and tid in current:
            traps[current[tid]] += 1
        elif kind in (b"exit", b"thread-exit"):
            current.pop(tid, None)
    print("traps per exec: %s (expected each after the first at most %d%% of the first)" %
          (traps, sc.expect_exec_traps), flush=True)
    if not check.expect(len(traps) >= 2 and traps[0] > 0,
                        "expect-exec-traps: want two execs or more, the first with traps: %s" % traps):
        return
    for i, n in enumerate(traps[1:], 1):
        check.expect(n * 100 <= traps[0] * sc.expect_exec_traps,
                     "exec %d of the trace trapped %d times, the first %d (expect-exec-traps: %d%%)" %
                     (i, n, traps[0], sc.expect_exec_traps))


def finish(check, root, opts, sc):
    if check.failures:
        print("scenario %s: %d check(s) failed; work directory kept: %s" %
              (sc.name, len(check.failures), root))
        return 1
    if opts.keep:
        print("work directory kept: %s" % root)
    else:
        shutil.rmtree(root, ignore_errors=True)
    print("PASS %s%s" % (sc.name, " (native)" if opts.native else ""))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backstep", help="path of the backstep binary")
    p.add_argument("--binary", required=True, help="the compiled scenario program")
    p.add_argument("--source", required=True, help="the scenario's .c file (its header)")
    p.add_argument("--native", action="store_true",
                   help="only run the program natively and check its exit status")
    p.add_argument("--native-runs", type=int, default=3,
                   help="with --native: run this many times and compare (default 3)")
    p.add_argument("--tmp-root", default=tempfile.gettempdir(),
                   help="where work directories are made (default: the system's)")
    p.add_argument("--timeout", type=float, help="override the per-process timeout")
    p.add_argument("--replays", type=int, default=1, help="how many times to replay")
    p.add_argument("--keep", action="store_true", help="keep the work directory")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="with --native: show the program's output")
    opts = p.parse_args(argv)
    if not opts.native and not opts.backstep:
        p.error("--backstep is required unless --native")
    try:
        return scenario_main(opts)
    except ScenarioError as e:
        print("error: %s: %s" % (opts.source, e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
