// Storing mapped files: the shared store's copy when it holds the same bytes,
// else a reflink, else a kernel-side copy, else a plain read/write copy.
#include "engine/trace/file_store.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <utility>
#include <vector>

#include "engine/trace/file_digest.h"
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

// The directory holding `dir` (which has no trailing slash).
std::string parent_dir(const std::string& dir) {
  std::size_t slash = dir.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : dir.substr(0, slash);
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

// Copies only the data of a sparse file (a memfd a runtime sized to
// reserve a terabyte of heap, a database file with holes): the holes stay
// holes in the copy, which reads the same. False when `in` cannot tell
// where its holes are, or has none; then nothing was written.
bool copy_sparse(int in, int out, off_t size) {
  off_t data = ::lseek(in, 0, SEEK_DATA);
  if (data < 0 && errno != ENXIO) return false;
  off_t hole = data < 0 ? size : ::lseek(in, data, SEEK_HOLE);
  if (hole < 0) return false;
  if (data >= 0 && data == 0 && hole >= size) return false;  // no holes: copy it whole
  while (data >= 0 && data < size) {
    hole = ::lseek(in, data, SEEK_HOLE);
    if (hole < 0) throw std::system_error(errno, std::system_category(), "lseek");
    off_t from = data;
    while (from < hole) {
      ssize_t n = ::copy_file_range(in, &from, out, &from, static_cast<size_t>(hole - from), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        // Not across these filesystems: read and write this extent.
        std::vector<char> buf(1 << 20);
        while (from < hole) {
          ssize_t r = ::pread(in, buf.data(), std::min<off_t>(static_cast<off_t>(buf.size()), hole - from), from);
          if (r < 0 && errno == EINTR) continue;
          if (r < 0) throw std::system_error(errno, std::system_category(), "read");
          if (r == 0) break;
          for (ssize_t done = 0; done < r;) {
            ssize_t w = ::pwrite(out, buf.data() + done, static_cast<size_t>(r - done), from + done);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) throw std::system_error(errno, std::system_category(), "write");
            done += w;
          }
          from += r;
        }
        break;
      }
    }
    data = ::lseek(in, hole, SEEK_DATA);
    if (data < 0 && errno != ENXIO) throw std::system_error(errno, std::system_category(), "lseek");
  }
  if (::ftruncate(out, size) != 0) throw std::system_error(errno, std::system_category(), "ftruncate");
  return true;
}

// Copies with copy_file_range where the kernel can, finishing with
// read/write where it cannot (other filesystem, old kernel, special file).
void copy_contents(int in, int out, off_t size) {
  if (::ioctl(out, FICLONE, in) == 0) return;
  if (copy_sparse(in, out, size)) return;
  // SEEK_DATA and SEEK_HOLE moved the offset the copies below start from.
  if (::lseek(in, 0, SEEK_SET) != 0) throw std::system_error(errno, std::system_category(), "lseek");
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

// Copies the file open at `in` to the new file `dest`, with mode `mode`, and
// returns the digest of the copy: of what replay will map, whatever the
// source did meanwhile.
FileDigest copy_file(int in, const std::string& source, const std::string& dest, mode_t mode, off_t size) {
  // Owner-writable only while it is filled; no other bits until it is full.
  Fd out(::open(dest.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (out.get() < 0) throw TraceError(dest + ": cannot create: " + errno_text(errno));
  try {
    copy_contents(in, out.get(), size);
    // Never writable, whatever the umask: replay maps these, never changes them.
    if (::fchmod(out.get(), mode) != 0) throw std::system_error(errno, std::system_category(), "fchmod");
    FileDigest digest = digest_of(out.get());
    if (int err = out.close()) throw std::system_error(err, std::system_category(), "close");
    return digest;
  } catch (const std::system_error& e) {
    ::unlink(dest.c_str());
    throw TraceError(dest + ": copying " + source + " failed: " + e.what());
  }
}

}  // namespace

FileStore::FileStore(std::string trace_dir) : dir_(std::move(trace_dir)) {
  shared_ = SharedFiles::open(parent_dir(dir_));
  if (shared_) shared_->collect_unused();
}

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

StoredFile FileStore::add(const std::string& source, const std::string& name_hint) {
  auto fail = [&](const std::string& why) { throw TraceError(source + ": cannot store in trace: " + why); };
  Fd in(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) fail(errno_text(errno));
  struct stat st;
  if (::fstat(in.get(), &st) != 0) fail(errno_text(errno));
  if (!S_ISREG(st.st_mode)) fail("not a regular file");
  Identity id{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino), st.st_size,
              st.st_mtim.tv_sec, st.st_mtim.tv_nsec};
  if (auto it = stored_.find(id); it != stored_.end()) return it->second;

  StoredFile stored;
  stored.path = std::string(kFilesDir) + "/" + stored_name(name_hint, next_id_);
  std::string dest = dir_ + "/" + stored.path;
  const mode_t mode = copy_mode(st.st_mode);
  std::optional<FileDigest> digest;
  if (shared_) {
    try {
      FileDigest source_digest = digest_of(in.get());
      if (shared_->link_existing(source_digest, mode, in.get(), dest)) digest = source_digest;
    } catch (const std::system_error& e) {
      fail(e.what());
    }
  }
  if (!digest) {
    digest = copy_file(in.get(), source, dest, mode, st.st_size);
    if (shared_) shared_->publish(dest, *digest, mode);
  }
  stored.size = digest->size;
  stored.hash = digest->hash;
  ++next_id_;
  stored_.emplace(id, stored);
  listed_.push_back(stored);
  write_sums();
  return stored;
}

void FileStore::write_sums() const {
  std::string text;
  for (const StoredFile& f : listed_) text += format_sums_line(f);
  std::string path = dir_ + "/" + kFileSumsFile;
  std::string tmp = path + ".new";
  ::unlink(tmp.c_str());  // left by a failed rewrite
  Fd out(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444));
  if (out.get() < 0) throw TraceError(tmp + ": cannot create: " + errno_text(errno));
  for (std::size_t done = 0; done < text.size();) {
    ssize_t n = ::write(out.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw TraceError(tmp + ": write failed: " + errno_text(errno));
    done += static_cast<std::size_t>(n);
  }
  if (int err = out.close()) throw TraceError(tmp + ": write failed: " + errno_text(err));
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw TraceError(path + ": cannot replace: " + errno_text(errno));
}

}  // namespace backstep::trace
