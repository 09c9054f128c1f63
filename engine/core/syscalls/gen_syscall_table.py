#!/usr/bin/env python3
"""Generates backstep's x86-64 syscall table from syscalls.spec.

Usage: gen_syscall_table.py SPEC --table OUT.cc --test-cases OUT.h
       gen_syscall_table.py SPEC --recorders OUT.cc
       gen_syscall_table.py SPEC --preload-table OUT.h

--recorders writes the recorder's dispatch table: every handler the spec names
(@NAME) is declared there and referenced, so a custom call whose handler was
never written fails the build at link time.

--preload-table writes the C table of bufferable calls (BS_BUFFERED_CALLS,
struct bs_buffered_call of preload/preload_interface.h) that the preload
library compiles in.

The spec format is described at the top of syscalls.spec. A malformed spec is
reported as FILE:LINE: message, and the script exits with status 1 without
writing anything.
"""

import argparse
import os
import re
import sys
from dataclasses import dataclass, field

FAMILIES = {
    "fs": "Fs",
    "mm": "Mm",
    "time": "Time",
    "identity": "Identity",
    "net": "Net",
    "poll": "Poll",
    "signal": "Signal",
    "process": "Process",
    "thread": "Thread",
    "ioctl": "Ioctl",
    "misc": "Misc",
}
STATUSES = ("supported", "custom", "unsupported")

ARG_COUNT = 6            # x86-64 passes at most six arguments
MAX_OUTPUTS = 4          # SyscallInfo::outs has four slots
MAX_NR = 511             # 512 and up are x32 numbers, not x86-64 calls
MAX_UINT32 = 2**32 - 1

NAME_RE = re.compile(r"[a-z_][a-z0-9_]*\Z")
HANDLER_RE = re.compile(r"@(?P<name>[a-z_][a-z0-9_]*)\Z")
NUMBER_RE = re.compile(r"[0-9]+\Z")
OUTPUT_RE = re.compile(r"arg(?P<arg>[0-9]+):(?P<size>\S+)\Z")
SIZE_FORMS = (
    # (regex, SizeKind); group names: m (argument), k (multiplier or bytes)
    (re.compile(r"(?P<k>[0-9]+)\Z"), "Fixed"),
    (re.compile(r"ret\Z"), "Ret"),
    (re.compile(r"ret\*(?P<k>[0-9]+)\Z"), "RetTimes"),
    (re.compile(r"arg(?P<m>[0-9]+)\Z"), "Arg"),
    (re.compile(r"arg(?P<m>[0-9]+)\*(?P<k>[0-9]+)\Z"), "ArgTimes"),
    (re.compile(r"\*arg(?P<m>[0-9]+)\Z"), "DerefArg"),
    (re.compile(r"fdset(?P<m>[0-9]+)\Z"), "FdSet"),
)
# buffer, buffer=fdN, buffer=fdN,dataM, buffer=fdN,gatherM, buffer=fdN,scatterM,
# buffer=fdN,gathermsgM, buffer=fdN,scattermsgM, buffer=fdN,closes,
# buffer=opN&MASK:V|V..., buffer=reqN:R|R(argM:BYTES)..., buffer=nullN, buffer=nullatN, each
# optionally followed by ,pathN, ,opens, ,alwaysN and then ,block (see syscalls.spec's header).
REQUEST = r"(?:0x[0-9a-f]+|[0-9]+)(?:\([^()|]*\))?"
BUFFER_RE = re.compile(r"buffer(=fd(?P<fd>[0-9]+)(,data(?P<data>[0-9]+)|,gather(?P<gather>[0-9]+)"
                       r"|,scatter(?P<scatter>[0-9]+)|,gathermsg(?P<gathermsg>[0-9]+)"
                       r"|,scattermsg(?P<scattermsg>[0-9]+)|(?P<closes>,closes))?"
                       r"|=op(?P<op>[0-9]+)(&(?P<mask>0x[0-9a-f]+))?:(?P<values>[0-9]+(\|[0-9]+)*)"
                       r"|=req(?P<req>[0-9]+):(?P<requests>" + REQUEST + r"(\|" + REQUEST + r")*)"
                       r"|=null(?P<nullat>at)?(?P<null>[0-9]+))?"
                       r"(,path(?P<path>[0-9]+))?(?P<opens>,opens)?(,always(?P<always>[0-9]+))?(?P<block>,block)?\Z")
REQUEST_RE = re.compile(r"(?P<value>0x[0-9a-f]+|[0-9]+)(\((?P<output>[^)]*)\))?\Z")
BUFFER_FORMS = ("buffer, buffer=fdN, buffer=fdN,dataM, buffer=fdN,gatherM, buffer=fdN,scatterM, "
                "buffer=fdN,gathermsgM, buffer=fdN,scattermsgM, buffer=fdN,closes, "
                "buffer=opN&MASK:V|V..., buffer=reqN:R|R(argM:BYTES)..., buffer=nullN or buffer=nullatN "
                "(each optionally followed by ,pathN, ,opens, ,alwaysN, then ,block)")
# An operation gate (buffer=opN&MASK:V|V...) lists values below this.
OP_VALUE_LIMIT = 64
# The output kinds the preload library can bound before the call.
# DerefArg outputs are bounded only when their pointer is null (recv's
# source address): the library takes the traced path otherwise.
BUFFERABLE_KINDS = ("Fixed", "Ret", "RetTimes", "Arg", "ArgTimes", "DerefArg", "FdSet")
PRELOAD_KINDS = {"Fixed": "BS_SIZE_FIXED", "Ret": "BS_SIZE_RET", "RetTimes": "BS_SIZE_RET_TIMES",
                 "Arg": "BS_SIZE_ARG", "ArgTimes": "BS_SIZE_ARG_TIMES", "DerefArg": "BS_SIZE_DEREF_ARG",
                 "FdSet": "BS_SIZE_FDSET"}


class SpecError(Exception):
    def __init__(self, path, line_no, message):
        super().__init__(f"{path}:{line_no}: {message}")


@dataclass
class Output:
    arg: int
    size_kind: str
    size_arg: int = 0
    size: int = 0


@dataclass
class Entry:
    nr: int
    name: str
    family: str
    status: str
    line_no: int
    outputs: list = field(default_factory=list)
    handler: str = ""
    bufferable: bool = False
    buffer_fd_arg: int = -1    # the descriptor argument gating buffering, -1: ungated
    buffer_data_arg: int = -1  # write-like: the argument holding the data, -1: none
    buffer_closes: bool = False  # closes its descriptor when it succeeds
    buffer_gather: bool = False  # write-like over an iovec array (buffer_data_arg)
    buffer_block: bool = False   # may block: made with the desched event armed
    buffer_op_arg: int = -1      # operation gate: the argument, -1: none
    buffer_op_mask: int = 0      # ... masked with this
    buffer_op_values: int = 0    # ... must be one of these (a bit per value)
    buffer_null_arg: int = -1    # null gate: this argument must be 0, -1: none
    buffer_null_at: bool = False  # ... or point at a 0 word (pselect6's mask)
    buffer_scatter_arg: int = -1  # reads into the iovec array at this argument, -1: none
    buffer_msg_arg: int = -1     # the msghdr argument of sendmsg/recvmsg, -1: none
    buffer_always_arg: int = -1  # the Fixed output written even when the call fails, -1: none
    buffer_path_arg: int = -1    # a path that must not be under /proc/, -1: none
    buffer_opens: bool = False   # a success returns a new descriptor, which the library gates
    # Request gate (buffer=reqN:...): (value, Output or None) for each request
    # buffered, with what it writes; buffer_op_arg is then argument N.
    buffer_requests: list = field(default_factory=list)


def parse_output(text, fail):
    match = OUTPUT_RE.match(text)
    if not match:
        fail(f"output '{text}' is not argN:SIZE")
    arg = int(match.group("arg"))
    if arg >= ARG_COUNT:
        fail(f"output '{text}': argument {arg} is not 0..{ARG_COUNT - 1}")
    size_text = match.group("size")
    for regex, kind in SIZE_FORMS:
        size_match = regex.match(size_text)
        if not size_match:
            continue
        groups = size_match.groupdict()
        out = Output(arg=arg, size_kind=kind)
        if groups.get("m") is not None:
            out.size_arg = int(groups["m"])
            if out.size_arg >= ARG_COUNT:
                fail(f"output '{text}': size argument {out.size_arg} is not 0..{ARG_COUNT - 1}")
            if out.size_arg == arg:
                fail(f"output '{text}': an argument cannot give its own size")
        if groups.get("k") is not None:
            out.size = int(groups["k"])
            if out.size == 0 or out.size > MAX_UINT32:
                fail(f"output '{text}': size must be 1..{MAX_UINT32}")
        return out
    fail(f"output '{text}': size '{size_text}' is not one of "
         "BYTES, ret, ret*K, argM, argM*K, *argM, fdsetM")


def parse_line(path, line_no, line):
    def fail(message):
        raise SpecError(path, line_no, message)

    fields = line.split("#", 1)[0].split()
    if not fields:
        return None
    if len(fields) < 4:
        fail(f"expected 'NR NAME FAMILY STATUS [OUTPUTS...] [@HANDLER]', got '{line.strip()}'")
    nr_text, name, family, status, *output_texts = fields
    handler = ""
    if output_texts and output_texts[-1].startswith("@"):
        handler_match = HANDLER_RE.match(output_texts.pop())
        if not handler_match:
            fail(f"handler '{fields[-1]}' is not @ and a C identifier in lower case")
        handler = handler_match.group("name")
    buffer_text = ""
    if output_texts and output_texts[-1].startswith("buffer"):
        buffer_text = output_texts.pop()
    if any(text.startswith("@") for text in output_texts):
        fail(f"{name}: the handler (@NAME) comes last, after the outputs")
    if any(text.startswith("buffer") for text in output_texts):
        fail(f"{name}: 'buffer' comes after the outputs, before the handler")
    if not NUMBER_RE.match(nr_text):
        fail(f"syscall number '{nr_text}' is not a decimal number")
    nr = int(nr_text)
    if nr > MAX_NR:
        fail(f"syscall number {nr} is above {MAX_NR}")
    if not NAME_RE.match(name):
        fail(f"syscall name '{name}' is not a C identifier in lower case")
    if family not in FAMILIES:
        fail(f"family '{family}' is not one of {' '.join(FAMILIES)}")
    if status not in STATUSES:
        fail(f"status '{status}' is not one of {' '.join(STATUSES)}")
    if status == "unsupported" and output_texts:
        fail(f"{name} is unsupported but lists outputs")
    if status == "unsupported" and handler:
        fail(f"{name} is unsupported but names a handler")
    if status == "custom" and not handler:
        fail(f"{name} is custom but names no handler (@NAME): nothing would record it")
    if len(output_texts) > MAX_OUTPUTS:
        fail(f"{name} lists {len(output_texts)} outputs; at most {MAX_OUTPUTS} fit")
    outputs = [parse_output(text, fail) for text in output_texts]
    seen_args = set()
    for out in outputs:
        if out.arg in seen_args:
            fail(f"{name} lists arg{out.arg} twice")
        seen_args.add(out.arg)
    entry = Entry(nr, name, family, status, line_no, outputs, handler)
    if buffer_text:
        parse_buffer(entry, buffer_text, fail)
    return entry


def parse_buffer(entry, text, fail):
    """Checks that the preload library can buffer the call as its spec line
    says: it reserves each output's upper bound before the call and runs no
    handler, so only outputs bounded by arguments, and a handler only behind
    a descriptor gate (the recorder keeps the descriptors it must see out of
    the gate)."""
    match = BUFFER_RE.match(text)
    name = entry.name
    if not match:
        fail(f"{name}: '{text}' is not {BUFFER_FORMS}")

    def argument(group):
        value = int(match.group(group))
        if value >= ARG_COUNT:
            fail(f"{name}: '{text}': argument {value} is not 0..{ARG_COUNT - 1}")
        return value

    entry.buffer_closes = match.group("closes") is not None
    entry.buffer_block = match.group("block") is not None
    if match.group("op") is not None:
        entry.buffer_op_arg = argument("op")
        entry.buffer_op_mask = int(match.group("mask"), 16) if match.group("mask") else 0xffffffff
        for value in match.group("values").split("|"):
            if int(value) >= OP_VALUE_LIMIT:
                fail(f"{name}: '{text}': operation values must be below {OP_VALUE_LIMIT}")
            entry.buffer_op_values |= 1 << int(value)
    if match.group("req") is not None:
        parse_requests(entry, text, argument("req"), match.group("requests"), fail)
    entry.buffer_opens = match.group("opens") is not None
    if match.group("null") is not None:
        entry.buffer_null_arg = argument("null")
        entry.buffer_null_at = match.group("nullat") is not None
    if match.group("gather") is not None:
        entry.buffer_gather = True
        entry.buffer_data_arg = argument("gather")
        if entry.buffer_data_arg + 1 >= ARG_COUNT:
            fail(f"{name}: '{text}': the iovec array needs its count in the next argument")
    if match.group("scatter") is not None:
        entry.buffer_scatter_arg = argument("scatter")
        if entry.buffer_scatter_arg + 1 >= ARG_COUNT:
            fail(f"{name}: '{text}': the iovec array needs its count in the next argument")
    if match.group("gathermsg") is not None:
        entry.buffer_gather = True
        entry.buffer_data_arg = entry.buffer_msg_arg = argument("gathermsg")
    if match.group("scattermsg") is not None:
        entry.buffer_msg_arg = argument("scattermsg")
    if match.group("fd") is not None:
        entry.buffer_fd_arg = argument("fd")
    for group in ("scatter", "gathermsg", "scattermsg"):
        if match.group(group) is not None and int(match.group(group)) == entry.buffer_fd_arg:
            fail(f"{name}: '{text}': the {group} argument is the descriptor")
    if entry.buffer_scatter_arg >= 0 or (entry.buffer_msg_arg >= 0 and not entry.buffer_gather):
        # The library adds the scattered outputs after the spec's own.
        added = 1 if entry.buffer_scatter_arg >= 0 else 3
        if len(entry.outputs) + added > MAX_OUTPUTS:
            fail(f"{name}: '{text}' adds {added} outputs to {len(entry.outputs)}; at most {MAX_OUTPUTS} fit")
    if match.group("path") is not None:
        entry.buffer_path_arg = argument("path")
    if match.group("always") is not None:
        entry.buffer_always_arg = argument("always")
        if not any(out.arg == entry.buffer_always_arg and out.size_kind == "Fixed" for out in entry.outputs):
            fail(f"{name}: '{text}': always{entry.buffer_always_arg} names no output "
                 f"arg{entry.buffer_always_arg} of a fixed size")
    if match.group("data") is not None:
        entry.buffer_data_arg = int(match.group("data"))
        # The data's bound is the next argument, as for ret outputs.
        if entry.buffer_data_arg + 1 >= ARG_COUNT:
            fail(f"{name}: '{text}': the data argument needs its length in the next argument")
        if entry.buffer_data_arg == entry.buffer_fd_arg:
            fail(f"{name}: '{text}': the data argument is the descriptor")
    if entry.status == "unsupported":
        fail(f"{name} is unsupported but marked '{text}'")
    if entry.handler and entry.buffer_fd_arg < 0 and entry.buffer_op_arg < 0:
        fail(f"{name} names a handler (@{entry.handler}), which does not run for a buffered "
             f"call: it can be buffered only behind a descriptor gate (buffer=fdN), an "
             f"operation gate (buffer=opN:...) or a request gate (buffer=reqN:...) that keeps "
             f"out what the handler handles")
    if entry.buffer_scatter_arg >= 0 or (entry.buffer_msg_arg >= 0 and not entry.buffer_gather):
        if entry.status != "custom":
            fail(f"{name} is marked '{text}' but is not custom: only a handler records what it "
                 f"scatters when traced")
    for out in entry.outputs:
        if out.size_kind not in BUFFERABLE_KINDS:
            fail(f"{name} is marked '{text}' but its output arg{out.arg} has a {out.size_kind} "
                 f"size, which the preload library cannot bound before the call "
                 f"(bufferable: {', '.join(BUFFERABLE_KINDS)})")
        if out.size_kind in ("Ret", "RetTimes") and out.arg + 1 >= ARG_COUNT:
            fail(f"{name} is marked '{text}' but its output arg{out.arg} sized by ret has no "
                 f"argument arg{out.arg + 1} to bound it")
    entry.bufferable = True


def parse_requests(entry, text, arg, requests, fail):
    """buffer=reqN:R|R(argM:BYTES)...: the call is buffered only when its
    argument N, a 32-bit request (ioctl's), is one of these, and each writes
    what it names: a fixed size at one argument (or nothing). The call's
    outputs depend on the request, so the line lists none of its own."""
    name = entry.name
    if entry.outputs:
        fail(f"{name}: '{text}': a request gate gives each request its outputs; the call lists none")
    entry.buffer_op_arg = arg
    entry.buffer_op_mask = MAX_UINT32
    seen = set()
    for request in requests.split("|"):
        match = REQUEST_RE.match(request)
        value = int(match.group("value"), 0)
        if value > MAX_UINT32:
            fail(f"{name}: '{text}': request {match.group('value')} does not fit in 32 bits")
        if value in seen:
            fail(f"{name}: '{text}': request {match.group('value')} is listed twice")
        seen.add(value)
        out = None
        if match.group("output") is not None:
            out = parse_output(match.group("output"), fail)
            if out.size_kind != "Fixed":
                fail(f"{name}: '{text}': request {match.group('value')} writes '{match.group('output')}', "
                     f"not a fixed size (argM:BYTES)")
            if out.arg == arg:
                fail(f"{name}: '{text}': request {match.group('value')} writes through the request argument")
        entry.buffer_requests.append((value, out))


def parse_spec(path):
    entries = []
    by_name = {}
    with open(path, encoding="utf-8") as spec:
        for line_no, line in enumerate(spec, start=1):
            entry = parse_line(path, line_no, line)
            if entry is None:
                continue
            if entries and entry.nr <= entries[-1].nr:
                raise SpecError(path, line_no,
                                f"number {entry.nr} ({entry.name}) does not follow "
                                f"{entries[-1].nr} ({entries[-1].name}); numbers must increase")
            if entry.name in by_name:
                raise SpecError(path, line_no,
                                f"{entry.name} is already listed on line "
                                f"{by_name[entry.name].line_no}")
            by_name[entry.name] = entry
            entries.append(entry)
    if not entries:
        raise SpecError(path, 1, "the spec lists no syscalls")
    return entries


def cxx_output(out):
    return (f"{{.arg = {out.arg}, .size_kind = SizeKind::{out.size_kind}, "
            f".size_arg = {out.size_arg}, .size = {out.size}}}")


def cxx_entry(entry):
    supported = "false" if entry.status == "unsupported" else "true"
    custom = "true" if entry.status == "custom" else "false"
    outs = ", ".join(cxx_output(out) for out in entry.outputs)
    return (f"    {{.nr = {entry.nr}, .name = \"{entry.name}\", "
            f".family = Family::{FAMILIES[entry.family]}, "
            f".supported = {supported}, .custom = {custom}, "
            f".out_count = {len(entry.outputs)}, .outs = {{{outs}}}, "
            f".bufferable = {'true' if entry.bufferable else 'false'}, "
            f".buffer_fd_arg = {entry.buffer_fd_arg}, "
            f".buffer_closes = {'true' if entry.buffer_closes else 'false'}, "
            f".buffer_block = {'true' if entry.buffer_block else 'false'}, "
            f".buffer_opens = {'true' if entry.buffer_opens else 'false'}}},")


def generate_table(entries, spec_name):
    max_nr = entries[-1].nr
    index = [-1] * (max_nr + 1)
    for position, entry in enumerate(entries):
        index[entry.nr] = position
    lines = [
        f"// Generated by gen_syscall_table.py from {spec_name}. Do not edit.",
        "",
        '#include "engine/core/syscalls/syscall_table.h"',
        "",
        "#include <sys/syscall.h>",
        "",
        "#include <array>",
        "#include <cstdint>",
        "",
        "// Every number in the spec must match the system headers wherever they",
        "// know the call (newer calls may be missing from older headers).",
    ]
    for entry in entries:
        lines += [
            f"#ifdef SYS_{entry.name}",
            f'static_assert(SYS_{entry.name} == {entry.nr}, '
            f'"{spec_name}: {entry.name} is not number {entry.nr} in <sys/syscall.h>");',
            "#endif",
        ]
    lines += [
        "",
        "namespace backstep::sys {",
        "namespace {",
        "",
        "constexpr SyscallInfo kSyscalls[] = {",
    ]
    lines += [cxx_entry(entry) for entry in entries]
    lines += [
        "};",
        "",
        f"constexpr long kMaxNr = {max_nr};",
        "",
        "// Position in kSyscalls of each number, -1 where the spec lists none.",
        "constexpr std::array<int16_t, kMaxNr + 1> kIndexByNr = {",
    ]
    per_row = 16
    for start in range(0, len(index), per_row):
        row = ", ".join(str(i) for i in index[start:start + per_row])
        lines.append(f"    {row},")
    lines += [
        "};",
        "",
        "}  // namespace",
        "",
        "const SyscallInfo* lookup(long nr) {",
        "  if (nr < 0 || nr > kMaxNr) return nullptr;",
        "  const int16_t position = kIndexByNr[static_cast<size_t>(nr)];",
        "  return position < 0 ? nullptr : &kSyscalls[position];",
        "}",
        "",
        "std::span<const SyscallInfo> all_syscalls() { return kSyscalls; }",
        "",
        "}  // namespace backstep::sys",
        "",
    ]
    return "\n".join(lines)


def generate_test_cases(entries, spec_name):
    lines = [
        f"// Generated by gen_syscall_table.py from {spec_name}. Do not edit.",
        "// Every entry of the spec with its SYS_ number from <sys/syscall.h>,",
        "// or -1 where the headers do not know the call.",
        "#pragma once",
        "",
        "#include <sys/syscall.h>",
        "",
        "namespace backstep::sys::testing {",
        "",
        "struct SpecEntry {",
        "  int nr;",
        "  const char* name;",
        "  long sys_value;",
        "};",
        "",
        "inline constexpr SpecEntry kSpecEntries[] = {",
    ]
    for entry in entries:
        lines += [
            f"#ifdef SYS_{entry.name}",
            f'    {{{entry.nr}, "{entry.name}", SYS_{entry.name}}},',
            "#else",
            f'    {{{entry.nr}, "{entry.name}", -1}},',
            "#endif",
        ]
    lines += [
        "};",
        "",
        "}  // namespace backstep::sys::testing",
        "",
    ]
    return "\n".join(lines)


def generate_recorders(entries, spec_name):
    handlers = sorted({entry.handler for entry in entries if entry.handler})
    lines = [
        f"// Generated by gen_syscall_table.py from {spec_name}. Do not edit.",
        "// Each handler the spec names is declared and referenced here; the",
        "// family files in engine/record/ define them. A missing one is a link error.",
        "",
        '#include "engine/record/syscall_context.h"',
        "",
        "namespace backstep {",
        "namespace recorders {",
        "",
    ]
    lines += [f"extern const SyscallRecorder {handler};" for handler in handlers]
    lines += [
        "",
        "}  // namespace recorders",
        "",
        "const SyscallRecorder* syscall_recorder(long nr) {",
        "  switch (nr) {",
    ]
    for entry in entries:
        if entry.handler:
            lines.append(f"    case {entry.nr}: return &recorders::{entry.handler};  // {entry.name}")
    lines += [
        "    default: return nullptr;",
        "  }",
        "}",
        "",
        "}  // namespace backstep",
        "",
    ]
    return "\n".join(lines)


def preload_output(out, always_arg=-1):
    # Ret and RetTimes outputs are bounded before the call by the argument
    # after the pointer (read's count, getcwd's size): the table gives it as
    # size_arg so that the library reads one rule per kind.
    size_arg = out.arg + 1 if out.size_kind in ("Ret", "RetTimes") else out.size_arg
    flags = ", .flags = BS_OUT_ALWAYS" if out.arg == always_arg else ""
    return (f"{{.arg = {out.arg}, .kind = {PRELOAD_KINDS[out.size_kind]}, "
            f".size_arg = {size_arg}{flags}, .size = {out.size}u}}")


def preload_outputs(entry):
    """The spec's outputs, then what a scattering call writes through memory
    the arguments describe: readv's iovec array; recvmsg's msghdr (the kernel
    rewrites msg_namelen, msg_controllen and msg_flags; copied whole, as the
    traced path records it), the address at msg_name, the iovec data."""
    outs = [preload_output(out, entry.buffer_always_arg) for out in entry.outputs]
    if entry.buffer_scatter_arg >= 0:
        arg = entry.buffer_scatter_arg
        outs.append(f"{{.arg = {arg}, .kind = BS_SIZE_SCATTER, .size_arg = {arg + 1}, .size = 0u}}")
    if entry.buffer_msg_arg >= 0 and not entry.buffer_gather:
        arg = entry.buffer_msg_arg
        outs.append(f"{{.arg = {arg}, .kind = BS_SIZE_FIXED, .size_arg = 0, .size = BS_MSGHDR_SIZE}}")
        outs.append(f"{{.arg = {arg}, .kind = BS_SIZE_MSG_NAME, .size_arg = 0, .size = 0u}}")
        outs.append(f"{{.arg = {arg}, .kind = BS_SIZE_MSG_IOV, .size_arg = 0, .size = 0u}}")
    return outs


def generate_preload_table(entries, spec_name):
    buffered = [entry for entry in entries if entry.bufferable]
    lines = [
        f"/* Generated by gen_syscall_table.py from {spec_name}. Do not edit.",
        " * The system calls the preload library buffers (`buffer` in the spec).",
        " * For BS_SIZE_RET and BS_SIZE_RET_TIMES outputs, size_arg is the argument",
        " * that bounds the result (the one after the pointer). */",
        "#ifndef BACKSTEP_SYSCALL_BUFFER_TABLE_GENERATED_H",
        "#define BACKSTEP_SYSCALL_BUFFER_TABLE_GENERATED_H",
        "",
        '#include "preload/preload_interface.h"',
        "",
        "static const struct bs_buffered_call BS_BUFFERED_CALLS[] = {",
    ]
    rows = 0
    for entry in buffered:
        fd_arg = "BS_GATE_NONE" if entry.buffer_fd_arg < 0 else str(entry.buffer_fd_arg)
        data_arg = "BS_GATE_NONE" if entry.buffer_data_arg < 0 else str(entry.buffer_data_arg)
        flag_names = [name for name, on in (("BS_CALL_CLOSES_FD", entry.buffer_closes),
                                            ("BS_CALL_GATHER", entry.buffer_gather),
                                            ("BS_CALL_MAY_BLOCK", entry.buffer_block),
                                            ("BS_CALL_MSG", entry.buffer_msg_arg >= 0),
                                            ("BS_CALL_NULL_AT", entry.buffer_null_at),
                                            ("BS_CALL_OPENS_FD", entry.buffer_opens),
                                            ("BS_CALL_OP_EXACT", bool(entry.buffer_requests))) if on]
        flags = " | ".join(flag_names) if flag_names else "0"
        null_arg = "BS_GATE_NONE" if entry.buffer_null_arg < 0 else str(entry.buffer_null_arg)
        indirect = next((arg for arg in (entry.buffer_msg_arg, entry.buffer_scatter_arg,
                                         entry.buffer_data_arg if entry.buffer_gather else -1) if arg >= 0), -1)
        indirect_arg = "BS_GATE_NONE" if indirect < 0 else str(indirect)
        path = f", .path_arg = {entry.buffer_path_arg}" if entry.buffer_path_arg >= 0 else ", .path_arg = BS_GATE_NONE"
        # A request gate makes one row per request, next to each other, each
        # with what that request writes (BS_CALL_OP_EXACT).
        if entry.buffer_requests:
            variants = [([preload_output(out)] if out else [], value, f"{entry.name} {value:#x}")
                        for value, out in entry.buffer_requests]
        else:
            variants = [(preload_outputs(entry), entry.buffer_op_values, entry.name)]
        for out_list, op_values, comment in variants:
            outs = ", ".join(out_list)
            outs_field = f", .outs = {{{outs}}}" if outs else ""  # C11 has no empty initializer
            if entry.buffer_op_arg >= 0:
                op_field = (f", .op_arg = {entry.buffer_op_arg}, .op_mask = {entry.buffer_op_mask:#x}u, "
                            f".op_values = {op_values:#x}ull")
            else:
                op_field = ", .op_arg = BS_GATE_NONE"
            lines.append(f"    {{.nr = {entry.nr}, .fd_arg = {fd_arg}, .data_arg = {data_arg}, "
                         f".out_count = {len(out_list)}, .flags = {flags}{outs_field}{op_field}, "
                         f".null_arg = {null_arg}, .indirect_arg = {indirect_arg}{path}}},  /* {comment} */")
            rows += 1
    lines += [
        "};",
        "",
        f"#define BS_BUFFERED_CALL_COUNT {rows}",
        "",
        "#endif",
        "",
    ]
    return "\n".join(lines)


def write_file(path, text):
    """Writes through a temporary file so that an interrupted build leaves no half file."""
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, path)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", help="path to syscalls.spec")
    parser.add_argument("--table", help="generated syscall table (.cc) to write")
    parser.add_argument("--test-cases", help="generated test header to write")
    parser.add_argument("--recorders", help="generated recorder dispatch table (.cc) to write")
    parser.add_argument("--preload-table", help="generated C table of bufferable calls (.h) to write")
    args = parser.parse_args(argv)
    if not (args.table or args.test_cases or args.recorders or args.preload_table):
        parser.error("nothing to write: give --table, --test-cases, --recorders or --preload-table")
    try:
        entries = parse_spec(args.spec)
    except SpecError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"error: cannot read {args.spec}: {error.strerror}", file=sys.stderr)
        return 1
    spec_name = os.path.basename(args.spec)
    if args.table:
        write_file(args.table, generate_table(entries, spec_name))
    if args.test_cases:
        write_file(args.test_cases, generate_test_cases(entries, spec_name))
    if args.recorders:
        write_file(args.recorders, generate_recorders(entries, spec_name))
    if args.preload_table:
        write_file(args.preload_table, generate_preload_table(entries, spec_name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
