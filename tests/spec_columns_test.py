#!/usr/bin/env python3
"""Tests gen_syscall_table.py on the spec's columns beyond recording and
buffering: output sizes given as C types, the calls that may block, and what
replay does with address-space calls."""

import os
import sys
import unittest

from gen_syscall_table_test import GENERATOR, GeneratorTest, generate


class SpecSizes(GeneratorTest):
    """Output sizes as C types: sizeof(TYPE), with the headers of `include` lines."""

    def test_sizeof_sizes_reach_both_tables(self):
        spec = ("include <sys/stat.h>\n"
                "include <poll.h>\n"
                "4 stat fs supported arg1:sizeof(struct stat) buffer\n"
                "7 poll poll supported arg0:arg1*sizeof(struct  pollfd) buffer,block blocks\n"
                "22 pipe fs supported arg0:sizeof(int[2])\n"
                "115 getgroups identity supported arg1:ret*sizeof(gid_t) buffer\n"
                "136 ustat fs supported arg1:32\n")
        proc, texts = generate(spec, "--table", "--preload-table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        table, preload = texts["--table"], texts["--preload-table"]
        for out in (table, preload):
            self.assertIn("#include <sys/stat.h>\n#include <poll.h>\n", out)
        self.assertIn("{.arg = 1, .size_kind = SizeKind::Fixed, .size_arg = 0, .size = sizeof(struct stat)}", table)
        self.assertIn("{.arg = 0, .size_kind = SizeKind::ArgTimes, .size_arg = 1, .size = sizeof(struct pollfd)}", table)
        self.assertIn("{.arg = 0, .size_kind = SizeKind::Fixed, .size_arg = 0, .size = sizeof(int[2])}", table)
        self.assertIn("{.arg = 1, .size_kind = SizeKind::Fixed, .size_arg = 0, .size = 32}", table)
        self.assertIn("{.arg = 1, .kind = BS_SIZE_FIXED, .size_arg = 0, .size = sizeof(struct stat)}", preload)
        self.assertIn("{.arg = 1, .kind = BS_SIZE_RET_TIMES, .size_arg = 2, .size = sizeof(gid_t)}", preload)
        self.assertIn("#error", preload)  # without _GNU_SOURCE in C

    def test_malformed_sizes_and_includes(self):
        self.expect_error("4 stat fs supported arg1:sizeof(struct stat\n", "unbalanced parentheses")
        self.expect_error("4 stat fs supported arg1:sizeof(1+2)\n", "is not one of BYTES")
        self.expect_error("4 stat fs supported arg1:sizeof()\n", "is not one of BYTES")
        self.expect_error("7 poll poll supported arg0:sizeof(struct pollfd)*arg1\n", "is not one of BYTES")
        self.expect_error("include sys/stat.h\n4 stat fs supported\n", "expected 'include <HEADER.h>'")
        self.expect_error("include <sys/stat.h> <poll.h>\n4 stat fs supported\n", "expected 'include <HEADER.h>'")
        self.expect_error("4 stat fs supported\ninclude <sys/stat.h>\n", "comes before the first call")
        self.expect_error("include <poll.h>\ninclude <poll.h>\n4 stat fs supported\n", "is included twice")


class SpecBlocks(GeneratorTest):
    """The `blocks` token: the calls that may wait (engine/record/blocking_calls.cc)."""

    def test_blocks_always_or_for_some_operations(self):
        proc, texts = generate("0 read fs supported arg1:ret buffer=fd0,block blocks @read\n"
                               "39 getpid identity supported buffer\n"
                               "202 futex thread custom blocks=op1&0xfffffe7f:0|9 @futex\n", "--table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        table = texts["--table"]
        self.assertIn(".buffer_block = true, .buffer_opens = false, .blocks = true},", table)
        self.assertIn('.name = "getpid"', table)
        self.assertEqual(table.count(".blocks = true"), 2)
        self.assertIn(".buffer_opens = false, .blocks = true, .blocking_ops = {.arg = 1, .mask = 0xfffffe7fu, "
                      ".values = 0x201ull}},", table)

    def test_buffered_block_needs_blocks(self):
        self.expect_error("0 read fs supported arg1:ret buffer=fd0,block @read\n",
                          "read is marked 'buffer=fd0,block' but not 'blocks'")

    def test_malformed_blocks_tokens(self):
        self.expect_error("202 futex thread custom blocks=op6:0 @futex\n", "argument 6 is not 0..5")
        self.expect_error("202 futex thread custom blocks=op1:64 @futex\n", "operation values must be below 64")
        self.expect_error("202 futex thread custom blocks=op1&0x100000000:0 @futex\n", "does not fit in 32 bits")
        self.expect_error("202 futex thread custom blocks=1 @futex\n", "is not blocks or blocks=opN&MASK:V|V...")
        self.expect_error("134 uselib fs unsupported blocks\n", "uselib is unsupported but marked 'blocks'")
        self.expect_error("0 read fs supported arg1:ret blocks buffer=fd0,block @read\n",
                          "'blocks' comes after the outputs and 'buffer', before 'replay'")
        self.expect_error("0 read fs supported blocks arg1:ret\n", "'blocks' comes after the outputs")
        self.expect_error("0 read fs supported arg1:ret blocks blocks\n", "blocks is given once")
        self.expect_error("0 read fs supported arg1:ret @read blocks\n", "comes last")

    def test_real_spec_marks_futex_and_fcntl_waits(self):
        spec = os.path.join(os.path.dirname(GENERATOR), "syscalls.spec")
        with open(spec, encoding="utf-8") as f:
            proc, texts = generate(f.read(), "--table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = {line.split('.name = "')[1].split('"')[0]: line
                 for line in texts["--table"].splitlines() if '.name = "' in line}
        # futex: WAIT, LOCK_PI, WAIT_BITSET, WAIT_REQUEUE_PI, LOCK_PI2 without
        # the private and clock flags; fcntl: F_SETLKW, F_OFD_SETLKW.
        self.assertIn(".blocking_ops = {.arg = 1, .mask = 0xfffffe7fu, .values = 0x2a41ull}", lines["futex"])
        self.assertIn(".blocking_ops = {.arg = 1, .mask = 0xffffffffu, .values = 0x4000000080ull}", lines["fcntl"])
        for name in ("read", "write", "wait4", "nanosleep", "openat", "restart_syscall", "flock", "accept4"):
            self.assertTrue(lines[name].endswith(".blocks = true},"), name)
        for name in ("getpid", "close", "mmap", "fstat", "clone"):
            self.assertNotIn(".blocks", lines[name], name)


class SpecReplay(GeneratorTest):
    """The `replay=ACTION` token: what replay does with an address-space call
    (engine/replay/address_space.cc)."""

    def test_replay_column(self):
        proc, texts = generate("9 mmap mm custom replay=mmap @mmap\n"
                               "30 shmat mm custom replay=map_object @shmat\n"
                               "39 getpid identity supported buffer\n"
                               "160 setrlimit identity supported replay=stack_room\n", "--table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        table = texts["--table"]
        self.assertIn(".buffer_opens = false, .replay = ReplayAction::Mmap},", table)
        self.assertIn(".buffer_opens = false, .replay = ReplayAction::MapObject},", table)
        self.assertIn(".buffer_opens = false, .replay = ReplayAction::StackRoom},", table)
        self.assertEqual(table.count(".replay ="), 3)

    def test_malformed_replay_tokens(self):
        self.expect_error("9 mmap mm custom replay=map @mmap\n", "'replay=map' is not replay=ACTION")
        self.expect_error("9 mmap mm custom replay @mmap\n", "'replay' is not replay=ACTION")
        self.expect_error("9 mmap mm custom replay=mmap replay=munmap @mmap\n", "replay is given once")
        self.expect_error("9 mmap mm custom replay=mmap blocks @mmap\n", "'replay' comes after the outputs")
        self.expect_error("9 mmap mm unsupported replay=mmap\n", "mmap is unsupported but marked 'replay=mmap'")

    def test_actions_are_the_cxx_enum_and_all_used(self):
        # The generator's actions are sys::ReplayAction's enumerators (but
        # None), and the real spec marks a call with each of them: an action
        # no call takes would be a case of address_space.cc nothing reaches.
        sys.path.insert(0, os.path.dirname(GENERATOR))
        try:
            from syscall_spec import REPLAY_ACTIONS
        finally:
            sys.path.pop(0)
        header = os.path.join(os.path.dirname(GENERATOR), "syscall_table.h")
        with open(header, encoding="utf-8") as f:
            body = f.read().split("enum class ReplayAction : uint8_t {", 1)[1].split("};", 1)[0]
        enumerators = [line.split(",")[0].strip() for line in body.splitlines() if line.strip()]
        self.assertEqual(enumerators[0], "None")
        self.assertEqual(sorted(enumerators[1:]), sorted(REPLAY_ACTIONS.values()))
        spec = os.path.join(os.path.dirname(GENERATOR), "syscalls.spec")
        with open(spec, encoding="utf-8") as f:
            proc, texts = generate(f.read(), "--table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for enumerator in REPLAY_ACTIONS.values():
            self.assertIn(f".replay = ReplayAction::{enumerator}}}", texts["--table"], enumerator)
        lines = {line.split('.name = "')[1].split('"')[0]: line
                 for line in texts["--table"].splitlines() if '.name = "' in line}
        for name, enumerator in (("mmap", "Mmap"), ("io_setup", "MapObject"), ("io_destroy", "UnmapObject"),
                                 ("prlimit64", "StackRoom"), ("pkey_alloc", "PkeyAlloc"), ("brk", "Brk")):
            self.assertIn(f".replay = ReplayAction::{enumerator}}}", lines[name], name)
        for name in ("getpid", "mlock", "mbind", "shmget"):
            self.assertNotIn(".replay", lines[name], name)


if __name__ == "__main__":
    unittest.main()
