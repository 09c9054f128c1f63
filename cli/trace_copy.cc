#include "cli/trace_copy.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "engine/trace/printable.h"
#include "engine/trace/trace_file.h"

namespace backstep::cli {

void copy_trace_file(const std::string& from, const std::string& to) {
  trace::OpenedTraceFile in = trace::open_trace_file(from);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(to).parent_path(), ec);
  auto fail = [&](const std::string& why) {
    throw std::runtime_error("cannot copy " + trace::printable(from) + " to " + trace::printable(to) + ": " + why);
  };
  if (ec) fail(ec.message());
  // O_EXCL | O_NOFOLLOW: never through a link someone left at `to`.
  trace::TraceFileFd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (out.get() < 0) {
    if (errno == EEXIST) return;
    fail(std::strerror(errno));
  }
  std::vector<char> buf(1 << 20);
  for (;;) {
    ssize_t n = ::read(in.fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(std::strerror(errno));
    if (n == 0) break;
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::write(out.get(), buf.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) fail(std::strerror(errno));
      done += w;
    }
  }
  // The copy keeps the trace copy's execute bits (a program, ld.so).
  if (::fchmod(out.get(), (in.st.st_mode & 0555) | 0600) != 0) fail(std::strerror(errno));
}

bool is_shared_object(const std::string& path) {
  trace::OpenedTraceFile f = trace::open_trace_file(path);
  unsigned char head[18] = {};
  if (::pread(f.fd.get(), head, sizeof head, 0) != static_cast<ssize_t>(sizeof head)) return false;
  return std::memcmp(head, "\x7f" "ELF", 4) == 0 && head[16] == 3 && head[17] == 0;  // e_type ET_DYN, LE
}

bool is_plain_absolute_path(const std::string& path) {
  if (path.empty() || path[0] != '/' || path.find('\0') != std::string::npos) return false;
  for (std::size_t start = 1; start <= path.size();) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string_view part(path.data() + start, end - start);
    if (part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

}  // namespace backstep::cli
