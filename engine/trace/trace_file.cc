#include "engine/trace/trace_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

#include "engine/trace/printable.h"
#include "engine/trace/trace_error.h"

namespace backstep::trace {
namespace {

[[noreturn]] void not_regular(const std::string& path, mode_t mode) {
  throw TraceError("trace file " + printable(path) + " is " + file_type_name(mode) + ", not a regular file");
}

std::optional<OpenedTraceFile> open_checked(const std::string& path, bool optional) {
  // lstat first: a FIFO or a device is refused without being opened at all
  // (opening some devices does something). The check on the open file
  // below is the one that counts, should the name change in between.
  struct stat before;
  if (::lstat(path.c_str(), &before) != 0) {
    if (errno == ENOENT && optional) return std::nullopt;
    throw TraceError(printable(path) + ": cannot open: " + std::system_category().message(errno));
  }
  if (!S_ISREG(before.st_mode)) not_regular(path, before.st_mode);
  OpenedTraceFile f;
  f.fd = TraceFileFd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (f.fd.get() < 0) {
    if (errno == ELOOP) not_regular(path, S_IFLNK);
    if (errno == ENOENT && optional) return std::nullopt;
    throw TraceError(printable(path) + ": cannot open: " + std::system_category().message(errno));
  }
  if (::fstat(f.fd.get(), &f.st) != 0) throw TraceError(printable(path) + ": cannot stat: " + std::system_category().message(errno));
  if (!S_ISREG(f.st.st_mode)) not_regular(path, f.st.st_mode);
  return f;
}

}  // namespace

TraceFileFd::~TraceFileFd() {
  if (fd_ >= 0) ::close(fd_);
}

TraceFileFd& TraceFileFd::operator=(TraceFileFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

OpenedTraceFile open_trace_file(const std::string& path) { return std::move(*open_checked(path, false)); }

std::optional<OpenedTraceFile> open_trace_file_if_present(const std::string& path) { return open_checked(path, true); }

std::string file_type_name(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFLNK: return "a symbolic link";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
  }
  return "a file of unknown type";
}

void check_no_linked_directories(const std::string& dir, const std::string& relative) {
  for (std::size_t slash = relative.find('/'); slash != std::string::npos; slash = relative.find('/', slash + 1)) {
    if (slash == 0 || relative[slash - 1] == '/') continue;  // an empty component
    std::string path = dir + "/" + relative.substr(0, slash);
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) throw TraceError(printable(path) + ": missing from the trace: " + std::system_category().message(errno));
    if (!S_ISDIR(st.st_mode))
      throw TraceError("trace directory " + printable(path) + " is " + file_type_name(st.st_mode) + ", not a directory");
  }
}

}  // namespace backstep::trace
