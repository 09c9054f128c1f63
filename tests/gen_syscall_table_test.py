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


class GeneratorTest(unittest.TestCase):
    """expect_error(): the generator refuses the spec with the message, and
    writes none of the outputs asked for."""

    outputs = ("--table",)

    def expect_error(self, text, message):
        proc, texts = generate(text, *self.outputs)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(message, proc.stderr)
        self.assertEqual(texts, {})


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


class SpecBuffer(GeneratorTest):
    """The `buffer` token: what the preload library may perform itself."""

    def test_preload_table_lists_bufferable_calls_with_bounds(self):
        spec = ("0 read fs supported arg1:ret buffer=fd0 @read\n"
                "1 write fs custom buffer=fd0,data1 @write\n"
                "2 open fs supported\n"
                "96 gettimeofday time supported arg0:16 arg1:8 buffer\n"
                "115 getgroups identity supported arg1:ret*4 buffer\n")
        proc, texts = generate(spec, "--preload-table", "--table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = texts["--preload-table"]
        self.assertIn("static const struct bs_buffered_call BS_BUFFERED_CALLS[] = {", out)
        self.assertIn("#define BS_BUFFERED_CALL_COUNT 4", out)
        # A ret output is bounded by the next argument, given as size_arg.
        self.assertIn("{.nr = 0, .fd_arg = 0, .data_arg = BS_GATE_NONE, .out_count = 1, .flags = 0, "
                      ".outs = {{.arg = 1, .kind = BS_SIZE_RET, .size_arg = 2, .size = 0u}}, .op_arg = BS_GATE_NONE, .null_arg = BS_GATE_NONE, .indirect_arg = BS_GATE_NONE, .path_arg = BS_GATE_NONE}", out)
        self.assertIn("{.nr = 1, .fd_arg = 0, .data_arg = 1, .out_count = 0, .flags = 0, .op_arg = BS_GATE_NONE, .null_arg = BS_GATE_NONE, .indirect_arg = BS_GATE_NONE, .path_arg = BS_GATE_NONE}", out)
        self.assertIn("{.nr = 96, .fd_arg = BS_GATE_NONE, .data_arg = BS_GATE_NONE, .out_count = 2", out)
        self.assertIn("{.arg = 1, .kind = BS_SIZE_RET_TIMES, .size_arg = 2, .size = 4u}", out)
        self.assertNotIn(".nr = 2,", out)
        table = texts["--table"]
        self.assertIn('.name = "read"', table)
        self.assertIn(".bufferable = true, .buffer_fd_arg = 0, .buffer_closes = false, .buffer_block = false, .buffer_opens = false}", table)
        self.assertIn(".bufferable = true, .buffer_fd_arg = -1, .buffer_closes = false, .buffer_block = false, .buffer_opens = false}", table)
        self.assertIn(".bufferable = false, .buffer_fd_arg = -1, .buffer_closes = false, .buffer_block = false, .buffer_opens = false}", table)

    outputs = ("--preload-table", "--table")

    def test_deref_output_is_buffered_only_when_null(self):
        # The library takes the traced path when the pointer is not null
        # (its bound is then unknown): the table says DEREF_ARG.
        proc, texts = generate("45 recvfrom net supported arg1:ret arg4:*arg5 arg5:4 buffer=fd0,block blocks\n",
                               "--preload-table", "--table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("{.arg = 4, .kind = BS_SIZE_DEREF_ARG, .size_arg = 5, .size = 0u}", texts["--preload-table"])
        self.assertIn(".flags = BS_CALL_MAY_BLOCK,", texts["--preload-table"])
        self.assertIn(".buffer_block = true, .buffer_opens = false, .blocks = true}", texts["--table"])

    def test_block_token(self):
        proc, texts = generate("7 poll poll supported arg0:arg1*8 buffer,block blocks\n"
                               "20 writev fs custom buffer=fd0,gather1,block blocks @gather_write\n", "--preload-table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = texts["--preload-table"]
        self.assertIn("{.nr = 7, .fd_arg = BS_GATE_NONE, .data_arg = BS_GATE_NONE, .out_count = 1, "
                      ".flags = BS_CALL_MAY_BLOCK,", out)
        self.assertIn(".flags = BS_CALL_GATHER | BS_CALL_MAY_BLOCK, .op_arg = BS_GATE_NONE, .null_arg = BS_GATE_NONE, "
                      ".indirect_arg = 1, .path_arg = BS_GATE_NONE}", out)
        self.expect_error("7 poll poll supported arg0:arg1*8 buffer,blocks\n", "is not buffer, buffer=fdN")
        self.expect_error("7 poll poll supported arg0:arg1*8 block\n", "")

    def test_ret_output_needs_a_bounding_argument(self):
        self.expect_error("0 read fs supported arg5:ret buffer\n",
                          "output arg5 sized by ret has no argument arg6 to bound it")

    def test_unsupported_cannot_be_buffered(self):
        self.expect_error("134 uselib fs unsupported buffer\n", "uselib is unsupported but marked 'buffer'")

    def test_handler_needs_a_descriptor_gate(self):
        self.expect_error("1 write fs custom buffer @write\n",
                          "write names a handler (@write), which does not run for a buffered call")
        self.expect_error("17 pread64 fs supported arg1:ret buffer @read\n", "pread64 names a handler")

    def test_malformed_buffer_tokens(self):
        self.expect_error("0 read fs supported arg1:ret buffer=fd6\n", "argument 6 is not 0..5")
        self.expect_error("0 read fs supported arg1:ret buffer=0\n", "is not buffer, buffer=fdN")
        self.expect_error("1 write fs supported buffer=fd0,data5\n", "needs its length in the next argument")
        self.expect_error("1 write fs supported buffer=fd1,data1\n", "the data argument is the descriptor")
        self.expect_error("0 read fs supported buffer arg1:ret\n", "'buffer' comes after the outputs")
        self.expect_error("0 read fs supported arg1:ret @read buffer=fd0\n", "comes last")

    def test_real_spec_buffers_reads_writes_and_queries(self):
        spec = os.path.join(os.path.dirname(GENERATOR), "syscalls.spec")
        with open(spec, encoding="utf-8") as f:
            proc, texts = generate(f.read(), "--preload-table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = texts["--preload-table"]
        for name in ("read", "write", "pread64", "pwrite64", "fstat", "getdents64", "clock_gettime",
                     "getpid", "statx", "close", "writev"):
            self.assertIn(f"/* {name} */", out)
        for name in ("mmap", "open", "openat2", "munmap", "accept", "connect"):
            self.assertNotIn(f"/* {name} */", out)
        self.assertIn(".flags = BS_CALL_CLOSES_FD, .op_arg = BS_GATE_NONE, .null_arg = BS_GATE_NONE, .indirect_arg = BS_GATE_NONE, .path_arg = BS_GATE_NONE},  /* close */", out)
        self.assertIn(".flags = BS_CALL_GATHER | BS_CALL_MAY_BLOCK, .op_arg = BS_GATE_NONE, .null_arg = BS_GATE_NONE, "
                      ".indirect_arg = 1, .path_arg = BS_GATE_NONE},  /* writev */", out)
        # futex: WAIT, WAKE, WAIT_BITSET and WAKE_BITSET only; fcntl: F_GETFD..F_SETFL.
        self.assertIn(".op_arg = 1, .op_mask = 0x7fu, .op_values = 0x603ull, .null_arg = BS_GATE_NONE, .indirect_arg = BS_GATE_NONE, .path_arg = BS_GATE_NONE},  /* futex */", out)
        self.assertIn(".op_arg = 1, .op_mask = 0xffffffffu, .op_values = 0x1eull, .null_arg = BS_GATE_NONE, .indirect_arg = BS_GATE_NONE, .path_arg = BS_GATE_NONE},  /* fcntl */", out)
        # ioctl: the terminal queries libc and Python make on every file they
        # open (isatty: TCGETS), each with what ioctl_table.cc records for it.
        self.assertIn(".size = 36u}}, .op_arg = 1, .op_mask = 0xffffffffu, .op_values = 0x5401ull", out)
        self.assertIn("BS_CALL_MAY_BLOCK | BS_CALL_OPENS_FD, .op_arg = 2, .op_mask = 0x200u", out)
        for name in ("read", "write", "poll", "epoll_wait", "sendto", "recvfrom", "futex", "readv", "select",
                     "pselect6", "ppoll", "epoll_pwait", "sendmsg", "recvmsg"):
            line = [l for l in out.splitlines() if l.endswith(f"/* {name} */")][0]
            self.assertIn("BS_CALL_MAY_BLOCK", line, name)

    def test_operation_gate(self):
        proc, texts = generate("202 futex thread custom buffer=op1&0x7f:0|1,block blocks @futex\n", "--preload-table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(".flags = BS_CALL_MAY_BLOCK, .op_arg = 1, .op_mask = 0x7fu, .op_values = 0x3ull, .null_arg = BS_GATE_NONE, .indirect_arg = BS_GATE_NONE, .path_arg = BS_GATE_NONE}",
                      texts["--preload-table"])
        self.expect_error("202 futex thread custom buffer=op1:64 @futex\n", "operation values must be below 64")
        self.expect_error("202 futex thread custom buffer=op6:1 @futex\n", "argument 6 is not 0..5")

    def test_closes_and_gather_tokens(self):
        proc, texts = generate("3 close fs supported buffer=fd0,closes @descriptor_table\n"
                               "20 writev fs custom buffer=fd0,gather1 @gather_write\n", "--preload-table", "--table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = texts["--preload-table"]
        self.assertIn("{.nr = 3, .fd_arg = 0, .data_arg = BS_GATE_NONE, .out_count = 0, .flags = BS_CALL_CLOSES_FD, "
                      ".op_arg = BS_GATE_NONE, .null_arg = BS_GATE_NONE, .indirect_arg = BS_GATE_NONE, .path_arg = BS_GATE_NONE}", out)
        self.assertIn("{.nr = 20, .fd_arg = 0, .data_arg = 1, .out_count = 0, .flags = BS_CALL_GATHER, "
                      ".op_arg = BS_GATE_NONE, .null_arg = BS_GATE_NONE, .indirect_arg = 1, .path_arg = BS_GATE_NONE}", out)
        self.assertIn(".buffer_closes = true, .buffer_block = false, .buffer_opens = false}", texts["--table"])
        self.expect_error("20 writev fs custom buffer=fd0,gather5 @gather_write\n", "needs its count in the next argument")

    def test_scatter_token(self):
        # readv: the iovec array at arg1 (count arg2) receives ret bytes; the
        # library reads the array before the call (indirect_arg).
        proc, texts = generate("19 readv fs custom buffer=fd0,scatter1,block blocks @scatter_read\n"
                               "295 preadv fs custom buffer=fd0,scatter1 @scatter_read\n", "--preload-table", "--table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = texts["--preload-table"]
        self.assertIn("{.nr = 19, .fd_arg = 0, .data_arg = BS_GATE_NONE, .out_count = 1, .flags = BS_CALL_MAY_BLOCK, "
                      ".outs = {{.arg = 1, .kind = BS_SIZE_SCATTER, .size_arg = 2, .size = 0u}}, "
                      ".op_arg = BS_GATE_NONE, .null_arg = BS_GATE_NONE, .indirect_arg = 1, .path_arg = BS_GATE_NONE},  /* readv */", out)
        self.assertIn("{.nr = 295, .fd_arg = 0, .data_arg = BS_GATE_NONE, .out_count = 1, .flags = 0, ", out)
        self.assertIn(".bufferable = true, .buffer_fd_arg = 0, .buffer_closes = false, .buffer_block = true, .buffer_opens = false, "
                      ".blocks = true}",
                      texts["--table"])
        self.expect_error("19 readv fs custom buffer=fd0,scatter5 @scatter_read\n",
                          "needs its count in the next argument")
        self.expect_error("19 readv fs custom buffer=fd1,scatter1 @scatter_read\n",
                          "the scatter argument is the descriptor")
        # Only a handler records a traced readv's iovecs: the generic
        # recorder of a supported call would not.
        self.expect_error("19 readv fs supported buffer=fd0,scatter1\n", "readv is marked 'buffer=fd0,scatter1' but is not custom")
        self.expect_error("19 readv fs custom arg0:8 arg2:8 arg3:8 arg4:8 buffer=fd0,scatter1 @scatter_read\n",
                          "adds 1 outputs to 4; at most 4 fit")

    def test_msg_tokens(self):
        # recvmsg: the msghdr (copied whole), the address at msg_name and the
        # data over msg_iov; sendmsg: write-like over msg_iov.
        proc, texts = generate("46 sendmsg net supported buffer=fd0,gathermsg1,block blocks @send\n"
                               "47 recvmsg net custom buffer=fd0,scattermsg1,block blocks @recvmsg\n", "--preload-table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = texts["--preload-table"]
        self.assertIn("{.nr = 46, .fd_arg = 0, .data_arg = 1, .out_count = 0, "
                      ".flags = BS_CALL_GATHER | BS_CALL_MAY_BLOCK | BS_CALL_MSG, .op_arg = BS_GATE_NONE, "
                      ".null_arg = BS_GATE_NONE, .indirect_arg = 1, .path_arg = BS_GATE_NONE},  /* sendmsg */", out)
        self.assertIn("{.nr = 47, .fd_arg = 0, .data_arg = BS_GATE_NONE, .out_count = 3, "
                      ".flags = BS_CALL_MAY_BLOCK | BS_CALL_MSG, .outs = {"
                      "{.arg = 1, .kind = BS_SIZE_FIXED, .size_arg = 0, .size = BS_MSGHDR_SIZE}, "
                      "{.arg = 1, .kind = BS_SIZE_MSG_NAME, .size_arg = 0, .size = 0u}, "
                      "{.arg = 1, .kind = BS_SIZE_MSG_IOV, .size_arg = 0, .size = 0u}}", out)
        self.expect_error("47 recvmsg net supported buffer=fd0,scattermsg1\n", "is not custom")
        self.expect_error("47 recvmsg net custom arg3:8 arg4:8 buffer=fd0,scattermsg1 @recvmsg\n",
                          "adds 3 outputs to 2; at most 4 fit")
        self.expect_error("47 recvmsg net custom buffer=fd1,scattermsg1 @recvmsg\n",
                          "the scattermsg argument is the descriptor")

    def test_path_gate(self):
        # openat: without O_TRUNC (an operation gate on a bit), and only for a
        # path outside /proc/ (path1).
        proc, texts = generate("257 openat fs supported buffer=op2&0x200:0,path1,block blocks\n", "--preload-table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(".flags = BS_CALL_MAY_BLOCK, .op_arg = 2, .op_mask = 0x200u, .op_values = 0x1ull, "
                      ".null_arg = BS_GATE_NONE, .indirect_arg = BS_GATE_NONE, .path_arg = 1},  /* openat */",
                      texts["--preload-table"])
        self.expect_error("257 openat fs supported buffer=op2&0x200:0,path6\n", "argument 6 is not 0..5")
        self.expect_error("257 openat fs supported buffer,block,path1\n", "is not buffer, buffer=fdN")

    def test_opens_token(self):
        # openat: a success returns a descriptor the library gates itself.
        proc, texts = generate("257 openat fs supported buffer=op2&0x200:0,path1,opens,block blocks\n",
                               "--preload-table", "--table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(".flags = BS_CALL_MAY_BLOCK | BS_CALL_OPENS_FD, .op_arg = 2, .op_mask = 0x200u, "
                      ".op_values = 0x1ull, .null_arg = BS_GATE_NONE, .indirect_arg = BS_GATE_NONE, "
                      ".path_arg = 1},  /* openat */", texts["--preload-table"])
        self.assertIn(".buffer_block = true, .buffer_opens = true, .blocks = true}", texts["--table"])
        self.expect_error("257 openat fs supported buffer=op2&0x200:0,opens,path1\n", "is not buffer, buffer=fdN")

    def test_request_gate(self):
        # ioctl: one row per request, next to each other, each with what it
        # writes (BS_CALL_OP_EXACT compares the whole 32-bit request).
        proc, texts = generate("16 ioctl ioctl custom buffer=req1:0x5401(arg2:36)|0x5413(arg2:8)|21537 @ioctl\n",
                               "--preload-table", "--table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = texts["--preload-table"]
        self.assertIn("{.nr = 16, .fd_arg = BS_GATE_NONE, .data_arg = BS_GATE_NONE, .out_count = 1, "
                      ".flags = BS_CALL_OP_EXACT, .outs = {{.arg = 2, .kind = BS_SIZE_FIXED, .size_arg = 0, "
                      ".size = 36u}}, .op_arg = 1, .op_mask = 0xffffffffu, .op_values = 0x5401ull, "
                      ".null_arg = BS_GATE_NONE, .indirect_arg = BS_GATE_NONE, .path_arg = BS_GATE_NONE},  "
                      "/* ioctl 0x5401 */", out)
        self.assertIn(".size = 8u}}, .op_arg = 1, .op_mask = 0xffffffffu, .op_values = 0x5413ull, ", out)
        self.assertIn("{.nr = 16, .fd_arg = BS_GATE_NONE, .data_arg = BS_GATE_NONE, .out_count = 0, "
                      ".flags = BS_CALL_OP_EXACT, .op_arg = 1, .op_mask = 0xffffffffu, .op_values = 0x5421ull, ", out)
        self.assertIn("#define BS_BUFFERED_CALL_COUNT 3", out)
        self.assertIn('.name = "ioctl", .family = Family::Ioctl, .supported = true, .custom = true, '
                      '.out_count = 0, .outs = {}, .bufferable = true, .buffer_fd_arg = -1', texts["--table"])
        self.expect_error("16 ioctl ioctl custom buffer=req1:0x100000000 @ioctl\n", "does not fit in 32 bits")
        self.expect_error("16 ioctl ioctl custom buffer=req1:0x5401|21505 @ioctl\n", "is listed twice")
        self.expect_error("16 ioctl ioctl custom buffer=req1:0x5401(arg2:ret) @ioctl\n", "not a fixed size")
        self.expect_error("16 ioctl ioctl custom buffer=req1:0x5401(arg1:4) @ioctl\n",
                          "writes through the request argument")
        self.expect_error("16 ioctl ioctl custom arg2:36 buffer=req1:0x5401 @ioctl\n",
                          "gives each request its outputs; the call lists none")
        self.expect_error("16 ioctl ioctl custom buffer=req1:0x5401(arg2:36 @ioctl\n", "unbalanced parentheses")
        self.expect_error("16 ioctl ioctl custom buffer=req6:1 @ioctl\n", "argument 6 is not 0..5")

    def test_null_gate_and_always_outputs(self):
        # ppoll without a signal mask; its time left is written even when it
        # fails (BS_OUT_ALWAYS); select's fd_sets are sized by nfds.
        proc, texts = generate("23 select poll supported arg1:fdset0 arg2:fdset0 arg3:fdset0 arg4:16 buffer,always4,block blocks\n"
                               "271 ppoll poll supported arg0:arg1*8 arg2:16 buffer=null3,always2,block blocks\n",
                               "--preload-table", "--table")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = texts["--preload-table"]
        self.assertIn("{.arg = 1, .kind = BS_SIZE_FDSET, .size_arg = 0, .size = 0u}", out)
        self.assertIn("{.arg = 4, .kind = BS_SIZE_FIXED, .size_arg = 0, .flags = BS_OUT_ALWAYS, .size = 16u}}, "
                      ".op_arg = BS_GATE_NONE, .null_arg = BS_GATE_NONE, .indirect_arg = BS_GATE_NONE, .path_arg = BS_GATE_NONE},  /* select */", out)
        self.assertIn("{.arg = 2, .kind = BS_SIZE_FIXED, .size_arg = 0, .flags = BS_OUT_ALWAYS, .size = 16u}}, "
                      ".op_arg = BS_GATE_NONE, .null_arg = 3, .indirect_arg = BS_GATE_NONE, .path_arg = BS_GATE_NONE},  /* ppoll */", out)
        self.assertIn("{.arg = 1, .size_kind = SizeKind::FdSet, .size_arg = 0, .size = 0}", texts["--table"])
        self.expect_error("271 ppoll poll supported arg0:arg1*8 arg2:16 buffer=null6,block blocks\n", "argument 6 is not 0..5")
        self.expect_error("271 ppoll poll supported arg0:arg1*8 arg2:16 buffer=null3,always1,block blocks\n",
                          "always1 names no output arg1 of a fixed size")
        self.expect_error("271 ppoll poll supported arg0:arg1*8 arg2:16 buffer=null3,block,always2\n",
                          "is not buffer, buffer=fdN")
        self.expect_error("23 select poll supported arg1:fdset7 buffer\n", "size argument 7 is not 0..5")


if __name__ == "__main__":
    unittest.main()
