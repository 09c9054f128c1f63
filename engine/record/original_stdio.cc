#include "engine/record/original_stdio.h"

#include <linux/kcmp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace backstep {
namespace {

// Whether the program's `fd` and our `ours` are one open file (a dup of
// the other, or both inherited from the same one).
bool same_open_file(pid_t tid, int fd, int ours) {
  return syscall(SYS_kcmp, tid, getpid(), KCMP_FILE, fd, ours) == 0;
}

}  // namespace

OriginalStdio::OriginalStdio() {
  struct stat st {};
  if (fstat(STDOUT_FILENO, &st) == 0) out_ = {true, st.st_dev, st.st_ino};
  if (fstat(STDERR_FILENO, &st) == 0) err_ = {true, st.st_dev, st.st_ino};
}

std::optional<int> OriginalStdio::stream_of(pid_t tid, int fd, dev_t dev, ino_t ino) const {
  bool out = out_.open && out_.dev == dev && out_.ino == ino;
  bool err = err_.open && err_.dev == dev && err_.ino == ino;
  if (out != err) return out ? 1 : 2;
  if (!out) return std::nullopt;
  // One file behind both (a terminal, `2>&1`): the stream is the one the
  // descriptor was copied from when that can be told, else its own number.
  if (fd == 1 || fd == 2) return fd;
  if (same_open_file(tid, fd, STDOUT_FILENO)) return 1;
  if (same_open_file(tid, fd, STDERR_FILENO)) return 2;
  return 1;
}

std::vector<std::pair<dev_t, ino_t>> OriginalStdio::files() const {
  std::vector<std::pair<dev_t, ino_t>> out;
  for (const File& f : {out_, err_}) {
    if (f.open) out.emplace_back(f.dev, f.ino);
  }
  return out;
}

}  // namespace backstep
