// Storing mapped files: hard link when allowed and safe, else reflink, else a
// kernel-side copy, else a plain read/write copy.
#include "engine/trace/file_store.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>
#include <utility>
#include <vector>

#include "engine/trace/format.h"
#include "engine/trace/trace_error.h"

namespace backstep::trace {

namespace {

constexpr std::size_t kMaxStoredNameLength = 100;

std::string errno_text(int err) { return std::system_category().message(err); }

// Closes a descriptor on scope exit, so that every error path below is a
// plain `throw`.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Closes now and reports close(2)'s error, which can be a deferred write error.
  int close() {
    int rc = ::close(std::exchange(fd_, -1));
    return rc == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

bool same_inode(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Links `candidate` at `dest` if it is still the file `source_stat`
// describes. The check matters because a path name (the host's name for the
// file, or what a /proc link resolves to) may by now name another file.
bool try_link(const std::string& candidate, const std::string& dest, const struct stat& source_stat) {
  if (::linkat(AT_FDCWD, candidate.c_str(), AT_FDCWD, dest.c_str(), AT_SYMLINK_FOLLOW) != 0) return false;
  struct stat linked;
  if (::stat(dest.c_str(), &linked) == 0 && same_inode(linked, source_stat)) return true;
  ::unlink(dest.c_str());
  return false;
}

// Paths worth trying for a hard link: the source itself (a /proc magic link
// links the file it points to), what it resolves to, and the host name.
std::vector<std::string> link_candidates(const std::string& source, const std::string& name_hint) {
  std::vector<std::string> out{source};
  if (char* real = ::realpath(source.c_str(), nullptr)) {
    if (source != real) out.emplace_back(real);
    std::free(real);
  }
  if (!name_hint.empty() && name_hint[0] == '/' && name_hint != source) out.push_back(name_hint);
  return out;
}

// Copies from the current offsets of `in` to `out` with read/write.
void copy_by_reading(int in, int out) {
  std::vector<char> buf(1 << 20);
  for (;;) {
    ssize_t n = ::read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::system_category(), "read");
    if (n == 0) return;
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::write(out, buf.data() + done, n - done);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) throw std::system_error(errno, std::system_category(), "write");
      done += w;
    }
  }
}

// Copies with copy_file_range where the kernel can, finishing with
// read/write where it cannot (other filesystem, old kernel, special file).
void copy_contents(int in, int out, off_t size) {
  if (::ioctl(out, FICLONE, in) == 0) return;
  off_t copied = 0;
  for (;;) {
    ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, 1 << 30, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      copied += n;
      continue;
    }
    // 0 is EOF, unless the kernel copied less than the file holds (some
    // filesystems answer 0 instead of an error): let read() decide.
    if (n == 0 && copied >= size) return;
    if (n < 0 && errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP &&
        errno != EBADF && errno != EPERM)
      throw std::system_error(errno, std::system_category(), "copy_file_range");
    // copy_file_range advanced both offsets, so the fallback continues there.
    copy_by_reading(in, out);
    return;
  }
}

void copy_file(const std::string& source, const std::string& dest, off_t size) {
  Fd in(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) throw TraceError(source + ": cannot open for copying: " + errno_text(errno));
  Fd out(::open(dest.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444));
  if (out.get() < 0) throw TraceError(dest + ": cannot create: " + errno_text(errno));
  try {
    copy_contents(in.get(), out.get(), size);
    // Read-only whatever the umask: replay maps these, never changes them.
    if (::fchmod(out.get(), 0444) != 0) throw std::system_error(errno, std::system_category(), "fchmod");
    if (int err = out.close()) throw std::system_error(err, std::system_category(), "close");
  } catch (const std::system_error& e) {
    ::unlink(dest.c_str());
    throw TraceError(dest + ": copying " + source + " failed: " + e.what());
  }
}

}  // namespace

FileStore::FileStore(std::string trace_dir) : dir_(std::move(trace_dir)) {}

std::string FileStore::stored_name(const std::string& name_hint, uint64_t n) {
  std::string base = name_hint.substr(name_hint.rfind('/') + 1);
  for (char& c : base) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '+' || c == '-';
    if (!ok) c = '_';
  }
  if (base.size() > kMaxStoredNameLength) base.resize(kMaxStoredNameLength);
  if (base.empty() || base == "." || base == "..") base = "file";
  return base + "-" + std::to_string(n);
}

std::string FileStore::add(const std::string& source, const std::string& name_hint, bool may_link) {
  struct stat st;
  if (::stat(source.c_str(), &st) != 0) throw TraceError(source + ": cannot store in trace: " + errno_text(errno));
  if (!S_ISREG(st.st_mode)) throw TraceError(source + ": cannot store in trace: not a regular file");
  Identity id{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino), st.st_size,
              st.st_mtim.tv_sec, st.st_mtim.tv_nsec};
  if (auto it = stored_.find(id); it != stored_.end()) return it->second;

  std::string relative = std::string(kFilesDir) + "/" + stored_name(name_hint, next_id_);
  std::string dest = dir_ + "/" + relative;
  bool linked = false;
  if (may_link) {
    for (const std::string& candidate : link_candidates(source, name_hint)) {
      if ((linked = try_link(candidate, dest, st))) break;
    }
  }
  if (!linked) copy_file(source, dest, st.st_size);
  ++next_id_;
  stored_.emplace(id, relative);
  return relative;
}

}  // namespace backstep::trace
