"""The parser of syscalls.spec: its lines as Entry values, each checked as
the spec's header comment describes. A malformed line raises SpecError
(FILE:LINE: message). gen_syscall_table.py and preload_table.py write the
generated code from what it returns. spec_buffer.py parses the `buffer`
attribute; spec_tokens.py has the pieces the attributes share."""

import re
from dataclasses import dataclass, field

from spec_buffer import parse_buffer
from spec_tokens import argument_reader, MAX_OUTPUTS, OP_GATE, parse_op_gate, parse_output, split_fields

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
MAX_NR = 511             # 512 and up are x32 numbers, not x86-64 calls

NAME_RE = re.compile(r"[a-z_][a-z0-9_]*\Z")
HANDLER_RE = re.compile(r"@(?P<name>[a-z_][a-z0-9_]*)\Z")
NUMBER_RE = re.compile(r"[0-9]+\Z")
# include <HEADER>: where the types of sizeof(TYPE) sizes come from.
INCLUDE_RE = re.compile(r"<[a-z0-9_]+(/[a-z0-9_]+)*\.h>\Z")
# blocks, or blocks=opN&MASK:V|V...: the call may wait (always, or for these
# operations).
BLOCKS_RE = re.compile(r"blocks(=" + OP_GATE + r")?\Z")
# What may follow the status, in this order; each attribute at most once.
# Where each belongs, for the error when one is out of place.
ATTRIBUTE_PLACES = {
    "output": "",
    "buffer": "'buffer' comes after the outputs, before 'blocks', 'replay' and the handler",
    "blocks": "'blocks' comes after the outputs and 'buffer', before 'replay' and the handler",
    "replay": "'replay' comes after the outputs, 'buffer' and 'blocks', before the handler",
    "handler": "the handler (@NAME) comes last, after the outputs",
}
# replay=ACTION: what replay does with a call that shapes the address space
# (sys::ReplayAction in syscall_table.h, one case each in
# engine/replay/address_space.cc).
REPLAY_ACTIONS = {
    "mmap": "Mmap",
    "munmap": "Munmap",
    "map_object": "MapObject",
    "unmap_object": "UnmapObject",
    "stack_room": "StackRoom",
    "brk": "Brk",
    "mprotect": "Mprotect",
    "pkey_mprotect": "PkeyMprotect",
    "pkey_alloc": "PkeyAlloc",
    "pkey_free": "PkeyFree",
    "remap_file_pages": "RemapFilePages",
    "madvise": "Madvise",
    "mremap": "Mremap",
    "modify_ldt": "ModifyLdt",
    "arch_prctl": "ArchPrctl",
}
REPLAY_RE = re.compile(r"replay=(?P<action>[a-z_]+)\Z")


class SpecError(Exception):
    def __init__(self, path, line_no, message):
        super().__init__(f"{path}:{line_no}: {message}")


@dataclass
class Spec:
    entries: list       # Entry, by increasing number
    headers: list       # the headers of the `include` lines, as <name.h>


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
    # `blocks`: the call may wait for another thread or the outside world;
    # with an operation gate, only when blocks_op_arg masked with
    # blocks_op_mask is one of blocks_op_values (a bit per value).
    blocks: bool = False
    blocks_op_arg: int = -1
    blocks_op_mask: int = 0
    blocks_op_values: int = 0
    replay: str = ""  # `replay=ACTION`: what replay does with it, "" for nothing


def parse_line(path, line_no, line):
    def fail(message):
        raise SpecError(path, line_no, message)

    code = line.split("#", 1)[0]
    fields = split_fields(code)
    if not fields:
        return None
    if code.count("(") != code.count(")"):
        fail(f"unbalanced parentheses in '{code.strip()}'")
    if fields[0] == "include":
        if len(fields) != 2 or not INCLUDE_RE.match(fields[1]):
            fail(f"expected 'include <HEADER.h>', got '{line.strip()}'")
        return fields[1]
    if len(fields) < 4:
        fail(f"expected 'NR NAME FAMILY STATUS [OUTPUTS...] [BUFFER] [BLOCKS] [REPLAY] [@HANDLER]', "
             f"got '{line.strip()}'")
    nr_text, name, family, status, *attribute_texts = fields
    attributes = split_attributes(name, attribute_texts, fail)
    output_texts = attributes["output"]
    handler = ""
    if attributes["handler"]:
        handler_match = HANDLER_RE.match(attributes["handler"][0])
        if not handler_match:
            fail(f"handler '{attributes['handler'][0]}' is not @ and a C identifier in lower case")
        handler = handler_match.group("name")
    buffer_text = attributes["buffer"][0] if attributes["buffer"] else ""
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
    if attributes["blocks"]:
        parse_blocks(entry, attributes["blocks"][0], fail)
    if attributes["replay"]:
        parse_replay(entry, attributes["replay"][0], fail)
    if entry.buffer_block and not entry.blocks:
        fail(f"{name} is marked '{buffer_text}' but not 'blocks': a buffered call that blocks is made "
             f"again on the traced path, where the recorder must let the other threads run")
    return entry


def split_attributes(name, texts, fail):
    """Sorts what follows the status by kind (ATTRIBUTE_PLACES), checking
    their order and that each attribute but the outputs comes once."""
    kinds = list(ATTRIBUTE_PLACES)
    found = {kind: [] for kind in kinds}
    last = 0
    for text in texts:
        if text.startswith("@"):
            kind = "handler"
        elif text.startswith("buffer"):
            kind = "buffer"
        elif text.startswith("blocks"):
            kind = "blocks"
        elif text.startswith("replay"):
            kind = "replay"
        else:
            kind = "output"
        if kinds.index(kind) < last:
            fail(f"{name}: {ATTRIBUTE_PLACES[kinds[last]]}")
        if kind != "output" and found[kind]:
            fail(f"{name}: '{found[kind][0]}' and '{text}': {kind} is given once")
        last = kinds.index(kind)
        found[kind].append(text)
    return found


def parse_replay(entry, text, fail):
    """replay=ACTION: one of REPLAY_ACTIONS."""
    match = REPLAY_RE.match(text)
    if not match or match.group("action") not in REPLAY_ACTIONS:
        fail(f"{entry.name}: '{text}' is not replay=ACTION, ACTION one of {' '.join(REPLAY_ACTIONS)}")
    if entry.status == "unsupported":
        fail(f"{entry.name} is unsupported but marked '{text}'")
    entry.replay = match.group("action")


def parse_blocks(entry, text, fail):
    """blocks, or blocks=opN&MASK:V|V...: the call may wait (for another
    thread, a child, a signal, the outside world), always or only for these
    operations. The recorder lets the other threads run meanwhile."""
    match = BLOCKS_RE.match(text)
    name = entry.name
    if not match:
        fail(f"{name}: '{text}' is not blocks or blocks=opN&MASK:V|V...")
    if entry.status == "unsupported":
        fail(f"{name} is unsupported but marked '{text}'")

    argument = argument_reader(match, text, name, fail)

    entry.blocks = True
    if match.group("op") is not None:
        entry.blocks_op_arg, entry.blocks_op_mask, entry.blocks_op_values = parse_op_gate(
            match, text, name, argument, fail)


def parse_spec(path):
    entries = []
    headers = []
    by_name = {}
    with open(path, encoding="utf-8") as spec:
        for line_no, line in enumerate(spec, start=1):
            entry = parse_line(path, line_no, line)
            if entry is None:
                continue
            if isinstance(entry, str):
                if entries:
                    raise SpecError(path, line_no, f"'include {entry}' comes before the first call")
                if entry in headers:
                    raise SpecError(path, line_no, f"{entry} is included twice")
                headers.append(entry)
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
    return Spec(entries, headers)
