// What the recorded program's file descriptors refer to, remembered per
// process. Recording a write asks whether its descriptor is backstep's own
// stdout or stderr (the output is echoed at replay), whether it is a /proc
// file (a write to /proc/PID/mem is a store into memory) and which file it
// is (a write changes the memory of that file's mappings). Asking the
// kernel costs an fstatat of /proc/TID/fd/N (and a kcmp) per write: more
// than the rest of recording a write to /dev/null. So the answer is kept
// until the descriptor can have changed.
//
// A descriptor number that is open keeps referring to the same open file
// until it is closed or replaced: by close, close_range, dup2/dup3 onto it,
// or exec's close-on-exec. Calls that create descriptors (open, socket,
// pipe, accept, dup, fcntl F_DUPFD, recvmsg with SCM_RIGHTS, ...) only take
// numbers that are free, and a free number is never in the cache (only
// open descriptors are kept). So the calls that close or replace a
// descriptor drop their process's entries, at entry (the kernel may act
// any time after it) and again at exit; while one runs, nothing is kept.
//
// The entries belong to a descriptor table, which all threads of a process
// share unless a thread was made without CLONE_FILES or called
// unshare(CLONE_FILES). Such a process's descriptors are never kept (rare,
// and it stays correct). Processes are told apart by thread-group id, so
// that a recording of several processes keeps one table each; every new
// thread or process is announced before it runs (created(), from
// RecordSession::start_created_thread), and an exec calls
// table_changing/table_changed around it (close-on-exec: process_syscalls.cc
// and record_processes.cc).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "engine/record/original_stdio.h"

namespace backstep {

class DescriptorCache {
 public:
  struct File {
    dev_t dev = 0;
    ino_t ino = 0;
    mode_t type = 0;              // the S_IFMT bits of st_mode
    bool proc = false;            // a file of /proc
    std::optional<int> stdio;     // 1 or 2: the same file as backstep's stdout or stderr
    bool regular() const;
  };

  DescriptorCache() = default;
  DescriptorCache(const DescriptorCache&) = delete;
  DescriptorCache& operator=(const DescriptorCache&) = delete;

  // What `fd` of thread `tid` refers to now; nullopt when it is not open
  // (or the thread is gone).
  std::optional<File> file(pid_t tid, int fd);
  // 1 or 2 when that is backstep's own stdout or stderr.
  std::optional<int> stdio_stream(pid_t tid, int fd) {
    std::optional<File> f = file(tid, fd);
    return f ? f->stdio : std::nullopt;
  }

  // st_dev of /proc: a descriptor of a /proc file shows it.
  static dev_t proc_device();
  // backstep's own stdout and stderr.
  const OriginalStdio& original_stdio() const { return stdio_; }

  // Around a call of `tid` that may close or replace descriptors.
  void table_changing(pid_t tid);
  void table_changed(pid_t tid);
  // `tid`'s descriptor table is no longer the one its process shares
  // (unshare(CLONE_FILES), close_range with CLOSE_RANGE_UNSHARE).
  void table_unshared(pid_t tid);
  // At the entry of a clone of `parent` with `flags` (whether or not it
  // succeeds), and once it made `child`.
  void creating(pid_t parent, uint64_t flags);
  void created(pid_t parent, pid_t child, uint64_t flags);

  // For tests: how many descriptors are kept for `tid`'s process.
  std::size_t kept(pid_t tid);

 private:
  struct Table {
    std::unordered_map<int, File> files;
    int changing = 0;             // calls that may close descriptors, in progress
    bool keep_nothing = false;    // some thread has a table of its own, or another process this one
  };
  pid_t group_of(pid_t tid);
  Table& table_of(pid_t tid) { return tables_[group_of(tid)]; }
  std::optional<File> look(pid_t tid, int fd) const;

  OriginalStdio stdio_;
  std::unordered_map<pid_t, pid_t> groups_;  // tid -> thread-group id
  std::unordered_map<pid_t, Table> tables_;  // by thread-group id
};

}  // namespace backstep
