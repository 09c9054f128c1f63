"""The small pieces of a syscalls.spec line that its attributes share: the
limits of arguments and outputs, an output (argN:SIZE), an operation gate
(opN&MASK:V|V...), and the split of a line into fields."""

import re
from dataclasses import dataclass

ARG_COUNT = 6            # x86-64 passes at most six arguments
MAX_OUTPUTS = 4          # SyscallInfo::outs has four slots
MAX_UINT32 = 2**32 - 1

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



def argument_reader(match, text, name, fail):
    """A function that reads a named group of `match` as an argument number,
    failing with the attribute's text when it is not 0..ARG_COUNT-1."""
    def argument(group):
        value = int(match.group(group))
        if value >= ARG_COUNT:
            fail(f"{name}: '{text}': argument {value} is not 0..{ARG_COUNT - 1}")
        return value
    return argument


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
