#!/usr/bin/env python3
"""Tests native_compare.py on gdb outputs as gdb 13 prints them: what it
reads from a session, and the differences it finds between a native run
and a replay, forwards and backwards."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import native_compare  # noqa: E402

# gdb run natively: a software watchpoint, reported in whichever thread gdb
# stepped, and the table with its `watchpoint` row.
NATIVE = """\
Program stopped.
0x00007ffff7fe4b70 in _start () from /lib64/ld-linux-x86-64.so.2
Breakpoint 1 at 0x116c: file loop.c, line 24.
[Switching to Thread 0x7ffff7dcf6c0 (LWP 26042)]

Thread 2 "loop" hit Breakpoint 1, worker (arg=0x0) at loop.c:24
24\t  for (i = 1; i <= 2; i++) {
Watchpoint 2: total
[Switching to Thread 0x7ffff7dd0740 (LWP 26040)]

Thread 1 "loop" hit Watchpoint 2: total

Old value = 0
New value = 1
main () at loop.c:40
40\t  while (!halfway) {}

Thread 2 "loop" hit Watchpoint 2: total

Old value = 1
New value = 5
worker (arg=0x0) at loop.c:26
26\t    if (i == 1) {
Num     Type           Disp Enb Address            What
1       breakpoint     keep y   0x000055555555516c in worker at loop.c:24
\tbreakpoint already hit 1 time
2       watchpoint     keep y                      total
\tbreakpoint already hit 2 times
        continue
$1 = 5
"""

# The same through backstep (normalised): a hardware watchpoint, addresses
# and thread ids replaced, then the script's backwards part.
REPLAY_FORWARDS = """\
0xADDR in _start () from target:/lib64/ld-linux-x86-64.so.2
Breakpoint 1 at 0xADDR: file loop.c, line 24.
[Switching to Thread PID.TID1]

Thread 2 "loop" hit Breakpoint 1, worker (arg=0x0) at loop.c:24
24\t  for (i = 1; i <= 2; i++) {
Hardware watchpoint 2: total

Thread 2 "loop" hit Hardware watchpoint 2: total

Old value = 0
New value = 1
worker (arg=0x0) at loop.c:26
26\t    if (i == 1) {

Thread 2 "loop" hit Hardware watchpoint 2: total

Old value = 1
New value = 5
worker (arg=0x0) at loop.c:26
26\t    if (i == 1) {
Num     Type           Disp Enb Address            What
1       breakpoint     keep y   0xADDR in worker at loop.c:24
\tbreakpoint already hit 1 time
2       hw watchpoint  keep y                      total
\tbreakpoint already hit 2 times
        continue
$1 = 5
"""

REPLAY_BACKWARDS = """\
-- backwards --
Hardware watchpoint 3: total
Breakpoint 4 at 0xADDR: file loop.c, line 24.

Thread 2 "loop" hit Hardware watchpoint 3: total

Old value = 5
New value = 1
worker (arg=0x0) at loop.c:25
25\t    total = total * 3 + i;

Thread 2 "loop" hit Hardware watchpoint 3: total

Old value = 1
New value = 0
worker (arg=0x0) at loop.c:25
25\t    total = total * 3 + i;

Thread 2 "loop" hit Breakpoint 4, worker (arg=0x0) at loop.c:24
24\t  for (i = 1; i <= 2; i++) {
Num     Type           Disp Enb Address            What
3       hw watchpoint  keep y                      total
\tbreakpoint already hit 2 times
        reverse-continue
4       breakpoint     keep y   0xADDR in worker at loop.c:24
\tbreakpoint already hit 1 time
$2 = 0
[Inferior 1 (process PID) detached]
[backstep replay exit status 0]
"""

REPLAY = REPLAY_FORWARDS + REPLAY_BACKWARDS


def without_report(text, old, new):
    """text without the watchpoint report from old to new."""
    lines = text.split("\n")
    at = lines.index("Old value = %s" % old)
    assert lines[at + 1] == "New value = %s" % new
    # blank, "hit" line, blank, Old, New, frame, source line
    del lines[at - 3:at + 4]
    return "\n".join(lines)


class Reported(unittest.TestCase):
    def test_native_session(self):
        self.assertEqual(
            [f.line() for f in native_compare.reported(NATIVE)],
            ["stop  Breakpoint 1, worker (arg=0x0) at loop.c:24\n",
             "watch total: 0 -> 1\n",
             "watch total: 1 -> 5\n",
             "hits  breakpoint in worker at loop.c:24: 1\n",
             "hits  watchpoint total: 2\n",
             "value 5\n"])

    def test_row_without_hits_counts_zero(self):
        text = ("Num     Type           Disp Enb Address            What\n"
                "1       breakpoint     keep y   0xADDR in mark at f.c:3\n"
                "2       breakpoint     keep y   0xADDR in main at f.c:9\n"
                "\tbreakpoint already hit 1 time\n"
                "\tignore next 5 hits\n"
                "$1 = 0\n")
        self.assertEqual([f.line() for f in native_compare.reported(text)],
                         ["hits  breakpoint in mark at f.c:3: 0\n",
                          "hits  breakpoint in main at f.c:9: 1\n",
                          "value 0\n"])


class Compare(unittest.TestCase):
    def test_same_reports_pass(self):
        self.assertEqual(native_compare.compare(NATIVE, REPLAY), [])

    def test_a_missing_report_forwards_fails(self):
        replay = without_report(REPLAY_FORWARDS, "0", "1") + REPLAY_BACKWARDS
        problems = native_compare.compare(NATIVE, replay)
        self.assertEqual(len(problems), 1)
        title, want, got = problems[0]
        self.assertTrue(title.startswith("forwards"))
        self.assertIn("watch total: 0 -> 1\n", want)
        self.assertNotIn("watch total: 0 -> 1\n", got)

    def test_a_missing_report_backwards_fails(self):
        replay = REPLAY_FORWARDS + without_report(REPLAY_BACKWARDS, "1", "0").replace(
            "already hit 2 times\n        reverse", "already hit 1 time\n        reverse")
        titles = [t for t, _, _ in native_compare.compare(NATIVE, replay)]
        self.assertEqual(len(titles), 2)
        self.assertTrue(titles[0].startswith("backwards: hit counts"))
        self.assertTrue(titles[1].startswith("backwards: watchpoint reports"))

    def test_backwards_without_a_table_fails(self):
        replay = REPLAY_FORWARDS + REPLAY_BACKWARDS.split("Num     Type")[0]
        titles = [t for t, _, _ in native_compare.compare(NATIVE, replay)]
        self.assertEqual(titles, ["backwards: no `info breakpoints` table after the marker"])


class NativeRun(unittest.TestCase):
    def test_script_ends_before_the_marker(self):
        script = "break worker\ncontinue\n# going back\necho -- backwards --\\n\nreverse-continue\n"
        self.assertEqual(native_compare.native_script(script), "break worker\ncontinue\n# going back\n")

    def test_arguments_and_stdin_go_to_starti(self):
        argv = native_compare.native_gdb_argv("./prog", ["a b", "c"], "s.gdb", "/w/in put")
        self.assertEqual(argv[argv.index("-ex") + 1], "starti 'a b' c < '/w/in put'")
        self.assertEqual(argv[-3:], ["-x", "s.gdb", "./prog"])
        self.assertIn("set can-use-hw-watchpoints 0", argv)


if __name__ == "__main__":
    unittest.main()
