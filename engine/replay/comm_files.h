// Thread names written through /proc: pthread_setname_np for a thread other
// than the caller opens /proc/self/task/TID/comm and writes the name there
// (for itself it uses prctl(PR_SET_NAME)). Replay performs neither the open
// nor the write, so it follows the program's descriptors itself: which
// numbers an open of a comm file returned (the path is in the program's
// memory at replay, as it was when recorded), until they are closed or
// replaced, and the name a successful write through one of them gave its
// thread (the written bytes are in memory too, and checked against the
// trace's WrittenData).
//
// Followed: open, openat and openat2 of an absolute path
// /proc/{self,thread-self,PID}/comm or /proc/{self,PID}/task/TID/comm;
// close, close_range, dup, dup2, dup3, fcntl F_DUPFD*; write and pwrite64.
// Not followed: a path relative to a directory descriptor or through other
// symbolic links, writev, and descriptors passed over a socket. One table
// per replayed process (threads share it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "values/registers.h"

namespace backstep {

class CommFiles {
 public:
  // Reads up to `len` bytes of the program's memory at `addr` into `buf`;
  // returns how many it could.
  using ReadMemory = std::function<std::size_t(uint64_t addr, void* buf, std::size_t len)>;

  struct Rename {
    uint32_t tid = 0;
    std::string name;
  };

  // After a system call of thread `caller` (`call`: its registers at entry,
  // in the 64-bit numbering) returned `result`, in the process whose
  // first thread is `process`: follows the descriptors, and returns the
  // name a write gave a thread.
  std::optional<Rename> after_call(const Registers& call, int64_t result, uint32_t caller, uint32_t process,
                                   const ReadMemory& read);

  // The thread whose comm file `path` names, if it names one.
  static std::optional<uint32_t> thread_of_path(std::string_view path, uint32_t caller, uint32_t process);

 private:
  void opened(int fd, std::optional<uint32_t> tid);
  std::map<int, uint32_t> fds_;  // descriptor -> the thread whose comm file it is
};

}  // namespace backstep
