// What a clone-like call (clone, clone3, fork, vfork) asks for, whichever
// way its arguments are passed.
#pragma once

#include <cstdint>
#include <optional>

#include "values/registers.h"
#include "engine/core/task.h"

namespace backstep {

struct CloneRequest {
  uint64_t flags = 0;       // CLONE_* bits and the exit signal (fork: SIGCHLD)
  uint64_t parent_tid = 0;  // where CLONE_PARENT_SETTID writes
  uint64_t child_tid = 0;   // where CLONE_CHILD_SETTID writes, CLONE_CHILD_CLEARTID clears
  uint64_t pidfd = 0;       // where CLONE_PIDFD writes
};

// nullopt for other calls, or a clone3 whose arguments cannot be read (the
// kernel refuses it too). `entry`: the registers at the call's entry.
std::optional<CloneRequest> clone_request(Task& task, const Registers& entry);

}  // namespace backstep
