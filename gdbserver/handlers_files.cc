// vFile: the client reads the recorded program and libraries from the trace
// (the host's copies may have changed or be gone), and the debugged
// process's /proc/PID/cmdline, cwd and exe as they were recorded (gdb's
// `info proc`). Read-only.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "gdbserver/gdb_session.h"

namespace backstep::gdb {
namespace {

// GDB File-I/O errno values.
constexpr int kFioEperm = 1, kFioEnoent = 2, kFioEbadf = 9, kFioEacces = 13, kFioEinval = 22, kFioEmfile = 24;
constexpr uint64_t kFioAccessMask = 3;  // O_RDONLY 0, O_WRONLY 1, O_RDWR 2

// The file of /proc/<pid>/ that `path` names for the debugged process (by
// its recorded pid or the one the client was told), or "".
std::string proc_entry(const std::string& path, std::int64_t pid, std::int64_t wire_pid) {
  for (std::int64_t p : {pid, wire_pid}) {
    std::string prefix = "/proc/" + std::to_string(p) + "/";
    if (path.rfind(prefix, 0) == 0) return path.substr(prefix.size());
  }
  return "";
}

// A read-only descriptor holding `text` (memfd; pread and fstat work on it).
int text_file(const std::string& text) {
  int fd = memfd_create("backstep-proc", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    close(fd);
    return -1;
  }
  return fd;
}

void put_be(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

void GdbSession::handle(const rsp::FileOpen& r) {
  if ((r.flags & kFioAccessMask) != 0) {
    reply(rsp::file_error(kFioEacces));  // the recording is read-only
    return;
  }
  if (files_.size() >= kMaxOpenFiles) {
    reply(rsp::file_error(kFioEmfile));  // the client must close some first
    return;
  }
  int fd = -1;
  if (proc_entry(r.path, target_.process_id(), wire_pid()) == "cmdline") {
    // NUL after each argument, as the kernel gives it.
    std::string text;
    for (const std::string& arg : target_.command_line()) text += arg + '\0';
    fd = text_file(text);
  } else {
    std::optional<std::string> path = target_.recorded_file(r.path);
    if (!path) {
      reply(rsp::file_error(kFioEnoent));
      return;
    }
    fd = open(path->c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) {
    reply(rsp::file_error(kFioEnoent));
    return;
  }
  int id = next_file_++;
  files_[id] = fd;
  reply(rsp::file_result(id));
}

void GdbSession::handle(const rsp::FileClose& r) {
  auto it = files_.find(static_cast<int>(r.fd));
  if (it == files_.end()) {
    reply(rsp::file_error(kFioEbadf));
    return;
  }
  close(it->second);
  files_.erase(it);
  reply(rsp::file_result(0));
}

void GdbSession::handle(const rsp::FilePread& r) {
  auto it = files_.find(static_cast<int>(r.fd));
  if (it == files_.end()) {
    reply(rsp::file_error(kFioEbadf));
    return;
  }
  std::string data(static_cast<std::size_t>(std::min<uint64_t>(r.count, kMaxFileRead)), '\0');
  ssize_t n = pread(it->second, data.data(), data.size(), static_cast<off_t>(r.offset));
  if (n < 0) {
    reply(rsp::file_error(kFioEinval));
    return;
  }
  data.resize(static_cast<std::size_t>(n));
  reply(rsp::file_data(data));
}

void GdbSession::handle(const rsp::FileFstat& r) {
  auto it = files_.find(static_cast<int>(r.fd));
  struct stat st {};
  if (it == files_.end() || fstat(it->second, &st) != 0) {
    reply(rsp::file_error(kFioEbadf));
    return;
  }
  // gdb's struct fio_stat: big-endian fields.
  std::string out;
  put_be(out, st.st_dev, 4);
  put_be(out, st.st_ino, 4);
  put_be(out, st.st_mode, 4);
  put_be(out, st.st_nlink, 4);
  put_be(out, st.st_uid, 4);
  put_be(out, st.st_gid, 4);
  put_be(out, st.st_rdev, 4);
  put_be(out, static_cast<uint64_t>(st.st_size), 8);
  put_be(out, static_cast<uint64_t>(st.st_blksize), 8);
  put_be(out, static_cast<uint64_t>(st.st_blocks), 8);
  put_be(out, static_cast<uint64_t>(st.st_atime), 4);
  put_be(out, static_cast<uint64_t>(st.st_mtime), 4);
  put_be(out, static_cast<uint64_t>(st.st_ctime), 4);
  reply(rsp::file_data(out));
}

void GdbSession::handle(const rsp::FileReadlink& r) {
  std::string entry = proc_entry(r.path, target_.process_id(), wire_pid());
  if (entry == "exe") {
    reply(rsp::file_data(target_.exe_path()));
  } else if (entry == "cwd") {
    reply(rsp::file_data(target_.start_directory()));
  } else {
    reply(rsp::file_error(kFioEinval));
  }
}

void GdbSession::handle(const rsp::FileUnlink&) { reply(rsp::file_error(kFioEperm)); }

}  // namespace backstep::gdb
