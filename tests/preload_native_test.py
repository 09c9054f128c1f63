#!/usr/bin/env python3
"""libbackstep_preload.so injected into ordinary programs without backstep:
its registration call is unknown to the kernel, so it must change nothing.
Each program runs with and without LD_PRELOAD; output and status must match.

Usage: preload_native_test.py PATH/libbackstep_preload.so"""

import os
import subprocess
import sys
import unittest

LIBRARY = None

THREADS_AND_FILES = r"""
import os, sys, tempfile, threading
def work(i, out):
    with tempfile.TemporaryFile() as f:
        f.write(b"x" * (1000 + i))
        f.seek(0)
        out[i] = (len(f.read()), os.fstat(f.fileno()).st_size)
out = {}
threads = [threading.Thread(target=work, args=(i, out)) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(sorted(out.items()), os.getcwd(), os.getpid() > 0, len(os.urandom(16)))
loaded = any("libbackstep_preload.so" in line for line in open("/proc/self/maps"))
sys.stderr.write("loaded=%s\n" % loaded)
"""

PROGRAMS = [
    ["ls", "/"],
    ["sh", "-c", "echo piped | cat; wc -c < /etc/passwd; exit 3"],
    [sys.executable, "-c", THREADS_AND_FILES],
]


def run(argv, preload):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if preload:
        env["LD_PRELOAD"] = LIBRARY
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)


class NativeInjection(unittest.TestCase):
    def test_programs_behave_the_same(self):
        for argv in PROGRAMS:
            with self.subTest(program=argv[0]):
                plain = run(argv, preload=False)
                injected = run(argv, preload=True)
                self.assertEqual(injected.returncode, plain.returncode, injected.stderr)
                self.assertEqual(injected.stdout, plain.stdout)

    def test_the_library_is_really_loaded(self):
        injected = run([sys.executable, "-c", THREADS_AND_FILES], preload=True)
        self.assertEqual(injected.returncode, 0, injected.stderr)
        self.assertIn("loaded=True", injected.stderr)
        self.assertNotIn("ERROR: ld.so", injected.stderr)


if __name__ == "__main__":
    LIBRARY = sys.argv.pop(1)
    if not os.path.isfile(LIBRARY):
        sys.exit(f"error: {LIBRARY} does not exist")
    unittest.main()
