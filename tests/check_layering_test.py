#!/usr/bin/env python3
"""Tests check_layering.py on small source trees: each rule catches an include
against the layout, and a tree that keeps to it passes."""

import os
import subprocess
import sys
import tempfile
import unittest

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layering.py")

# The smallest tree in which every rule has files, each including only what it may.
CLEAN = {
    "values/cpu_state.h": "#include <array>\n",
    "values/registers.h": '#include "values/cpu_state.h"\n',
    "values/log.h": "",
    "engine/core/task.h": '#include "values/registers.h"\n',
    "engine/trace/event.h": '#include <vector>\n#include "values/cpu_state.h"\n',
    "engine/replay/replay_session.h": '#include "engine/trace/event.h"\n',
    "engine/timeline/debug_target.h": '#include "values/registers.h"\n',
    "engine/timeline/replay_timeline.h": ('#include "engine/replay/replay_session.h"\n'
                                          '#include "engine/timeline/debug_target.h"\n'),
    "gdbserver/rsp/packet.h": "#include <string>\n",
    "gdbserver/gdb_session.cc": ('#include "engine/timeline/debug_target.h"\n'
                                 '#include "values/log.h"\n#include "gdbserver/rsp/packet.h"\n'),
    "cli/serve_command.cc": '#include "engine/timeline/replay_timeline.h"\n',
    "preload/preload_interface.h": "#include <stdint.h>\n",
    "preload/syscall_hook.c": '#include "preload/preload_interface.h"\n',
    "dap/wire/frame_reader.h": "#include <string>\n",
    "dap/mi/mi_record.h": "#include <vector>\n",
    "dap/session.h": '#include "dap/wire/frame_reader.h"\n#include "dap/mi/mi_record.h"\n',
}


def run(changes):
    with tempfile.TemporaryDirectory() as root:
        for path, text in {**CLEAN, **changes}.items():
            if text is None:
                continue
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        return subprocess.run([sys.executable, CHECKER, root], capture_output=True, text=True, check=False)


class Layering(unittest.TestCase):
    def assert_refused(self, changes, *expected):
        proc = run(changes)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        for text in expected:
            self.assertIn(text, proc.stderr)

    def test_clean_tree_passes(self):
        proc = run({})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("files checked", proc.stdout)

    def test_core_including_trace_fails(self):
        self.assert_refused({"values/registers.h": '#include "engine/trace/event.h"\n'},
                            'values/registers.h:1: includes "engine/trace/event.h"')

    def test_core_including_replay_from_a_source_file_fails(self):
        self.assert_refused({"engine/core/task.cc": '#include <x>\n  #  include <engine/replay/replay_session.h>\n'},
                            'engine/core/task.cc:2: includes "engine/replay/replay_session.h"')

    def test_trace_including_more_of_core_fails(self):
        self.assert_refused({"engine/trace/event.h": '#include "engine/core/task.h"\n'},
                            'engine/trace/event.h:1: includes "engine/core/task.h"')

    def test_debug_target_including_the_replay_engine_fails(self):
        self.assert_refused({"engine/timeline/debug_target.h": '#include "engine/replay/replay_session.h"\n'},
                            "engine/timeline/debug_target.h:1:")

    def test_gdbserver_including_the_concrete_engine_fails(self):
        for include in ("engine/timeline/replay_timeline.h", "engine/replay/replay_session.h",
                        "engine/trace/event.h", "engine/core/task.h", "cli/commands.h"):
            with self.subTest(include=include):
                self.assert_refused({"gdbserver/handlers.cc": f'#include "{include}"\n'},
                                    f'gdbserver/handlers.cc:1: includes "{include}"')

    def test_rsp_including_gdbserver_or_engine_fails(self):
        self.assert_refused({"gdbserver/rsp/reply.cc": ('#include "gdbserver/gdb_session.h"\n'
                                                        '#include "engine/timeline/debug_target.h"\n')},
                            'gdbserver/rsp/reply.cc:1: includes "gdbserver/gdb_session.h"',
                            'gdbserver/rsp/reply.cc:2: includes "engine/timeline/debug_target.h"')

    def test_the_dap_front_including_the_engine_or_the_server_fails(self):
        for include in ("engine/timeline/debug_target.h", "gdbserver/gdb_session.h", "cli/commands.h"):
            with self.subTest(include=include):
                self.assert_refused({"dap/session.cc": f'#include "{include}"\n'},
                                    f'dap/session.cc:1: includes "{include}"')
        self.assert_refused({"dap/wire/frame_reader.cc": '#include "dap/session.h"\n'},
                            'dap/wire/frame_reader.cc:1: includes "dap/session.h"')

    def test_commented_out_include_and_system_headers_are_ignored(self):
        proc = run({"engine/core/task.cc": ('// #include "engine/trace/event.h"\n'
                                            '#include <sys/user.h>\n#include "zlib.h"\n')})
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_a_rule_without_files_fails(self):
        # After a rename, a rule that matches nothing must not pass silently.
        self.assert_refused({"engine/timeline/debug_target.h": None},
                            "engine/timeline/debug_target.h: no source files")


if __name__ == "__main__":
    unittest.main()
