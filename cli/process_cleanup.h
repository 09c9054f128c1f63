// No replayed process outlives backstep: when it is told to stop (SIGINT,
// SIGTERM, SIGHUP) or its gdb is gone, every process it forked for a replay
// (the replayed tree, each checkpoint's copy of it) is killed and reaped
// before it exits. Nor does the debugger that `backstep replay` started, nor
// the files it made for it (its socket, gdb's commands, lldb's copies). Left to the kernel, PTRACE_O_EXITKILL kills them, but
// they are then reparented to init as zombies, and an init that does not
// reap (a container's) keeps thousands of them for good.
#pragma once

#include <sys/types.h>

#include <string>

namespace backstep::cli {

enum class ChildKind {
  Tracees,  // replayed processes and checkpoints: SIGKILL
  Clients,  // `serve`'s per-client processes: SIGTERM, so that each cleans up its own
};

// Installs the handlers for SIGTERM, SIGHUP and (unless ignored) SIGINT:
// they end this process's children of `kind`, waiting for each, remove the
// paths given to remove_on_signals(), then end the process by the same
// signal. In a child forked meanwhile, before its exec, they only end it.
// Notes the terminal's settings (stdin's) for end_debugger_on_signals().
void clean_up_children_on_signals(ChildKind kind);
// From now on the handlers first end `debugger` (the gdb or lldb of
// `backstep replay`): SIGTERM, so that it can leave the terminal as it
// found it, SIGKILL if it is still there a few seconds later, and the
// terminal's settings put back as clean_up_children_on_signals() found them.
void end_debugger_on_signals(pid_t debugger);
// From now on the children to end are of `kind` (a forked client process
// of `serve` serves tracees).
void set_children_kind(ChildKind kind);
// Ends and reaps this process's children as the handlers do (all but the
// debugger), now; removes nothing.
void end_children();

// The handlers remove `path` (a file, or a directory and everything in it)
// once the children are gone, until forget_on_signals(path). A few paths at
// most (false when there is no room, or the path is too long).
bool remove_on_signals(const std::string& path);
void forget_on_signals(const std::string& path);

}  // namespace backstep::cli
