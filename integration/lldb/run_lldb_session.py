#!/usr/bin/env python3
"""lldb as a client: one batch session of real lldb (lldb-22, which scripts/setup
installs) against a recording, through `backstep replay --debugger lldb`.

Usage:
  run_lldb_session.py --backstep PATH --binary PATH --source lldb_target.c \\
                      --subtest forward|reverse|onexec|expression [options]

What happens, in a fresh work directory (kept on failure):
  1. the program is recorded and its binary deleted (../gdb/gdbtest.record):
     lldb gets the program from the trace, through the launcher's copy;
  2. `backstep replay --debugger lldb TRACE -- -x -b -o CMD ...` runs the
     subtest's commands (below), stdout and stderr in one pipe;
  3. the output is cut into one block per command (lldb -b echoes each as
     "(lldb) CMD") and each block is checked for exact lines and values.

Subtests (the program: programs/lldb_target.c, total = 3 + 6 + 9):
  forward  libraries (image list shows libc after the program starts, from
           the launcher's copies of the recorded files),
           `breakpoint set -n write` resolving into libc, `bt` from write
           and report() back to main, `frame variable`, `register read`,
           `memory region`
           naming the recorded program, the pid lldb is shown, step-out,
           next and step;
  reverse  `process continue --reverse` to a breakpoint and to a watchpoint
           (frame, line and values reached; the direction then stays
           reverse until `process continue -F`), and the raw reverse
           packets through `process plugin packet send bc` / `bs`;
  onexec   (a process tree, ../scenarios/proc_exec_chain.c) `--onexec CHILD`:
           lldb gets the program the child execs, the one the server names;
  signal   (../scenarios/signal_raise.c) the program's raise(SIGUSR1) stops
           lldb with "signal SIGUSR1" (Linux's signal numbers for lldb),
           and `process continue --reverse` goes back from there;
  tls      (../gdb/scenarios/thread_locals.c) thread-local variables in
           each thread, forwards and backwards;
  direction  after going backwards, `c`, `continue` and `finish` go
           forwards (the launcher's aliases; lldb itself keeps the last
           direction), `rc` and `reverse-continue` backwards;
  exec     (../gdb/scenarios/tree_fork_exec.c) `--onfork CHILD`, a child
           that execs: lldb hears of the exec (reason:exec), the launcher's
           stop hook gives it the new program and, at the next stop, the
           libraries it loaded (libc's frame under main), and its
           breakpoints resolve there, forwards and backwards;
  fork     (../gdb/scenarios/tree_parent.c) fork events: lldb hears of
           each child (fork:), detaches it (D;pid) and goes on; the
           breakpoint in the parent stops at every pass, both ways;
  expression_resume  lldb's memory for expressions (_M) stays valid after
           resumes both ways: expressions at later and earlier stops, and a
           breakpoint condition that calls a function;
  expression  `expression` calls functions in a diversion (scale(5),
              an open(2) the sandbox refuses and names,
           strlen of a local array, one that changes a global, which then
           shows its recorded value), and the replay goes on as recorded.

Exit status: 0 pass, 1 fail, 2 usage error.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "gdb"))
import gdbtest  # noqa: E402

LLDB_NAMES = ("lldb", "lldb-22", "lldb-21", "lldb-20", "lldb-19")

# lldb_target.c's lines.
LINE_RETURN_R = 12   # scale: return r;
LINE_TOTAL = 16      # accumulate: total += scale(v);
LINE_TOTAL_END = 17  # accumulate: }
# An expression whose call reaches outside the program: open(2) creating a
# file in the replay's working directory. The diversion's sandbox refuses
# it (ENOSYS: syscall() answers -1) and backstep says so.
SANDBOXED_OPEN = 'expression (long)syscall(2, "%s", 0x41, 0600)'
SANDBOX_FILE = "created-by-lldb"
SANDBOXED_OPEN = SANDBOXED_OPEN % SANDBOX_FILE
LINE_WRITE = 23      # report: write(1, line, sizeof line - 1);
LINE_FOR = 27        # main: for (int i = 1; i <= 3; i++) {
LINE_CALL = 28       # main:   accumulate(i);
LINE_REPORT = 30     # main: report();
LINE_RETURN_0 = 31   # main: return 0;

# The fork subtest's packet log, in the work directory.
FORK_LOG = "lldb-packets.log"

SUBTESTS = {
    "forward": [
        "breakpoint set -f lldb_target.c -l %d" % LINE_RETURN_R,
        "continue",
        "image list",
        "breakpoint set -n write",
        "frame variable",
        "register read rip",
        "thread list",
        "memory region $pc",
        "breakpoint disable 1",
        "thread step-out",
        "next",
        "next",
        "step",
        "step",
        "continue",
        "bt",
    ],
    "reverse": [
        "breakpoint set -f lldb_target.c -l %d" % LINE_RETURN_R,
        "continue",
        "continue",
        "frame variable",
        "process continue --reverse",
        "frame variable",
        "breakpoint disable 1",
        "breakpoint set -f lldb_target.c -l %d" % LINE_RETURN_0,
        "process continue -F",
        "target variable total",
        "watchpoint set variable total",
        "process continue --reverse",
        "frame variable",
        "target variable total",
        "process continue --reverse",
        "frame variable",
        "target variable total",
        "process plugin packet send bc",
        "process plugin packet send bs",
    ],
    "signal": [
        "process continue",
    ],
    "onexec": [
        "image list",
        "process plugin packet send qXfer:exec-file:read::0,1000",
    ],
    "expression": [
        "breakpoint set -f lldb_target.c -l %d" % LINE_WRITE,
        "continue",
        "expression scale(5)",
        "expression (int)strlen(line)",
        "expression accumulate(10)",
        "expression total",
        SANDBOXED_OPEN,
        "frame variable line",
        "process continue",
    ],
    "expression_resume": [
        "breakpoint set -f lldb_target.c -l %d" % LINE_CALL,
        "continue",
        "expression scale(2)",
        "continue",
        "expression scale(3)",
        "process continue --reverse",
        "expression scale(4)",
        "expression total",
        "process continue -F",
        "breakpoint modify -c 'scale(i) == 9' 1",
        "continue",
        "frame variable i",
        "expression total",
    ],
    "tls": [
        "breakpoint set -n checkpoint",
        "continue",
        "target variable tls_count tls_name",
        "continue",
        "continue",
        "target variable tls_count",
        "continue",
        "target variable tls_count tls_name",
        "process continue --reverse",
        "target variable tls_count tls_name",
    ],
    "fork": [
        "log enable -f %s gdb-remote packets" % FORK_LOG,
        "breakpoint set -n reaped",
        "continue",
        "continue",
        "continue",
        "frame variable",
        "process continue --reverse",
        "frame variable",
    ],
    "exec": [
        "breakpoint set -n child_work",
        "breakpoint set -n again_work",
        "continue",
        "continue",
        "continue",
        "continue",
        "continue",
        "frame variable",
        "bt",
        "image list libc.so.6",
        "continue",
        "process continue --reverse",
        "frame variable",
        "target variable counter",
    ],
    "direction": [
        "breakpoint set -f lldb_target.c -l %d" % LINE_RETURN_R,
        "continue",
        "continue",
        "rc",
        "finish",
        "target variable total",
        "c",
        "reverse-continue",
        "continue",
        "process continue --reverse",
        "thread step-out -m this-thread",
    ],
}

# Commands lldb -b runs only once a command stopped at a signal (-k): the
# rest of a subtest whose -o commands end at such a stop.
AFTER_SIGNAL = {
    "signal": [
        "process continue --reverse",
    ],
}


class Failure(Exception):
    pass


def blocks(output):
    """[(command, text)] for each "(lldb) CMD" echo, the text up to the next."""
    parts = re.split(r"^\(lldb\) (.*)$", output, flags=re.M)
    return [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


class Session:
    def __init__(self, output, commands):
        self.output = output
        self.blocks = blocks(output)
        # lldb echoes the launcher's own commands (-O/-o) first.
        self.commands = [b for b in self.blocks if b[0] in commands]
        self.next = 0

    def take(self, command):
        """The output of the next command, which must be `command`."""
        if self.next >= len(self.commands):
            raise Failure("lldb stopped before %r (a command before it failed)" % command)
        name, text = self.commands[self.next]
        if name != command:
            raise Failure("expected command %r next, lldb ran %r" % (command, name))
        self.next += 1
        return text


def need(pattern, text, what):
    m = re.search(pattern, text, re.M)
    if not m:
        raise Failure("%s: no match for /%s/ in:\n%s" % (what, pattern, text))
    return m


def check_stop(text, function, args, line, reason, what):
    """A stop at `function(args)` on lldb_target.c:`line`, for `reason`."""
    need(r"^\* thread #1, stop reason = %s$" % re.escape(reason), text, what)
    need(r"^    frame #0: 0x[0-9a-f]+ lldb_target`%s\(%s\) at lldb_target\.c:%d:\d+$" %
         (function, re.escape(args), line), text, what)


def check_variables(text, expected, what):
    got = re.findall(r"^\((\w+)\) (\w+) = (.*)$", text, re.M)
    want = [(t, n, v) for t, n, v in expected]
    if got != want:
        raise Failure("%s: variables %r, expected %r" % (what, got, want))


def check_forward(s):
    s.take("breakpoint set -f lldb_target.c -l %d" % LINE_RETURN_R)
    text = s.take("continue")
    check_stop(text, "scale", "v=1", LINE_RETURN_R, "breakpoint 1.1", "first stop")
    # The pid lldb is shown: the recorded one plus 10,000,000 (no local
    # process can have it; see docs/protocol.md).
    pid = int(need(r"^Process (\d+) stopped$", text, "first stop").group(1))

    # The program from the launcher's copy, the libraries from the copies
    # of the recording's under its sysroot (not this host's files).
    text = s.take("image list")
    copies = r"\S*/backstep-lldb-\w+"
    need(r"^\[ *\d+\] \S+ 0x[0-9a-f]+ %s/lldb_target\s*$" % copies, text, "image list")
    for lib in (r"/ld-linux-x86-64\.so\.2", r"/libc\.so\.6"):
        need(r"^\[ *\d+\] \S+ 0x[0-9a-f]+ %s/sysroot/\S*%s\s*$" % (copies, lib), text, "image list")

    text = s.take("breakpoint set -n write")
    need(r"^Breakpoint 2: where = libc\.so\.6`\S*write\S* at \S+, address = 0x[0-9a-f]+$", text,
         "breakpoint on write")

    check_variables(s.take("frame variable"), [("int", "v", "1"), ("int", "r", "3")], "frame variable")

    text = s.take("register read rip")
    need(r"^ +rip = 0x[0-9a-f]+ +lldb_target`scale \+ \d+ at lldb_target\.c:%d:\d+" % LINE_RETURN_R, text,
         "register read")

    text = s.take("thread list")
    tid = int(need(r"^\* thread #1: tid = (\d+), ", text, "thread list").group(1))
    if pid != tid + 10000000:
        raise Failure("lldb was shown process %d for recorded process %d, expected %d" %
                      (pid, tid, tid + 10000000))

    text = s.take("memory region $pc")
    # The recorded program's path (run/lldb_target), not the trace's copy.
    need(r"^\[0x[0-9a-f]+-0x[0-9a-f]+\) r-x \S+/run/lldb_target PT_LOAD", text, "memory region")

    # Forward stepping: out of scale, over the rest of accumulate, the
    # loop's increment, into the next call.
    s.take("breakpoint disable 1")
    steps = [("thread step-out", "step out", "accumulate", "v=1", LINE_TOTAL),
             ("next", "step over", "accumulate", "v=1", LINE_TOTAL_END),
             ("next", "step over", "main", "", LINE_FOR),
             ("step", "step in", "main", "", LINE_CALL),
             ("step", "step in", "accumulate", "v=2", LINE_TOTAL)]
    for command, reason, function, args, line in steps:
        text = s.take(command)
        need(r"^\* thread #1, stop reason = %s$" % reason, text, command)
        need(r"^    frame #0: 0x[0-9a-f]+ lldb_target`%s%s at lldb_target\.c:%d:\d+$" %
             (function, r"\(%s\)" % re.escape(args) if args else "", line), text, command)
        if command == "thread step-out":
            need(r"^Return value: \(int\) \$\d+ = 3$", text, "scale(1)'s return value")

    text = s.take("continue")
    need(r"^\* thread #1, stop reason = breakpoint 2\.1$", text, "stop at write")
    need(r"^    frame #0: 0x[0-9a-f]+ libc\.so\.6`\S*write", text, "stop at write")

    # write in libc, then report() and main in the program.
    text = s.take("bt")
    frames = re.findall(r"^  [* ] frame #(\d+): 0x[0-9a-f]+ (\S+?)`(\w+)", text, re.M)
    names = [(f[1], f[2]) for f in frames[:3]]
    if len(names) < 3 or names[0][0] != "libc.so.6" or "write" not in names[0][1] or \
            names[1:] != [("lldb_target", "report"), ("lldb_target", "main")]:
        raise Failure("bt: %r, expected libc's write, report, main:\n%s" % (names, text))
    need(r"^    frame #1: 0x[0-9a-f]+ lldb_target`report at lldb_target\.c:%d:\d+$" % LINE_WRITE, text, "bt")
    need(r"^    frame #2: 0x[0-9a-f]+ lldb_target`main at lldb_target\.c:%d:\d+$" % LINE_REPORT, text, "bt")


def stop_packet(text, what):
    """The T stop reply of a `process plugin packet send` and its fields."""
    reply = need(r"^response: (T[0-9a-f]{2}.*)$", text, what).group(1)
    fields = dict(f.split(":", 1) for f in reply[3:].rstrip(";").split(";"))
    return reply, fields


def check_reverse(s):
    s.take("breakpoint set -f lldb_target.c -l %d" % LINE_RETURN_R)
    check_stop(s.take("continue"), "scale", "v=1", LINE_RETURN_R, "breakpoint 1.1", "first stop")
    check_stop(s.take("continue"), "scale", "v=2", LINE_RETURN_R, "breakpoint 1.1", "second stop")
    check_variables(s.take("frame variable"), [("int", "v", "2"), ("int", "r", "6")], "second stop")

    # Back to the breakpoint's previous hit.
    text = s.take("process continue --reverse")
    check_stop(text, "scale", "v=1", LINE_RETURN_R, "breakpoint 1.1", "reverse to the breakpoint")
    check_variables(s.take("frame variable"), [("int", "v", "1"), ("int", "r", "3")],
                    "reverse to the breakpoint")

    s.take("breakpoint disable 1")
    s.take("breakpoint set -f lldb_target.c -l %d" % LINE_RETURN_0)
    # lldb keeps going backwards after -R until told -F.
    text = s.take("process continue -F")
    need(r"^    frame #0: 0x[0-9a-f]+ lldb_target`main at lldb_target\.c:%d:\d+$" % LINE_RETURN_0, text, "at the end")
    check_variables(s.take("target variable total"), [("int", "total", "18")], "at the end")
    text = s.take("watchpoint set variable total")
    total_addr = int(need(r"^Watchpoint created: Watchpoint 1: addr = 0x([0-9a-f]+) size = 4 ", text,
                          "watchpoint").group(1), 16)

    # Back to the last write of total (i = 3: 9 -> 18), which has not
    # happened yet there; then the one before (i = 2: 3 -> 9).
    for v, before in ((3, 9), (2, 3)):
        what = "reverse to the watchpoint (v=%d)" % v
        text = s.take("process continue --reverse")
        check_stop(text, "accumulate", "v=%d" % v, LINE_TOTAL, "watchpoint 1", what)
        check_variables(s.take("frame variable"), [("int", "v", str(v))], what)
        check_variables(s.take("target variable total"), [("int", "total", str(before))], what)

    # The raw packets: bc reaches the write of i = 1 (0 -> 3) at the same pc
    # as the two before; bs then goes back one instruction.
    text = s.take("process plugin packet send bc")
    reply, fields = stop_packet(text, "bc")
    if int(fields.get("watch", "0"), 16) != total_addr:
        raise Failure("bc: %r does not report the watchpoint on total at %#x" % (reply, total_addr))
    pc_bc = int(fields["thread-pcs"], 16)
    text = s.take("process plugin packet send bs")
    reply, fields = stop_packet(text, "bs")
    pc_bs = int(fields["thread-pcs"], 16)
    if "watch" in fields or not 0 < pc_bc - pc_bs <= 15:
        raise Failure("bs: %r is not one instruction before pc %#x" % (reply, pc_bc))


def check_onexec(s):
    text = s.take("image list")
    loaded = need(r"^\[ *0\] \S+ 0x[0-9a-f]+ \S*/backstep-lldb-\w+/(\S+)\s*$", text, "image list").group(1)
    text = s.take("process plugin packet send qXfer:exec-file:read::0,1000")
    served = need(r"^response: l(/\S+)$", text, "exec-file").group(1)
    if loaded != os.path.basename(served) or loaded == "proc_exec_chain":
        raise Failure("lldb loaded %r, the server debugs %r (the child's exec)" % (loaded, served))


def check_signal(s):
    # lldb reads a non-lldb-server stub's stop signals in Linux's numbering:
    # SIGUSR1 is 10 (gdb's own number for it, 30, is SIGPWR on Linux). lldb
    # -b ends the session at a signal stop, so this is the last command.
    text = s.take("process continue")
    need(r"^\* thread #1, stop reason = signal SIGUSR1$", text, "the program's raise(SIGUSR1)")
    need(r"signo=10", text, "raise's frame")
    # Back from a signal stop: lldb passes no signal when it resumes (the
    # launcher's `process handle --pass false`), or it would refuse ("can't
    # deliver signals while running in reverse"). Nothing to stop at before:
    # the start of the recording.
    text = s.take("process continue --reverse")
    if "can't deliver signals" in text:
        raise Failure("lldb refused to go back from the signal: %s" % text.strip())
    need(r"stop reason = history boundary$", text, "back at the start of the recording")


def check_expression(s):
    s.take("breakpoint set -f lldb_target.c -l %d" % LINE_WRITE)
    text = s.take("continue")
    need(r"^\* thread #1, stop reason = breakpoint 1\.1$", text, "stop in report")
    need(r"^    frame #0: 0x[0-9a-f]+ lldb_target`report at lldb_target\.c:%d:\d+$" % LINE_WRITE, text,
         "stop in report")
    # Each expression runs in a diversion (JIT code in memory from _M,
    # registers saved and restored with QSaveRegisterState and
    # QRestoreRegisterState).
    need(r"^\(int\) \$0 = 15$", s.take("expression scale(5)"), "expression scale(5)")
    need(r"^\(int\) \$1 = 9$", s.take("expression (int)strlen(line)"), "expression strlen(line)")
    s.take("expression accumulate(10)")
    # The call changed total in the diversion only: the recording shows.
    need(r"^\(int\) \$2 = 18$", s.take("expression total"), "total after the call")
    text = s.take(SANDBOXED_OPEN)
    need(r"^backstep: a function called by the debugger tried system call 2 \(open\), refused", text,
         "the sandbox's refusal")
    need(r"^\(long\) \$3 = -1$", text, "open refused")
    need(r'^\(char\[10\]\) line = "total=18\\n"$', s.take("frame variable line"), "line")
    # And the replay goes on as recorded: the program's own write, then
    # the end of the recording.
    text = s.take("process continue")
    need(r"^total=18$", text, "the recorded output after the calls")
    need(r"stop reason = history boundary$", text, "the end of the recording")


def check_expression_resume(s):
    # lldb allocates memory for its expressions once (_M) and keeps using
    # it: the second and later expressions, after resumes both ways, and a
    # breakpoint condition that calls a function, all need it still there.
    s.take("breakpoint set -f lldb_target.c -l %d" % LINE_CALL)
    text = s.take("continue")
    need(r"^\* thread #1, stop reason = breakpoint 1\.1$", text, "first stop at accumulate(i)")
    need(r"^\(int\) \$0 = 6$", s.take("expression scale(2)"), "expression scale(2)")
    text = s.take("continue")
    need(r"^\* thread #1, stop reason = breakpoint 1\.1$", text, "second stop at accumulate(i)")
    need(r"^\(int\) \$1 = 9$", s.take("expression scale(3)"), "expression scale(3) after a resume")
    text = s.take("process continue --reverse")
    need(r"^\* thread #1, stop reason = breakpoint 1\.1$", text, "back at the first stop")
    need(r"^\(int\) \$2 = 12$", s.take("expression scale(4)"), "expression scale(4) after going back")
    need(r"^\(int\) \$3 = 0$", s.take("expression total"), "total at the first pass")
    s.take("process continue -F")
    s.take("breakpoint modify -c 'scale(i) == 9' 1")
    # Passes 2 (scale 6) and 3 (scale 9): the condition, a call, holds at
    # the third only.
    text = s.take("continue")
    need(r"^\* thread #1, stop reason = breakpoint 1\.1$", text, "the conditional breakpoint")
    need(r"^\(int\) i = 3$", s.take("frame variable i"), "the pass the condition chose")
    need(r"^\(int\) \$\d+ = 9$", s.take("expression total"), "total at the third pass")


def check_tls(s):
    # Thread-local variables (../gdb/scenarios/thread_locals.c): lldb finds
    # each thread's block from fs_base (generic="tp" in the target
    # description). Worker N adds 10 * N a round to its own tls_count (7 at
    # first), in a thread of its own.
    def values(text, what):
        count = need(r"^\(int\) tls_count = (\d+)$", text, what).group(1)
        name = re.search(r'^\(char\[16\]\) tls_name = "(\w+)"$', text, re.M)
        return (int(count), name.group(1) if name else None)

    s.take("breakpoint set -n checkpoint")
    s.take("continue")
    got = values(s.take("target variable tls_count tls_name"), "worker 1, round 1")
    if got != (17, "worker1"):
        raise Failure("worker 1 round 1: tls_count, tls_name %r, expected (17, 'worker1')" % (got,))
    s.take("continue")
    s.take("continue")
    got = values(s.take("target variable tls_count"), "worker 1, round 3")
    if got[0] != 37:
        raise Failure("worker 1 round 3: tls_count %d, expected 37" % got[0])
    s.take("continue")
    got = values(s.take("target variable tls_count tls_name"), "worker 2, round 1")
    if got != (27, "worker2"):
        raise Failure("worker 2 round 1: %r, expected (27, 'worker2')" % (got,))
    s.take("process continue --reverse")
    got = values(s.take("target variable tls_count tls_name"), "back in worker 1, round 3")
    if got != (37, "worker1"):
        raise Failure("back at worker 1 round 3: %r, expected (37, 'worker1')" % (got,))


def check_direction(s):
    # lldb keeps the direction of its last `process continue --reverse`;
    # the launcher's aliases give gdb's rule: c, continue and finish go
    # forwards, rc and reverse-continue backwards.
    s.take("breakpoint set -f lldb_target.c -l %d" % LINE_RETURN_R)
    check_stop(s.take("continue"), "scale", "v=1", LINE_RETURN_R, "breakpoint 1.1", "first pass")
    check_stop(s.take("continue"), "scale", "v=2", LINE_RETURN_R, "breakpoint 1.1", "second pass")
    check_stop(s.take("rc"), "scale", "v=1", LINE_RETURN_R, "breakpoint 1.1", "rc")
    text = s.take("finish")
    check_stop(text, "accumulate", "v=1", LINE_TOTAL, "step out", "finish after rc")
    need(r"^Return value: \(int\) \$\d+ = 3$", text, "scale(1)'s value")
    need(r"^\(int\) total = 0$", s.take("target variable total"), "total before the first +=")
    check_stop(s.take("c"), "scale", "v=2", LINE_RETURN_R, "breakpoint 1.1", "c after finish")
    check_stop(s.take("reverse-continue"), "scale", "v=1", LINE_RETURN_R, "breakpoint 1.1", "reverse-continue")
    check_stop(s.take("continue"), "scale", "v=2", LINE_RETURN_R, "breakpoint 1.1", "continue after reverse")
    # lldb's own commands, typed in full: a step-out that runs this thread
    # only follows its own (forward) direction.
    check_stop(s.take("process continue --reverse"), "scale", "v=1", LINE_RETURN_R, "breakpoint 1.1",
               "process continue --reverse")
    check_stop(s.take("thread step-out -m this-thread"), "accumulate", "v=1", LINE_TOTAL, "step out",
               "step-out -m this-thread")


def check_fork(s, root):
    # The three children exit with 55, 10 and 65 (tree_parent.c).
    s.take("log enable -f %s gdb-remote packets" % FORK_LOG)
    s.take("breakpoint set -n reaped")
    for i, status in ((0, 55), (1, 10), (2, 65)):
        text = s.take("continue")
        need(r"reaped\(i=%d, status=%d\)" % (i, status), text, "pass %d of reaped" % i)
    need(r"^\(int\) i = 2$", s.take("frame variable"), "the third pass")
    s.take("process continue --reverse")
    need(r"^\(int\) i = 1$", s.take("frame variable"), "back at the second pass")
    with open(os.path.join(root, FORK_LOG), errors="replace") as f:
        log = f.read()
    forks = re.findall(r"read packet: \$T05thread:p[0-9a-f]+\.[0-9a-f]+;fork:p([0-9a-f]+)\.", log)
    detached = re.findall(r"send packet: \$D;0*([0-9a-f]+)#", log)
    if len(set(forks)) != 3 or not set(forks) <= set(detached):
        raise Failure("fork events %r and detaches %r: expected each of the 3 children reported and detached"
                      % (forks, detached))


def check_exec(s):
    # The forked child (--onfork) calls child_work three times, then execs
    # the program again ("again"), which calls again_work twice. lldb hears
    # of the exec (stop reason = exec, as from lldb-server), the launcher's
    # stop hook gives it the new program, and the breakpoints set before
    # resolve in it, forwards and backwards.
    s.take("breakpoint set -n child_work")
    s.take("breakpoint set -n again_work")
    for k in (1, 2, 3):
        text = s.take("continue")
        need(r"^\* thread #1, stop reason = breakpoint 1\.1$", text, "child_work stop %d" % k)
        need(r"tree_fork_exec`child_work\(round=%d\) at tree_fork_exec\.c:14:" % k, text, "child_work(%d)" % k)
    text = s.take("continue")
    need(r"^\* thread #1, stop reason = exec$", text, "the exec")
    need(r"^backstep: the process now runs /\S*/tree_fork_exec$", text, "the stop hook's new program")
    text = s.take("continue")
    need(r"^\* thread #1, stop reason = breakpoint 2\.\d+$", text, "again_work after the exec")
    need(r"tree_fork_exec`again_work\(round=1\) at tree_fork_exec\.c:18:", text, "again_work(1)")
    need(r"^\(int\) round = 1$", s.take("frame variable"), "round in again_work(1)")
    text = s.take("bt")
    need(r"frame #1: 0x[0-9a-f]+ tree_fork_exec`main\(argc=2, ", text, "main of the exec'd program")
    # The new program's libraries, which lldb's dynamic loader does not
    # follow after an exec: the stop hook loads them, so the frames below
    # main are libc's.
    need(r"frame #2: 0x[0-9a-f]+ libc\.so\.6`", text, "libc's frame below main")
    need(r"libc\.so\.6", s.take("image list libc.so.6"), "libc among the modules")
    need(r"again_work\(round=2\)", s.take("continue"), "again_work(2)")
    text = s.take("process continue --reverse")
    need(r"again_work\(round=1\) at tree_fork_exec\.c:18:", text, "back to again_work(1)")
    need(r"^\(int\) round = 1$", s.take("frame variable"), "round back in again_work(1)")
    # The new program's own counter: 0 before its first again_work.
    need(r"^\(int\) counter = 0$", s.take("target variable counter"), "counter in the exec'd program")


def child_pid(backstep, trace):
    """The first child process, from `backstep ps` (as a user finds it)."""
    table = subprocess.run([backstep, "ps", trace], capture_output=True, text=True, check=True).stdout
    rows = [line.split("\t") for line in table.splitlines()[1:]]
    if len(rows) < 2:
        raise Failure("the recording has no child process:\n" + table)
    return rows[1][0]


def find_lldb():
    chosen = os.environ.get("BACKSTEP_LLDB")
    if chosen:
        return chosen
    for name in LLDB_NAMES:
        if shutil.which(name):
            return name
    return None


def run_one(opts, root, backstep):
    trace, _, _ = gdbtest.record(backstep, opts.binary, opts.source, root, opts.timeout)
    commands = SUBTESTS[opts.subtest]
    choice = []
    if opts.subtest == "onexec":
        choice = ["--onexec", child_pid(backstep, trace)]
    elif opts.subtest == "exec":
        choice = ["--onfork", child_pid(backstep, trace)]
    argv = [backstep, "replay", "--debugger", "lldb"] + choice + [trace, "--", "-x", "-b"]
    for c in commands:
        argv += ["-o", c]
    for c in AFTER_SIGNAL.get(opts.subtest, []):
        argv += ["-k", c]
    res = gdbtest.run(argv, root, gdbtest.gdb_env(root), None, opts.timeout, merged=True)
    print("replay under lldb: %s in %.2f s" % (res.describe(), res.elapsed), flush=True)
    raw = res.stdout.decode("utf-8", "replace")
    with open(os.path.join(root, "lldb-output.txt"), "w") as f:
        f.write(raw)
    if res.timed_out:
        print("FAIL: timed out after %.0f s; output so far:\n%s" % (opts.timeout, raw))
        return False
    try:
        s = Session(raw, commands + AFTER_SIGNAL.get(opts.subtest, []))
        {"forward": check_forward, "reverse": check_reverse, "onexec": check_onexec,
         "expression": check_expression, "signal": check_signal,
         "expression_resume": check_expression_resume, "direction": check_direction,
         "tls": check_tls, "exec": check_exec, "fork": lambda s: check_fork(s, root)}[opts.subtest](s)
        if res.status() != 0:
            raise Failure("backstep replay --debugger lldb exited with %s" % res.describe())
        if os.path.lexists(os.path.join(root, SANDBOX_FILE)):
            raise Failure("an expression's open(2) created %s: the sandbox let it through" % SANDBOX_FILE)
        # lldb got a private copy of the program, outside the trace, and
        # the copy is gone once lldb is.
        copy = need(r'^\(lldb\) target create "(.+)"$', raw, "the launcher's target").group(1)
        if os.path.realpath(copy).startswith(os.path.realpath(trace) + os.sep) or os.path.exists(copy):
            raise Failure("lldb's copy of the program %s is inside the trace or left behind" % copy)
    except Failure as e:
        print("FAIL: %s\n--- lldb output ---\n%s" % (e, raw))
        return False
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backstep", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--subtest", required=True, choices=sorted(SUBTESTS))
    p.add_argument("--tmp-root", default=tempfile.gettempdir())
    p.add_argument("--timeout", type=float, default=gdbtest.TIMEOUT)
    p.add_argument("--keep", action="store_true")
    opts = p.parse_args()
    if not find_lldb():
        print("FAIL: lldb is not installed (scripts/setup installs lldb-22)")
        return 1
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="lldb-%s-" % opts.subtest, dir=os.path.abspath(opts.tmp_root))
    ok = False
    try:
        ok = run_one(opts, root, os.path.abspath(opts.backstep))
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
    if ok:
        print("PASS lldb.%s" % opts.subtest)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
