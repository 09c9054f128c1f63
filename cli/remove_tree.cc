#include "cli/remove_tree.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace backstep::cli {
namespace {

// Deeper than any tree backstep makes (lldb's sysroot copies mirror
// library paths); a bound, so that the stack stays small.
constexpr int kMaxDepth = 32;
constexpr int kPasses = 3;

struct Dirent64 {
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

bool is_dot(const char* name) { return name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)); }

void remove_at(int dir, const char* name, int depth) {
  if (unlinkat(dir, name, 0) == 0 || errno == ENOENT) return;
  if (errno != EISDIR || depth >= kMaxDepth) return;
  int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  // Removing entries while reading the directory may make getdents skip
  // some: another pass finds those. A few passes, since something that
  // cannot be removed is found on every one.
  for (int pass = 0; pass < kPasses; ++pass) {
    lseek(fd, 0, SEEK_SET);
    alignas(8) char entries[1024];
    while (true) {
      long got = syscall(SYS_getdents64, fd, entries, sizeof(entries));
      if (got <= 0) break;
      for (long off = 0; off < got;) {
        const auto* d = reinterpret_cast<const Dirent64*>(entries + off);
        off += d->reclen;
        if (!is_dot(d->name)) remove_at(fd, d->name, depth + 1);
      }
    }
    if (unlinkat(dir, name, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY) break;
  }
  close(fd);
}

}  // namespace

void remove_tree(const char* path) { remove_at(AT_FDCWD, path, 0); }

}  // namespace backstep::cli
