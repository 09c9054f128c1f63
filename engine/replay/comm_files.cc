#include "engine/replay/comm_files.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>

#include <charconv>
#include <cstring>
#include <vector>

namespace backstep {
namespace {

constexpr std::size_t kPathMax = 4096;
constexpr std::size_t kCommMax = 15;  // TASK_COMM_LEN - 1: the kernel takes no more

// A NUL-terminated path from the program's memory (nullopt: unreadable or
// too long, so not a comm file the kernel could have opened).
std::optional<std::string> read_path(uint64_t addr, const CommFiles::ReadMemory& read) {
  std::string path;
  char chunk[256];
  while (path.size() < kPathMax) {
    std::size_t got = read(addr + path.size(), chunk, sizeof(chunk));
    if (got == 0) return std::nullopt;
    const char* nul = static_cast<const char*>(std::memchr(chunk, 0, got));
    if (nul) return path.append(chunk, static_cast<std::size_t>(nul - chunk));
    path.append(chunk, got);
  }
  return std::nullopt;
}

std::optional<uint32_t> number(std::string_view s) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<uint32_t> CommFiles::thread_of_path(std::string_view path, uint32_t caller, uint32_t process) {
  if (path.empty() || path[0] != '/') return std::nullopt;
  // The components, without the empty and "." ones the kernel skips too.
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    std::size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    if (!part.empty() && part != ".") parts.push_back(part);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  }
  if (parts.size() < 3 || parts[0] != "proc" || parts.back() != "comm") return std::nullopt;
  // /proc/PID/comm is the comm of the thread PID (for a process: its first
  // thread, whichever thread opens it).
  std::optional<uint32_t> owner;
  if (parts[1] == "self") owner = process;
  else if (parts[1] == "thread-self") owner = caller;
  else owner = number(parts[1]);
  if (!owner) return std::nullopt;
  if (parts.size() == 3) return owner;
  if (parts.size() == 5 && parts[2] == "task" && parts[1] != "thread-self") return number(parts[3]);
  return std::nullopt;
}

void CommFiles::opened(int fd, std::optional<uint32_t> tid) {
  if (tid) {
    fds_[fd] = *tid;
  } else {
    fds_.erase(fd);
  }
}

std::optional<CommFiles::Rename> CommFiles::after_call(const Registers& call, int64_t result, uint32_t caller,
                                                       uint32_t process, const ReadMemory& read) {
  if (call.syscallno() == SYS_close) {
    // Closed even when the call fails with EINTR or EIO.
    fds_.erase(static_cast<int>(call.arg(0)));
    return std::nullopt;
  }
  if (result < 0) return std::nullopt;
  int fd = static_cast<int>(result);
  auto copy_of = [&](uint64_t old_fd) -> std::optional<uint32_t> {
    auto it = fds_.find(static_cast<int>(old_fd));
    return it == fds_.end() ? std::nullopt : std::optional<uint32_t>(it->second);
  };
  switch (static_cast<long>(call.syscallno())) {
    case SYS_open:
    case SYS_openat:
    case SYS_openat2: {
      uint64_t path_addr = call.syscallno() == SYS_open ? call.arg(0) : call.arg(1);
      std::optional<std::string> path = read_path(path_addr, read);
      opened(fd, path ? thread_of_path(*path, caller, process) : std::nullopt);
      return std::nullopt;
    }
    case SYS_dup:
    case SYS_dup2:
    case SYS_dup3: opened(fd, copy_of(call.arg(0))); return std::nullopt;
    case SYS_fcntl:
      if (call.arg(1) == F_DUPFD || call.arg(1) == F_DUPFD_CLOEXEC) opened(fd, copy_of(call.arg(0)));
      return std::nullopt;
    case SYS_close_range:
      if (!(call.arg(2) & CLOSE_RANGE_CLOEXEC)) {
        uint64_t first = call.arg(0), last = call.arg(1);
        std::erase_if(fds_, [&](const auto& e) {
          return static_cast<uint64_t>(e.first) >= first && static_cast<uint64_t>(e.first) <= last;
        });
      }
      return std::nullopt;
    case SYS_write:
    case SYS_pwrite64: {
      auto it = fds_.find(static_cast<int>(call.arg(0)));
      if (it == fds_.end()) return std::nullopt;
      // The kernel takes at most 15 bytes and stops the name at a NUL.
      char name[kCommMax] = {};
      std::size_t len = std::min<uint64_t>(call.arg(2), kCommMax);
      len = read(call.arg(1), name, len);
      return Rename{it->second, std::string(name, strnlen(name, len))};
    }
    default: return std::nullopt;
  }
}

}  // namespace backstep
