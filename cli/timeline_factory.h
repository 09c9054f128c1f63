// The target each client of the server gets: a ReplayTimeline of the trace
// at `dir`, for the process `choice` names, with the checkpoint bounds.
// Runs in the process that serves the client (forked per client, or the
// server itself with --once and under `replay`): its children are replayed
// processes.
#pragma once

#include <string>

#include "cli/commands.h"
#include "engine/timeline/replay_timeline.h"
#include "gdbserver/gdb_server.h"

namespace backstep::cli {

gdb::GdbServer::TargetFactory timeline_factory(const std::string& dir, DebuggeeChoice choice,
                                               CheckpointBounds bounds);

}  // namespace backstep::cli
