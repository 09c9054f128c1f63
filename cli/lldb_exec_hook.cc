#include "cli/lldb_exec_hook.h"

#include "cli/json_string.h"

namespace backstep::cli {
namespace {

constexpr const char* kHook = R"PY(
import lldb


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


class ExecHook:
    def __init__(self, target, extra_args, internal_dict):
        pass

    def handle_stop(self, exe_ctx, stream):
        process = exe_ctx.GetProcess()
        if not any(t.GetStopReason() == lldb.eStopReasonExec for t in process):
            return True
        target = exe_ctx.GetTarget()
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

std::string lldb_exec_hook_module(const std::map<std::string, std::string>& copies) {
  std::string out = "# Written by backstep replay --debugger lldb (cli/lldb_exec_hook.h).\nCOPIES = {\n";
  for (const auto& [recorded, copy] : copies) out += "    " + json_string(recorded) + ": " + json_string(copy) + ",\n";
  out += "}\n";
  return out + kHook;
}

}  // namespace backstep::cli
