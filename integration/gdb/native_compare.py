"""gdb run natively on a scenario's program, and what a session reported
(python3 stdlib only). run_gdb_scenario.py uses it for a scenario whose
header says `// compare: native gdb`.

The native session runs the same script, started with `starti` (so that it
begins where a replay does: at the program's first instruction) and with
software watchpoints (`set can-use-hw-watchpoints 0`: where the debug
registers never fire, as on this project's VMs, a native hardware
watchpoint would report nothing). A script that then goes back in time
says where with the line

    echo -- backwards --\\n

gdb cannot go back natively, so the native run ends before that line.

What is compared (reported()): the hit count of each row of every
`info breakpoints` table, each watchpoint report (expression, old and new
value), each stop at a breakpoint (number and frame), and each printed
value (`$N = ...`), in the order gdb printed them. Not compared: thread
numbers and names, the `[Switching to ...]` lines, the frame of a
watchpoint report (natively, gdb checks a software watchpoint after a step
of whichever thread it stepped), addresses, and everything the remote
protocol adds. Several threads' stops come in another order natively: a
script counts those hits (`ignore N 100000`, `info breakpoints`) instead of
stopping at each.

After the marker, the script goes back over what it went forwards over,
with the breakpoints and watchpoints it looks at created anew (their
counts start again at 0):
  - each row of an `info breakpoints` table there must have the hit count
    of the row at the same place (type and location) in the native run's
    last table: going back crosses every hit going forwards crossed;
  - its watchpoint reports must be the native ones in reverse order, with
    old and new values swapped.
"""

import re
import shlex

BACKWARDS_LINE = re.compile(r"^echo -- backwards --")
BACKWARDS_MARK = "-- backwards --\n"

TABLE_HEADER = re.compile(r"^Num\s+Type\s+Disp\s+Enb\s+Address\s+What\s*$")
TABLE_ROW = re.compile(r"^\d+\s+(breakpoint|hw watchpoint|watchpoint|read watchpoint|acc watchpoint)\s+"
                       r"(?:keep|del|dis|dstp)\s+[yn]\s+(?:0x(?:ADDR|[0-9a-fA-F]+)\s+|<[A-Z]+>\s+)?(.*?)\s*$")
ALREADY_HIT = re.compile(r"^\s+breakpoint already hit (\d+) times?$")
WATCH_REPORT = re.compile(r"^(?:.* hit )?(?:Hardware w|W)atchpoint \d+: (.*)\n\n"
                          r"Old value = (.*)\nNew value = (.*)$", re.M)
BREAKPOINT_STOP = re.compile(r"^(?:Thread \d+ \"[^\"\n]*\" hit )?(Breakpoint \d+, .*)$")
VALUE = re.compile(r"^\$\d+ = (.*)$")


class Fact:
    """One thing gdb reported: kind is "hits", "watch", "stop" or "value"."""

    def __init__(self, kind, key, value):
        self.kind, self.key, self.value = kind, key, value

    def __eq__(self, other):
        return (self.kind, self.key, self.value) == (other.kind, other.key, other.value)

    def line(self):
        if self.kind == "hits":
            return "hits  %s: %s\n" % (self.key, self.value)
        if self.kind == "watch":
            return "watch %s: %s -> %s\n" % (self.key, self.value[0], self.value[1])
        return "%-5s %s\n" % (self.kind, self.value if self.kind == "value" else self.key)


def reported(text):
    """The facts of one session's (normalised) output, in order."""
    facts = []
    # Watchpoint reports span lines: find them first, by offset.
    watch_at = {m.start(): m for m in WATCH_REPORT.finditer(text)}
    offset = 0
    in_table = False
    row = None  # the table row whose hit count comes next

    def end_row():
        nonlocal row
        if row is not None:
            facts.append(row)
        row = None

    for line in text.splitlines(keepends=True):
        start, offset = offset, offset + len(line)
        line = line.rstrip("\n")
        if in_table:
            m = TABLE_ROW.match(line)
            hit = ALREADY_HIT.match(line)
            if m:
                end_row()
                kind = "watchpoint" if m.group(1) == "hw watchpoint" else m.group(1)
                row = Fact("hits", "%s %s" % (kind, m.group(2)), "0")
                continue
            if hit and row is not None:
                row.value = hit.group(1)
                continue
            if line.startswith(("\t", " ")) or re.match(r"^\d+\.\d+\s", line):
                continue  # ignore counts, conditions, commands, locations
            end_row()
            in_table = False
        if TABLE_HEADER.match(line):
            in_table = True
            continue
        if start in watch_at:
            m = watch_at[start]
            facts.append(Fact("watch", m.group(1), (m.group(2), m.group(3))))
            continue
        m = BREAKPOINT_STOP.match(line)
        if m:
            facts.append(Fact("stop", m.group(1), ""))
            continue
        m = VALUE.match(line)
        if m:
            facts.append(Fact("value", "", m.group(1)))
    end_row()
    return facts


def split_backwards(text):
    """(forwards, backwards) parts of a replay's output: backwards is None
    for a script without the marker."""
    at = text.find("\n" + BACKWARDS_MARK)
    if at < 0:
        return text, None
    return text[:at + 1], text[at + 1 + len(BACKWARDS_MARK):]


def native_script(script_text):
    """The part of a script gdb can run natively: up to the marker."""
    lines = []
    for line in script_text.splitlines(keepends=True):
        if BACKWARDS_LINE.match(line):
            break
        lines.append(line)
    return "".join(lines)


def native_gdb_argv(exe, args, script, stdin_file):
    """gdb (the one on PATH, as `backstep replay` starts) on `exe`
    natively, stopped at its first instruction, then the script."""
    start = "starti" + "".join(" " + shlex.quote(a) for a in args)
    if stdin_file:
        start += " < " + shlex.quote(stdin_file)
    return ["gdb", "-batch", "-nx", "-iex", "set can-use-hw-watchpoints 0", "-ex", start, "-x", script, exe]


def lines(facts):
    return [f.line() for f in facts]


def compare(native, replay):
    """Differences between the native session's facts and the replay's,
    as (title, expected lines, actual lines) for each part that differs."""
    problems = []
    forwards, backwards = split_backwards(replay)
    want, got = reported(native), reported(forwards)
    if want != got:
        problems.append(("forwards: native gdb (expected) vs replay (actual)", lines(want), lines(got)))
    if backwards is None:
        return problems
    back = reported(backwards)
    native_counts = {}
    for f in want:
        if f.kind == "hits":
            native_counts[f.key] = f.value  # the last table's count wins
    got_hits = [f for f in back if f.kind == "hits"]
    want_hits = [Fact("hits", f.key, native_counts.get(f.key, "(no such row natively)")) for f in got_hits]
    if not got_hits:
        problems.append(("backwards: no `info breakpoints` table after the marker", [], []))
    elif want_hits != got_hits:
        problems.append(("backwards: hit counts, native forwards (expected) vs replay backwards (actual)",
                         lines(want_hits), lines(got_hits)))
    want_watch = [Fact("watch", f.key, (f.value[1], f.value[0])) for f in reversed(want) if f.kind == "watch"]
    got_watch = [f for f in back if f.kind == "watch"]
    if want_watch != got_watch:
        problems.append(("backwards: watchpoint reports, native forwards mirrored (expected) vs replay "
                         "backwards (actual)", lines(want_watch), lines(got_watch)))
    return problems


def summary(text):
    """One line: how many hits, watchpoint reports and stops a session's
    output holds (for the log)."""
    facts = reported(text)
    hits = ", ".join("%s: %s" % (f.key, f.value) for f in facts if f.kind == "hits")
    return "%d watchpoint reports, %d breakpoint stops; hit counts: %s" % (
        sum(f.kind == "watch" for f in facts), sum(f.kind == "stop" for f in facts), hits or "none")
