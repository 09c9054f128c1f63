// What a write-like system call (write, writev, send, ...) takes from the
// caller's memory. The recorder keeps a summary of these bytes; replay reads
// them again at the same call and compares, which is how a program that
// computes different data than it did when recorded is caught even though
// replay never performs the write.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "values/registers.h"
#include "engine/core/task.h"

namespace backstep {

// The first `total` bytes of the buffers of the iovec array at `iov_addr`
// (unreadable bytes end it early).
std::vector<uint8_t> gather_iovecs(Task& task, uint64_t iov_addr, uint64_t iovcnt, uint64_t total);

// Whether system call `nr` is one of the write-like calls below (write,
// pwrite64, writev, pwritev, pwritev2, sendto, sendmsg, sendmmsg).
bool is_write_like(uint64_t nr);

// The bytes the call described by `entry` consumed, given its (successful,
// positive) `result`; nullopt when the call is not write-like or wrote
// nothing. Bytes that cannot be read end the data early.
std::optional<std::vector<uint8_t>> read_written_bytes(Task& task, const Registers& entry, int64_t result);

}  // namespace backstep
