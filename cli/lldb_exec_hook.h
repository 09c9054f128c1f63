// What lldb needs after the debugged process execs. The server reports the
// exec ("reason:exec", as lldb-server does), and lldb then drops every
// module and asks its platform which program the process runs now: the
// host's /proc/PID/exe, which a replay cannot offer (the pid lldb is shown
// is no local process's: GdbSession::kLldbPidOffset). So `replay --debugger
// lldb` installs this stop hook: at an exec stop it asks the server for the
// new program's recorded path (qXfer:exec-file), adds the launcher's copy
// of that file as a module, and loads it where the process mapped it (the
// lowest memory region the server names with that path); lldb's
// breakpoints then resolve in it again. lldb's dynamic loader does not
// follow the new program's libraries either (it found no program at the
// exec), so at each later stop of that process the hook adds those the
// dynamic linker has loaded by then (the server's qXfer:libraries-svr4),
// from the launcher's copies under `sysroot`, at their load biases.
#pragma once

#include <map>
#include <string>

namespace backstep::cli {

// The Python module (for `command script import`) whose class
// backstep_exec.ExecHook is the stop hook; `copies` maps each program's
// recorded path to its copy; a library's copy is `sysroot` + its path.
std::string lldb_exec_hook_module(const std::map<std::string, std::string>& copies, const std::string& sysroot);

}  // namespace backstep::cli
