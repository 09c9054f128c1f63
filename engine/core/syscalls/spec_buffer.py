"""The `buffer` attribute of a syscalls.spec line: whether the preload library
may perform the call itself, and how (see the spec's header comment)."""

import re

from spec_tokens import ARG_COUNT, argument_reader, MAX_OUTPUTS, MAX_UINT32, OP_GATE, parse_op_gate, parse_output

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
# The output kinds the preload library can bound before the call.
# DerefArg outputs are bounded only when their pointer is null (recv's
# source address): the library takes the traced path otherwise.
BUFFERABLE_KINDS = ("Fixed", "Ret", "RetTimes", "Arg", "ArgTimes", "DerefArg", "FdSet")


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

    argument = argument_reader(match, text, name, fail)

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
