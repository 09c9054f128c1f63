"""The parser of syscalls.spec: its lines as Entry values, each checked as
the spec's header comment describes. A malformed line raises SpecError
(FILE:LINE: message). gen_syscall_table.py and preload_table.py write the
generated code from what it returns."""

import re
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
# include <HEADER>: where the types of sizeof(TYPE) sizes come from.
INCLUDE_RE = re.compile(r"<[a-z0-9_]+(/[a-z0-9_]+)*\.h>\Z")
OUTPUT_RE = re.compile(r"arg(?P<arg>[0-9]+):(?P<size>.+)\Z")
# A byte count: a number, or the size of a C type (sizeof(struct stat)).
BYTES = r"(?P<k>[0-9]+|sizeof\((?P<type>[A-Za-z_][A-Za-z0-9_ ]*(\[[0-9]+\])?)\))"
SIZE_FORMS = (
    # (regex, SizeKind); group names: m (argument), k (multiplier or bytes)
    (re.compile(BYTES + r"\Z"), "Fixed"),
    (re.compile(r"ret\Z"), "Ret"),
    (re.compile(r"ret\*" + BYTES + r"\Z"), "RetTimes"),
    (re.compile(r"arg(?P<m>[0-9]+)\Z"), "Arg"),
    (re.compile(r"arg(?P<m>[0-9]+)\*" + BYTES + r"\Z"), "ArgTimes"),
    (re.compile(r"\*arg(?P<m>[0-9]+)\Z"), "DerefArg"),
    (re.compile(r"fdset(?P<m>[0-9]+)\Z"), "FdSet"),
)
# An operation gate (buffer=opN&MASK:V|V..., blocks=opN&MASK:V|V...) lists
# values below this.
OP_VALUE_LIMIT = 64
OP_GATE = r"op(?P<op>[0-9]+)(&(?P<mask>0x[0-9a-f]+))?:(?P<values>[0-9]+(\|[0-9]+)*)"
# buffer, buffer=fdN, buffer=fdN,dataM, buffer=fdN,gatherM, buffer=fdN,scatterM,
# buffer=fdN,gathermsgM, buffer=fdN,scattermsgM, buffer=fdN,closes,
# buffer=opN&MASK:V|V..., buffer=reqN:R|R(argM:BYTES)..., buffer=nullN, buffer=nullatN, each
# optionally followed by ,pathN, ,opens, ,alwaysN and then ,block (see syscalls.spec's header).
REQUEST = r"(?:0x[0-9a-f]+|[0-9]+)(?:\([^()|]*\))?"
BUFFER_RE = re.compile(r"buffer(=fd(?P<fd>[0-9]+)(,data(?P<data>[0-9]+)|,gather(?P<gather>[0-9]+)"
                       r"|,scatter(?P<scatter>[0-9]+)|,gathermsg(?P<gathermsg>[0-9]+)"
                       r"|,scattermsg(?P<scattermsg>[0-9]+)|(?P<closes>,closes))?"
                       r"|=" + OP_GATE +
                       r"|=req(?P<req>[0-9]+):(?P<requests>" + REQUEST + r"(\|" + REQUEST + r")*)"
                       r"|=null(?P<nullat>at)?(?P<null>[0-9]+))?"
                       r"(,path(?P<path>[0-9]+))?(?P<opens>,opens)?(,always(?P<always>[0-9]+))?(?P<block>,block)?\Z")
REQUEST_RE = re.compile(r"(?P<value>0x[0-9a-f]+|[0-9]+)(\((?P<output>[^)]*)\))?\Z")
BUFFER_FORMS = ("buffer, buffer=fdN, buffer=fdN,dataM, buffer=fdN,gatherM, buffer=fdN,scatterM, "
                "buffer=fdN,gathermsgM, buffer=fdN,scattermsgM, buffer=fdN,closes, "
                "buffer=opN&MASK:V|V..., buffer=reqN:R|R(argM:BYTES)..., buffer=nullN or buffer=nullatN "
                "(each optionally followed by ,pathN, ,opens, ,alwaysN, then ,block)")
# blocks, or blocks=opN&MASK:V|V...: the call may wait (always, or for these
# operations).
BLOCKS_RE = re.compile(r"blocks(=" + OP_GATE + r")?\Z")
# What may follow the status, in this order; each attribute at most once.
# Where each belongs, for the error when one is out of place.
ATTRIBUTE_PLACES = {
    "output": "",
    "buffer": "'buffer' comes after the outputs, before 'blocks' and the handler",
    "blocks": "'blocks' comes after the outputs and 'buffer', before the handler",
    "handler": "the handler (@NAME) comes last, after the outputs",
}
# The output kinds the preload library can bound before the call.
# DerefArg outputs are bounded only when their pointer is null (recv's
# source address): the library takes the traced path otherwise.
BUFFERABLE_KINDS = ("Fixed", "Ret", "RetTimes", "Arg", "ArgTimes", "DerefArg", "FdSet")


class SpecError(Exception):
    def __init__(self, path, line_no, message):
        super().__init__(f"{path}:{line_no}: {message}")


@dataclass
class Output:
    arg: int
    size_kind: str
    size_arg: int = 0
    size: int = 0        # bytes, or the multiplier (0: none, or size_type's)
    size_type: str = ""  # the C type whose sizeof is that number, if the spec names one

    def c_size(self, suffix=""):
        """The size as C code: sizeof(TYPE), or the number with `suffix`."""
        return f"sizeof({self.size_type})" if self.size_type else f"{self.size}{suffix}"


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


def parse_op_gate(match, text, name, argument, fail):
    """The argument, mask and values (a bit per value) of an operation gate
    (OP_GATE) matched in `text`. The mask defaults to the argument's low 32
    bits, as the kernel reads an int operation."""
    arg = argument("op")
    mask = int(match.group("mask"), 16) if match.group("mask") else MAX_UINT32
    if mask > MAX_UINT32:
        fail(f"{name}: '{text}': the mask does not fit in 32 bits")
    values = 0
    for value in match.group("values").split("|"):
        if int(value) >= OP_VALUE_LIMIT:
            fail(f"{name}: '{text}': operation values must be below {OP_VALUE_LIMIT}")
        values |= 1 << int(value)
    return arg, mask, values


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
        if groups.get("type") is not None:
            out.size_type = " ".join(groups["type"].split())
        elif groups.get("k") is not None:
            out.size = int(groups["k"])
            if out.size == 0 or out.size > MAX_UINT32:
                fail(f"output '{text}': size must be 1..{MAX_UINT32}")
        return out
    fail(f"output '{text}': size '{size_text}' is not one of "
         "BYTES, ret, ret*K, argM, argM*K, *argM, fdsetM (BYTES and K: a number or sizeof(TYPE))")


def split_fields(text):
    """Splits a line at the blanks outside parentheses, so that
    sizeof(struct stat) is one field."""
    fields, current, depth = [], "", 0
    for char in text:
        if char.isspace() and depth == 0:
            if current:
                fields.append(current)
            current = ""
            continue
        depth += (char == "(") - (char == ")")
        current += char
    if current:
        fields.append(current)
    return fields


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
        fail(f"expected 'NR NAME FAMILY STATUS [OUTPUTS...] [BUFFER] [BLOCKS] [@HANDLER]', got '{line.strip()}'")
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
        else:
            kind = "output"
        if kinds.index(kind) < last:
            fail(f"{name}: {ATTRIBUTE_PLACES[kinds[last]]}")
        if kind != "output" and found[kind]:
            fail(f"{name}: '{found[kind][0]}' and '{text}': {kind} is given once")
        last = kinds.index(kind)
        found[kind].append(text)
    return found


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

    def argument(group):
        value = int(match.group(group))
        if value >= ARG_COUNT:
            fail(f"{name}: '{text}': argument {value} is not 0..{ARG_COUNT - 1}")
        return value

    entry.blocks = True
    if match.group("op") is not None:
        entry.blocks_op_arg, entry.blocks_op_mask, entry.blocks_op_values = parse_op_gate(
            match, text, name, argument, fail)


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
        entry.buffer_op_arg, entry.buffer_op_mask, entry.buffer_op_values = parse_op_gate(
            match, text, name, argument, fail)
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
