// The one way to open a file of a trace for reading. A trace may come from
// someone else, so any of its names may be a FIFO (open() would wait for a
// writer forever), a device, a directory, or a symbolic link to a host file.
// Every trace file is opened without following a link at its last component,
// without blocking, and is refused unless it is a regular file.
#pragma once

#include <sys/stat.h>

#include <optional>
#include <string>

namespace backstep::trace {

// A descriptor that closes itself.
class TraceFileFd {
 public:
  TraceFileFd() = default;
  explicit TraceFileFd(int fd) : fd_(fd) {}
  ~TraceFileFd();
  TraceFileFd(TraceFileFd&& other) noexcept : fd_(other.release()) {}
  TraceFileFd& operator=(TraceFileFd&& other) noexcept;
  TraceFileFd(const TraceFileFd&) = delete;
  TraceFileFd& operator=(const TraceFileFd&) = delete;

  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

struct OpenedTraceFile {
  TraceFileFd fd;
  struct stat st {};  // of the open file: a regular one
};

// Opens `path` read-only (O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) and checks
// that it is a regular file. Throws TraceError: "trace file PATH is a FIFO,
// not a regular file", or PATH and why it cannot be opened.
OpenedTraceFile open_trace_file(const std::string& path);

// The same, but nullopt when `path` does not exist (an optional file).
std::optional<OpenedTraceFile> open_trace_file_if_present(const std::string& path);

// "a FIFO", "a directory", "a symbolic link", ... for a file's st_mode.
std::string file_type_name(mode_t mode);

// Throws TraceError unless every directory between `dir` (excluded) and the
// file `relative` names inside it is a real directory, not a link: a
// trace-relative path must not lead out of the trace through a linked
// `files/`. `relative` has no "." or ".." component (the caller checked).
void check_no_linked_directories(const std::string& dir, const std::string& relative);

}  // namespace backstep::trace
