// No replayed process outlives backstep: when it is told to stop (SIGINT,
// SIGTERM, SIGHUP) or its gdb is gone, every process it forked for a replay
// (the replayed tree, each checkpoint's copy of it) is killed and reaped
// before it exits. Left to the kernel, PTRACE_O_EXITKILL kills them, but
// they are then reparented to init as zombies, and an init that does not
// reap (a container's) keeps thousands of them for good.
#pragma once

#include <sys/types.h>

namespace backstep::cli {

enum class ChildKind {
  Tracees,  // replayed processes and checkpoints: SIGKILL
  Clients,  // `serve`'s per-client processes: SIGTERM, so that each cleans up its own
};

// Installs the handlers for SIGTERM, SIGHUP and (unless ignored) SIGINT:
// they end this process's children of `kind`, all but `keep` (0: none; the
// gdb of `backstep replay`), wait for each, then end the process by the
// same signal.
void clean_up_children_on_signals(ChildKind kind, pid_t keep = 0);
// From now on the children to end are of `kind` (a forked client process
// of `serve` serves tracees).
void set_children_kind(ChildKind kind);
// Ends and reaps this process's children as the handlers do, now.
void end_children();

}  // namespace backstep::cli
