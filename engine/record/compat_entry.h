// Recording a 32-bit system call (int 0x80) of a 64-bit program: as its
// 64-bit twin (engine/core/compat_syscalls.h), or not at all.
#pragma once

#include <cstdint>
#include <optional>

#include "values/registers.h"
#include "engine/core/task.h"

namespace backstep {

// At a syscall-entry stop: nullopt for a 64-bit call; for a 32-bit one, its
// registers as its 64-bit twin has them. Throws RecordingRefused for a
// 32-bit call that has no twin (never recorded as the 64-bit call of the
// same number). `event` is the next event's number, for the message.
std::optional<Registers> compat_entry(Task& task, const Registers& regs, uint64_t event);

}  // namespace backstep
