// Replay's check of the files it maps: a copy in `files/` changed after the
// recording (edited, truncated, damaged on disk) would make the program see
// bytes that never existed, so it is refused before it is mapped.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <mutex>
#include <system_error>
#include <tuple>

#include "engine/trace/file_digest.h"
#include "engine/trace/reader.h"
#include "engine/trace/trace_error.h"

namespace backstep::trace {

namespace {

// A file's state as far as a change to its content goes: writing changes
// mtime and ctime, replacing it changes the inode.
using FileState = std::tuple<dev_t, ino_t, off_t, time_t, long, time_t, long>;

FileState state_of(const struct stat& st) {
  return {st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ctim.tv_sec,
          st.st_ctim.tv_nsec};
}

// Content hashes already computed in this process, shared by every reader
// (each checkpoint opens its own).
std::mutex hashed_mu;
std::map<FileState, uint64_t> hashed;

}  // namespace

std::string TraceReader::verified_file_path(const Mapping& m) const {
  std::string path = file_path(m.file);
  auto changed = [&](const std::string& what) {
    throw TraceError(dir() + ": trace file " + m.file + " was changed after recording: " + what);
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw TraceError(path + ": cannot open: " + std::system_category().message(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    throw TraceError(path + ": cannot stat: " + std::system_category().message(err));
  }
  if (static_cast<uint64_t>(st.st_size) != m.file_size) {
    ::close(fd);
    changed("size " + std::to_string(st.st_size) + ", recorded " + std::to_string(m.file_size));
  }
  FileState state = state_of(st);
  std::optional<uint64_t> hash;
  {
    std::lock_guard lock(hashed_mu);
    if (auto it = hashed.find(state); it != hashed.end()) hash = it->second;
  }
  if (!hash) {
    try {
      FileDigest d = digest_of(fd);
      // Read to its end: a size that moved while hashing is a change too.
      if (d.size != m.file_size) {
        ::close(fd);
        changed("size " + std::to_string(d.size) + ", recorded " + std::to_string(m.file_size));
      }
      hash = d.hash;
    } catch (const std::system_error& e) {
      ::close(fd);
      throw TraceError(path + ": cannot read: " + e.what());
    }
    std::lock_guard lock(hashed_mu);
    hashed[state] = *hash;
  }
  ::close(fd);
  if (*hash != m.file_hash) changed("its content hash differs from the recorded one");
  return path;
}

}  // namespace backstep::trace
