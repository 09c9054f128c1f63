#!/usr/bin/env python3
"""Checks that the source folders include each other only in the directions of
the layout (docs/design.md, "Map of the code"): values/ (plain value types and
the log) includes nothing of backstep's, engine/core includes nothing from the
layers above it, engine/trace takes only the plain CPU values, and gdbserver/
sees the engine through the DebugTarget interface and the plain values alone.

Usage: check_layering.py [ROOT]   (ROOT: the source tree, default: this repo)
Prints each include that breaks a rule and exits 1; exits 0 when none does.
The libraries' link graph is checked by CMake at configure time
(cmake/layering.cmake)."""

import os
import re
import sys

SOURCE_SUFFIXES = (".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".inc")

# (files: a folder ending in "/" or one file, allowed project includes (folder
# prefixes or files), why). The most specific rule for a file applies.
RULES = [
    ("values/", ["values/"],
     "values/ holds the plain types the engine and the server share: it includes nothing above it"),
    ("engine/core/", ["engine/core/", "values/", "preload/preload_interface.h"],
     "engine/core is the bottom layer: it includes nothing from trace, record, replay or timeline "
     "(the preload library's ABI header is plain C shared by both sides)"),
    ("preload/", ["preload/"],
     "the preload library is injected into programs: it includes libc's headers and its own only"),
    ("engine/trace/", ["engine/trace/", "values/cpu_state.h"],
     "the trace schema depends on the standard library and the plain values of values/cpu_state.h only"),
    ("engine/timeline/debug_target.h", ["values/"],
     "DebugTarget is the whole interface gdbserver/ sees: it must not pull in the replay engine"),
    ("gdbserver/", ["gdbserver/", "engine/timeline/debug_target.h", "values/"],
     "gdbserver/ speaks to the engine through DebugTarget and its value types only"),
    ("gdbserver/rsp/", ["gdbserver/rsp/"],
     "the RSP codec links only the standard library"),
    ("dap/", ["dap/"],
     "the DAP front drives gdb over MI: it sees neither the engine nor the RSP server"),
    ("dap/wire/", ["dap/wire/"],
     "the DAP framing links only the standard library"),
    ("dap/mi/mi_record.h", [],
     "gdb/MI records are parsed with the standard library alone"),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)')


def project_folders(root):
    return {name for name in os.listdir(root) if os.path.isdir(os.path.join(root, name))
            and not name.startswith(".") and name != "build"}


def rule_for(path):
    best = None
    for files, allowed, why in RULES:
        if path == files or (files.endswith("/") and path.startswith(files)):
            if best is None or len(files) > len(best[0]):
                best = (files, allowed, why)
    return best


def allowed(include, prefixes):
    return any(include == p or (p.endswith("/") and include.startswith(p)) for p in prefixes)


def source_files(root, top):
    start = os.path.join(root, top)
    if os.path.isfile(start):
        yield top
        return
    for folder, dirs, files in os.walk(start):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")


def check(root):
    """Returns (violations, number of files checked)."""
    folders = project_folders(root)
    violations = []
    seen = set()
    for files, _, _ in RULES:
        found = list(source_files(root, files))
        if not found:
            # A rule that matches nothing would pass forever after a rename.
            violations.append(f"{files}: no source files; update the rules in {os.path.basename(__file__)}")
        seen.update(found)
    for path in sorted(seen):
        _, prefixes, why = rule_for(path)
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                include = m.group(1) or m.group(2)
                if include.split("/", 1)[0] not in folders or "/" not in include:
                    continue  # a system or standard header
                if not allowed(include, prefixes):
                    violations.append(f"{path}:{number}: includes \"{include}\": {why}")
    return violations, len(seen)


def main(argv):
    if len(argv) > 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    violations, count = check(os.path.abspath(root))
    for v in violations:
        print(v, file=sys.stderr)
    if violations:
        print(f"layering: {len(violations)} include(s) against the layout", file=sys.stderr)
        return 1
    print(f"layering: {count} files checked, every include goes down the layout")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
