"""Helpers shared by the gdb drivers in this folder (python3 stdlib only).

- record(): copy a program into a fresh directory, `backstep record` it there,
  then delete the binary (and the declared inputs): every gdb test debugs a
  recording whose program is gone, so gdb must fetch it from the trace.
- gdb_env(): a fixed environment for gdb (no user init files, no debuginfod,
  C locale, no terminal).
- Server: `backstep serve --port 0 [--once] [OPTIONS] TRACE` with its port
  read from the first stdout line (or `serve --unix PATH ...`, its path).
- normalise(): the few things that must vary between runs.
"""

import os
import re
import shutil
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from run_scenario import Checker, kill_group, parse_header, run, tail  # noqa: E402,F401

TIMEOUT = 100  # seconds, for each process (CTest gives each test 120)


def find_program(env_var, names, why):
    """$env_var if set, else the first of `names` on PATH; raises
    RuntimeError saying `why` when there is none."""
    chosen = os.environ.get(env_var)
    if chosen:
        return chosen
    for name in names:
        if shutil.which(name):
            return name
    raise RuntimeError("none of %s on PATH (%s)" % (", ".join(names), why))


def lldb_program():
    return find_program("BACKSTEP_LLDB", ("lldb", "lldb-22", "lldb-21", "lldb-20", "lldb-19"),
                        "scripts/setup installs lldb-22")


def lldb_dap_program():
    return find_program("BACKSTEP_LLDB_DAP", ("lldb-dap", "lldb-dap-22", "lldb-dap-21", "lldb-dap-20", "lldb-dap-19"),
                        "scripts/setup installs lldb-22, which has lldb-dap-22")


def base_env(root):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DEBUGINFOD", "GDB", "LC_", "SCENARIO_", "INSIDE_EMACS"))}
    env.update({"LC_ALL": "C", "LANG": "C", "TZ": "UTC", "TERM": "dumb", "HOME": root,
                "BACKSTEP_DIR": os.path.join(root, "backstep-dir")})
    for k in ("COLUMNS", "LINES", "BACKSTEP_LOG"):
        env.pop(k, None)
    return env


def gdb_env(root):
    """The environment for gdb (and the backstep that starts it)."""
    return base_env(root)


class RecordError(Exception):
    pass


def record(backstep, binary, source, root, timeout=TIMEOUT):
    """Records `binary` (its header in `source`) under root/run; returns
    (trace path, scenario header, record Result). The binary and its inputs
    are deleted afterwards."""
    sc = parse_header(source)
    run_dir = os.path.join(root, "run")
    os.makedirs(run_dir)
    exe = os.path.join(run_dir, os.path.basename(binary))
    shutil.copy2(binary, exe)
    for name, data in sc.inputs:
        with open(os.path.join(run_dir, name), "wb") as f:
            f.write(data)
    env = base_env(root)
    os.makedirs(env["BACKSTEP_DIR"], exist_ok=True)
    env.update(sc.env)
    trace = os.path.join(root, "trace")
    argv = [backstep, "record", "-o", trace, "--", "./" + os.path.basename(exe)] + sc.args
    res = run(argv, run_dir, env, sc.stdin, timeout)
    print("record: %s in %.2f s" % (res.describe(), res.elapsed), flush=True)
    if res.timed_out or res.status() != sc.expect_exit or not os.path.isdir(trace):
        raise RecordError("record: %s, expected exit status %d\nstdout:\n%s\nstderr:\n%s" %
                          (res.describe(), sc.expect_exit, tail(res.stdout), tail(res.stderr)))
    # What the replay must not need.
    os.unlink(exe)
    for name, _ in sc.inputs:
        os.unlink(os.path.join(run_dir, name))
    return trace, sc, res


# --------------------------------------------------------------------------
# Normalisation: only what must vary from run to run.

ADDRESS = re.compile(r"(?<![0-9A-Za-z_])0x[0-9a-f]{8,16}(?![0-9a-f])")
PROCESS = re.compile(r"\b(process|Process|LWP) \d+\b")
THREAD = re.compile(r"\bThread (\d+)\.(\d+)\b")
THREADS_HEADER = re.compile(r"^(  Id +Target Id) +Frame", re.M)
THREADS_ROW = re.compile(r'^([* ] +\d+ +Thread PID\.\w+(?: "[^"\n]*")?) +', re.M)
PROC_PATH = re.compile(r"/proc/\d+/task/\d+/")
PROC_PATH1 = re.compile(r"/proc/\d+/")


DEBUG_FILE_PROBE = re.compile(r"^Reading \S+\.debug from remote target\.\.\.\n", re.M)
# The syscall-buffering library backstep injects (absent from recordings
# made with --no-syscall-buffer): the suite runs in both modes.
# (gdb reading it, `info sharedlibrary` listing it).
PRELOAD_LIBRARY_ROW = re.compile(r"^.*libbackstep_preload\.so\b.*\n", re.M)


def normalise_threads(text):
    """gdb names a remote thread "Thread PID.TID" (the recorded process and
    thread ids, in decimal). The main thread (TID == PID) becomes
    "Thread PID.PID"; every other thread "Thread PID.TIDn", numbered by its
    first appearance in the output, so that a scenario still tells its
    threads apart while the recorded ids change from one recording to the
    next. The `info threads` table pads its "Target Id" column to the
    longest id, whose length changes with the number of digits of the
    recorded ids: the padding becomes one space."""
    names = {}

    def rename(m):
        pid, tid = m.group(1), m.group(2)
        if tid == pid:
            return "Thread PID.PID"
        if tid not in names:
            names[tid] = "TID%d" % (len(names) + 1)
        return "Thread PID." + names[tid]

    text = THREAD.sub(rename, text)
    text = THREADS_HEADER.sub(r"\1 Frame", text)
    return THREADS_ROW.sub(r"\1 ", text)


# The server's notes during a long resume (every 5 s: how many depends on
# the machine's speed); gdb.progress_notes checks them.
PROGRESS_NOTE = re.compile(r"^backstep: still (searching backwards|replaying forwards) \(.*\)\n", re.M)


def normalise(text, root):
    """Work directory -> WORK, long hex numbers (addresses) -> 0xADDR,
    thread ids (normalise_threads), process ids -> PID, and no lines for
    gdb's probes for separate debug files (their names hold the build ids
    of the host's libc and kernel vDSO, and the list depends on gdb's
    configuration) nor for the server's progress notes."""
    text = DEBUG_FILE_PROBE.sub("", text)
    text = PROGRESS_NOTE.sub("", text)
    text = PRELOAD_LIBRARY_ROW.sub("", text)
    text = normalise_threads(text)
    text = text.replace(os.path.realpath(root), "WORK").replace(root, "WORK")
    text = ADDRESS.sub("0xADDR", text)
    text = PROCESS.sub(lambda m: m.group(1) + " PID", text)
    text = PROC_PATH.sub("/proc/PID/task/PID/", text)
    text = PROC_PATH1.sub("/proc/PID/", text)
    return text


# --------------------------------------------------------------------------
# `backstep serve`


class Server:
    """`backstep serve --port 0 [--once] TRACE` in its own process group
    (`listen` replaces `--port 0`: ["--unix", PATH], or a --host with it)."""

    def __init__(self, backstep, trace, root, once, log_name="serve", extra_args=(),
                 listen=("--port", "0")):
        self.log_path = os.path.join(root, log_name + ".log")
        self.log = open(self.log_path, "wb")
        argv = [backstep, "serve"] + list(listen) + (["--once"] if once else []) + \
            list(extra_args) + [trace]
        self.proc = subprocess.Popen(argv, cwd=root, env=base_env(root), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=self.log,
                                     start_new_session=True)
        self.port = None
        self.first_line = b""
        self.rest = bytearray()
        line = self._read_first_line(TIMEOUT)
        self.first_line = line
        m = re.match(rb"backstep: serving (.+) on (\S+):(\d+)\n$", line)
        unix = re.match(rb"backstep: serving (.+) on (/\S+)\n$", line)
        if not m and not unix:
            self.stop()
            raise RuntimeError("serve printed %r as its first line; stderr:\n%s" %
                               (line, self.stderr()))
        self.host = m.group(2).decode() if m else None
        self.port = int(m.group(3)) if m else None
        self.path = unix.group(2).decode() if unix else None
        # Keep draining stdout (the replayed program's output goes there too).
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()

    def _read_first_line(self, timeout):
        result = []

        def reader():
            result.append(self.proc.stdout.readline())

        t = threading.Thread(target=reader, daemon=True)
        t.start()
        t.join(timeout)
        if not result:
            self.stop()
            raise RuntimeError("serve printed no first line within %d s" % timeout)
        return result[0]

    def _drain(self):
        while True:
            chunk = self.proc.stdout.read1(65536) if hasattr(self.proc.stdout, "read1") \
                else self.proc.stdout.read(1)
            if not chunk:
                return
            self.rest += chunk

    def alive(self):
        return self.proc.poll() is None

    def wait(self, timeout):
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        # What the server wrote last may still be in the pipe: `rest` is
        # whole once the drain has read to the end (the pipe's EOF).
        self.drain.join(timeout)
        return status

    def stop(self):
        if self.proc.poll() is None:
            kill_group(self.proc.pid)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            pass
        self.log.close()

    def stderr(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")


def gdb_available():
    return shutil.which("gdb") is not None

