// The size and XXH3-64 hash of a whole file: recorded for every file stored
// in a trace, checked again before replay maps it. Private to engine/trace.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/trace/event.h"

namespace backstep::trace {

struct FileDigest {
  uint64_t size = 0;
  uint64_t hash = 0;
  auto operator<=>(const FileDigest&) const = default;
};

// Reads the file open at `fd` from its first byte to its end with pread(2),
// so the descriptor's offset is left alone, and a file cut short while it is
// read gives a different digest rather than a SIGBUS as mmap would. Throws
// std::system_error.
FileDigest digest_of(int fd);

// Whether the files open at `a` and `b` hold the same `size` bytes (and no
// more). Throws std::system_error.
bool same_bytes(int a, int b, uint64_t size);

// `files.sums` in a trace directory: one line per stored file,
// "HASH SIZE PATH\n" (XXH3-64 as 16 lowercase hex digits, decimal size,
// trace-relative path), so that replay can check every copy before it starts.
inline constexpr const char* kFileSumsFile = "files.sums";
std::string format_sums_line(const StoredFile& file);
// nullopt unless `line` (without its newline) is exactly such a line.
std::optional<StoredFile> parse_sums_line(const std::string& line);

}  // namespace backstep::trace
