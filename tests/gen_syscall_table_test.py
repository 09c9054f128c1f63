#!/usr/bin/env python3
"""Tests gen_syscall_table.py on small specs: the checks that keep the spec and
the recorder's C++ handlers in step (a custom call must name its handler)."""

import os
import subprocess
import sys
import tempfile
import unittest

GENERATOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "engine", "core",
                         "syscalls", "gen_syscall_table.py")


def generate(spec_text, *outputs):
    with tempfile.TemporaryDirectory() as tmp:
        spec = os.path.join(tmp, "test.spec")
        with open(spec, "w", encoding="utf-8") as f:
            f.write(spec_text)
        args = [sys.executable, GENERATOR, spec]
        paths = {}
        for flag in outputs:
            paths[flag] = os.path.join(tmp, flag.strip("-") + ".out")
            args += [flag, paths[flag]]
        proc = subprocess.run(args, capture_output=True, text=True, check=False)
        texts = {}
        for flag, path in paths.items():
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    texts[flag] = f.read()
        return proc, texts


class SpecHandlers(unittest.TestCase):
    def test_custom_without_handler_fails(self):
        proc, texts = generate("125 capget identity custom   # no handler\n", "--recorders")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("test.spec:1: capget is custom but names no handler", proc.stderr)
        self.assertEqual(texts, {})

    def test_unsupported_with_handler_fails(self):
        proc, _ = generate("56 clone process unsupported @clone\n", "--recorders")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("clone is unsupported but names a handler", proc.stderr)

    def test_handler_must_come_last(self):
        proc, _ = generate("18 pwrite64 fs supported @write arg1:8\n", "--recorders")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("the handler (@NAME) comes last", proc.stderr)

    def test_bad_handler_name_fails(self):
        proc, _ = generate("1 write fs custom @Write-x\n", "--recorders")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("handler '@Write-x' is not", proc.stderr)

    def test_recorders_declare_and_dispatch_each_handler_once(self):
        spec = ("1 write fs custom @write  # echo\n"
                "18 pwrite64 fs supported @write\n"
                "19 readv fs custom @scatter_read\n"
                "20 writev fs custom @gather_write\n"
                "21 access fs supported\n")
        proc, texts = generate(spec, "--recorders", "--table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = texts["--recorders"]
        self.assertEqual(out.count("extern const SyscallRecorder write;"), 1)
        self.assertIn("extern const SyscallRecorder scatter_read;", out)
        self.assertIn("case 1: return &recorders::write;  // write", out)
        self.assertIn("case 18: return &recorders::write;  // pwrite64", out)
        self.assertIn("case 20: return &recorders::gather_write;  // writev", out)
        self.assertNotIn("case 21:", out)
        self.assertIn('.name = "pwrite64"', texts["--table"])

    def test_real_spec_names_a_handler_for_every_custom_call(self):
        spec = os.path.join(os.path.dirname(GENERATOR), "syscalls.spec")
        with open(spec, encoding="utf-8") as f:
            proc, texts = generate(f.read(), "--recorders")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("case 125: return &recorders::capget;  // capget", texts["--recorders"])


if __name__ == "__main__":
    unittest.main()
