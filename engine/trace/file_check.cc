// Replay's check of the files it maps: a copy in `files/` changed after the
// recording (edited, truncated, damaged on disk) would make the program see
// bytes that never existed, so it is refused before it is mapped.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <map>
#include <mutex>
#include <system_error>
#include <tuple>

#include "engine/trace/file_digest.h"
#include "engine/trace/format.h"
#include "engine/trace/reader.h"
#include "engine/trace/printable.h"
#include "engine/trace/trace_error.h"
#include "engine/trace/trace_file.h"

namespace backstep::trace {

namespace {

// A file's state as far as a change to its content goes: writing changes
// mtime and ctime, replacing it changes the inode.
using FileState = std::tuple<dev_t, ino_t, off_t, time_t, long, time_t, long>;

FileState state_of(const struct stat& st) {
  return {st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ctim.tv_sec,
          st.st_ctim.tv_nsec};
}

// A files.sums larger than this is not one the recorder wrote (a line per
// copy, and a recording maps thousands of files at most).
constexpr std::size_t kMaxSumsFileSize = 64u << 20;

// Content hashes already computed in this process, shared by every reader
// (each checkpoint opens its own).
std::mutex hashed_mu;
std::map<FileState, uint64_t> hashed;

// Checks the copy at `relative` against its recorded size and hash;
// returns its absolute path.
std::string check_copy(const TraceReader& reader, const std::string& relative, uint64_t size, uint64_t hash_recorded) {
  std::string path = reader.file_path(relative);
  auto changed = [&](const std::string& what) {
    throw TraceError(reader.dir() + ": trace file " + printable(relative) + " was changed after recording: " + what);
  };
  auto size_changed = [&](uint64_t now) {
    changed("size " + std::to_string(now) + ", recorded " + std::to_string(size));
  };
  OpenedTraceFile file = open_trace_file(path);
  const int fd = file.fd.get();
  const struct stat& st = file.st;
  if (static_cast<uint64_t>(st.st_size) != size) size_changed(static_cast<uint64_t>(st.st_size));
  FileState state = state_of(st);
  std::optional<uint64_t> hash;
  {
    std::lock_guard lock(hashed_mu);
    if (auto it = hashed.find(state); it != hashed.end()) hash = it->second;
  }
  if (!hash) {
    FileDigest d;
    try {
      d = digest_of(fd);
    } catch (const std::system_error& e) {
      throw TraceError(printable(path) + ": cannot read: " + e.what());
    }
    // Read to its end: a size that moved while hashing is a change too.
    if (d.size != size) size_changed(d.size);
    hash = d.hash;
    std::lock_guard lock(hashed_mu);
    hashed[state] = *hash;
  }
  if (*hash != hash_recorded) changed("its content hash differs from the recorded one");
  return path;
}

}  // namespace

std::string TraceReader::verified_file_path(const Mapping& m) const {
  return check_copy(*this, m.file, m.file_size, m.file_hash);
}

void TraceReader::verify_files() const {
  std::string sums = dir() + "/" + kFileSumsFile;
  std::optional<OpenedTraceFile> file = open_trace_file_if_present(sums);
  if (!file) {
    // A recording killed before it stored any file has neither.
    std::error_code ec;
    if (std::filesystem::is_empty(dir() + "/" + kFilesDir, ec) || ec) return;
    throw TraceError(sums + ": missing, but files/ holds copies: the trace is damaged");
  }
  if (static_cast<uint64_t>(file->st.st_size) > kMaxSumsFileSize)
    throw TraceError(sums + ": damaged (" + std::to_string(file->st.st_size) + " bytes)");
  std::string text(static_cast<std::size_t>(file->st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    ssize_t n = ::pread(file->fd.get(), text.data() + got, text.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw TraceError(sums + ": cannot read: " + std::system_category().message(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  int number = 1;
  for (std::size_t at = 0; at < text.size(); ++number) {
    std::size_t end = text.find('\n', at);
    // Every line ends with a newline: a last one without is damage.
    std::optional<StoredFile> f = end == std::string::npos ? std::nullopt : parse_sums_line(text.substr(at, end - at));
    if (!f) throw TraceError(sums + ": line " + std::to_string(number) + " is damaged");
    check_copy(*this, f->path, f->size, f->hash);
    at = end + 1;
  }
}

}  // namespace backstep::trace
