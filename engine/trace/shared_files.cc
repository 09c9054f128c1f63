// Every operation here is best effort except correctness: whatever goes
// wrong (a race with another recorder, a full disk, an entry removed under
// us), the caller falls back to its own copy, never to wrong content.
#include "engine/trace/shared_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <system_error>

namespace backstep::trace {

namespace {

bool is_ours(const struct stat& st) { return st.st_uid == ::geteuid(); }

}  // namespace

std::optional<SharedFiles> SharedFiles::open(const std::string& root) {
  std::string dir = root + "/" + kSharedFilesDir;
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0) return std::nullopt;
  if (!S_ISDIR(st.st_mode) || !is_ours(st) || (st.st_mode & 077) != 0) return std::nullopt;
  return SharedFiles(dir);
}

std::string SharedFiles::entry_name(const FileDigest& digest, mode_t mode) {
  char name[64];
  std::snprintf(name, sizeof name, "%016" PRIx64 "-%" PRIu64 "-%o", digest.hash, digest.size,
                static_cast<unsigned>(mode & 07777));
  return name;
}

void SharedFiles::collect_unused() const {
  DIR* d = ::opendir(dir_.c_str());
  if (!d) return;
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    // A recorder that links an entry right after this check finds it gone
    // (and copies) or keeps its own link to the inode: either way correct.
    if (::fstatat(::dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_nlink == 1 && is_ours(st))
      ::unlinkat(::dirfd(d), name.c_str(), 0);
  }
  ::closedir(d);
}

bool SharedFiles::link_existing(const FileDigest& digest, mode_t mode, int fd, const std::string& dest) const {
  std::string path = dir_ + "/" + entry_name(digest, mode);
  int entry = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (entry < 0) return false;
  bool linked = false;
  try {
    struct stat st;
    if (::fstat(entry, &st) == 0 && S_ISREG(st.st_mode) && is_ours(st) && (st.st_mode & 07777) == (mode & 07777) &&
        static_cast<uint64_t>(st.st_size) == digest.size && same_bytes(entry, fd, digest.size)) {
      // Link the inode just compared, not whatever the name means by now.
      std::string self = "/proc/self/fd/" + std::to_string(entry);
      linked = ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, dest.c_str(), AT_SYMLINK_FOLLOW) == 0;
    }
  } catch (const std::system_error&) {
    linked = false;
  }
  ::close(entry);
  return linked;
}

void SharedFiles::publish(const std::string& path, const FileDigest& digest, mode_t mode) const {
  std::string entry = dir_ + "/" + entry_name(digest, mode);
  // Fails with EEXIST when the entry is there already: then `path` stays a
  // trace-only copy, which is still correct.
  (void)::linkat(AT_FDCWD, path.c_str(), AT_FDCWD, entry.c_str(), 0);
}

}  // namespace backstep::trace
