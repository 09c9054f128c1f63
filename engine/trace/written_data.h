// Summaries of the data write-like system calls took from the program
// (WrittenData, event.h): built by the recorder, checked by replay.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/trace/event.h"

namespace backstep::trace {

// Data up to this size is kept whole, so that a difference is reported at
// its exact byte; larger data is kept as one hash per block.
inline constexpr std::size_t kWrittenBytesKept = 1024;
inline constexpr std::size_t kWrittenBlock = 4096;

// The summary of `bytes`; Echoed when they are exactly the one echo the
// event already carries (stdout/stderr), so that they are not stored twice.
WrittenData summarize_written(std::span<const uint8_t> bytes, const std::vector<StdioEcho>& echoes);

// Empty when `live` is what was recorded, else what differs, e.g.
// "written data differs (first difference at byte 12 of 40)".
std::string compare_written(const WrittenData& recorded, const std::vector<StdioEcho>& echoes,
                            std::span<const uint8_t> live);

// Empty when `d` is consistent (sizes agree with its form), else why not.
std::string written_data_problem(const WrittenData& d, const std::vector<StdioEcho>& echoes);

}  // namespace backstep::trace
