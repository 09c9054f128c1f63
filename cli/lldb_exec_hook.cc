#include "cli/lldb_exec_hook.h"

#include "cli/json_string.h"

namespace backstep::cli {
namespace {

constexpr const char* kHook = R"PY(
import html
import os
import re

import lldb

# The processes that have exec'd (lldb's dynamic loader does not follow
# their libraries: it had no program at the exec).
EXECED = set()


def _exec_path(debugger):
    # The server's answer to qXfer:exec-file: "l" and the recorded path.
    result = lldb.SBCommandReturnObject()
    debugger.GetCommandInterpreter().HandleCommand(
        "process plugin packet send qXfer:exec-file:read::0,fff", result)
    for line in (result.GetOutput() or "").splitlines():
        line = line.strip()
        if line.startswith("response: l"):
            return line[len("response: l"):]
    return None


def _mapped_at(process, path):
    lowest = None
    regions = process.GetMemoryRegions()
    for i in range(regions.GetSize()):
        region = lldb.SBMemoryRegionInfo()
        if regions.GetMemoryRegionAtIndex(i, region) and region.GetName() == path:
            base = region.GetRegionBase()
            lowest = base if lowest is None else min(lowest, base)
    return lowest


def _libraries(debugger):
    # (path, load bias) of each object the dynamic linker lists, from the
    # server's qXfer:libraries-svr4.
    result = lldb.SBCommandReturnObject()
    debugger.GetCommandInterpreter().HandleCommand(
        "process plugin packet send qXfer:libraries-svr4:read::0,fffff", result)
    text = result.GetOutput() or ""
    return [(html.unescape(name), int(bias, 16))
            for name, bias in re.findall(r'<library name="([^"]*)"[^>]*? l_addr="(0x[0-9a-fA-F]+)"', text)]


def _load_libraries(target, stream):
    # The copies of the libraries under the launcher's sysroot, each loaded
    # at its bias, unless lldb has it already.
    loaded = 0
    for name, bias in _libraries(target.GetDebugger()):
        copy = SYSROOT + name
        if not name.startswith("/") or not os.path.isfile(copy):
            continue  # the program itself (""), the vDSO
        module = target.FindModule(lldb.SBFileSpec(copy, False))
        if module.IsValid():
            continue
        module = target.AddModule(copy, None, None)
        if module.IsValid():
            target.SetModuleLoadAddress(module, bias)
            loaded += 1
    if loaded:
        stream.Print("backstep: loaded %d libraries of the new program\n" % loaded)


class ExecHook:
    def __init__(self, target, extra_args, internal_dict):
        pass

    def handle_stop(self, exe_ctx, stream):
        process = exe_ctx.GetProcess()
        target = exe_ctx.GetTarget()
        if not any(t.GetStopReason() == lldb.eStopReasonExec for t in process):
            # After an exec, the libraries the new program has loaded by now.
            if process.GetProcessID() in EXECED:
                _load_libraries(target, stream)
            return True
        EXECED.add(process.GetProcessID())
        path = _exec_path(target.GetDebugger())
        copy = COPIES.get(path) if path else None
        base = _mapped_at(process, path) if copy else None
        if copy is None or base is None:
            stream.Print("backstep: the process now runs %s, which lldb cannot be given\n" % path)
            return True
        module = target.AddModule(copy, None, None)
        if not module.IsValid():
            stream.Print("backstep: lldb cannot load %s (the copy of %s)\n" % (copy, path))
            return True
        slide = base - module.GetObjectFileHeaderAddress().GetFileAddress()
        target.SetModuleLoadAddress(module, slide)
        stream.Print("backstep: the process now runs %s\n" % path)
        return True
)PY";

}  // namespace

std::string lldb_exec_hook_module(const std::map<std::string, std::string>& copies, const std::string& sysroot) {
  std::string out = "# Written by backstep replay --debugger lldb (cli/lldb_exec_hook.h).\n";
  out += "SYSROOT = " + json_string(sysroot) + "\nCOPIES = {\n";
  for (const auto& [recorded, copy] : copies) out += "    " + json_string(recorded) + ": " + json_string(copy) + ",\n";
  out += "}\n";
  return out + kHook;
}

}  // namespace backstep::cli
