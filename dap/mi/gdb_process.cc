#include "dap/mi/gdb_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace backstep::dap::mi {
namespace {

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

GdbProcess::GdbProcess(const std::vector<std::string>& argv) {
  int to_gdb[2], from_gdb[2];
  if (pipe2(to_gdb, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + strerror(errno));
  if (pipe2(from_gdb, O_CLOEXEC) != 0) {
    close(to_gdb[0]);
    close(to_gdb[1]);
    throw std::runtime_error(std::string("pipe: ") + strerror(errno));
  }
  std::vector<char*> c_argv;
  for (const std::string& s : argv) c_argv.push_back(const_cast<char*>(s.c_str()));
  c_argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) {
    int e = errno;
    for (int fd : {to_gdb[0], to_gdb[1], from_gdb[0], from_gdb[1]}) close(fd);
    throw std::runtime_error(std::string("fork: ") + strerror(e));
  }
  if (pid_ == 0) {
    // gdb gets its own process group: a ^C meant for the adapter's
    // terminal must not stop it mid-command.
    setpgid(0, 0);
    dup2(to_gdb[0], STDIN_FILENO);
    dup2(from_gdb[1], STDOUT_FILENO);
    execvp(c_argv[0], c_argv.data());
    // Seen by the adapter as a log line, then the end of gdb's output.
    dprintf(from_gdb[1], "&\"cannot start %s: %s\\n\"\n", c_argv[0], strerror(errno));
    _exit(127);
  }
  close(to_gdb[0]);
  close(from_gdb[1]);
  in_fd_ = to_gdb[1];
  out_fd_ = from_gdb[0];
  fcntl(out_fd_, F_SETFL, fcntl(out_fd_, F_GETFL) | O_NONBLOCK);
}

GdbProcess::~GdbProcess() {
  close_fd(in_fd_);
  close_fd(out_fd_);
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

std::uint64_t GdbProcess::write_command(std::string_view command) {
  std::uint64_t token = next_token_++;
  std::string line = std::to_string(token);
  line.append(command);
  line.push_back('\n');
  std::size_t done = 0;
  while (done < line.size()) {
    if (in_fd_ < 0) throw std::runtime_error("gdb has exited");
    ssize_t n = write(in_fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("cannot write to gdb: ") + strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return token;
}

bool GdbProcess::read_records(std::vector<Record>& out) {
  if (out_fd_ < 0) return false;
  char buf[65536];
  for (;;) {
    ssize_t n = read(out_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n <= 0) {
      close_fd(out_fd_);
      close_fd(in_fd_);
      return false;
    }
    partial_.append(buf, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(partial_.data() + start, nl - start);
      auto parsed = parse_record(line);
      if (auto* rec = std::get_if<Record>(&parsed)) {
        out.push_back(std::move(*rec));
      } else {
        Record log;
        log.kind = RecordKind::Log;
        log.text = "backstep dap: unparsed gdb output (" + std::get<ParseError>(parsed).what + "): " +
                   std::string(line) + "\n";
        out.push_back(std::move(log));
      }
    }
    partial_.erase(0, start);
  }
}

bool GdbProcess::wait_exit(int timeout_ms) {
  if (reaped_ || pid_ <= 0) return true;
  // A pidfd becomes readable when the process exits: one bounded wait.
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
  if (pidfd >= 0) {
    pollfd p{pidfd, POLLIN, 0};
    while (poll(&p, 1, timeout_ms) < 0 && errno == EINTR) {
    }
    close(pidfd);
  }
  int status;
  pid_t r;
  while ((r = waitpid(pid_, &status, WNOHANG)) < 0 && errno == EINTR) {
  }
  if (r == pid_ || (r < 0 && errno == ECHILD)) reaped_ = true;
  return reaped_;
}

}  // namespace backstep::dap::mi
