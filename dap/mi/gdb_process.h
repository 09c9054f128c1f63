// gdb running under --interpreter=mi3 as a child process, over two pipes:
// commands go in with a numeric token each, records come out parsed. The
// caller polls output_fd() and calls read_records(); nothing here blocks
// except write_command() on a full pipe (gdb reads its input whenever it
// is not busy, and an MI command line is short).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dap/mi/mi_record.h"

namespace backstep::dap::mi {

class GdbProcess {
 public:
  // Starts `argv` (argv[0] found on PATH). Throws std::runtime_error when it
  // cannot be started; an exec failure shows as gdb's output ending.
  explicit GdbProcess(const std::vector<std::string>& argv);
  ~GdbProcess();  // ends gdb (SIGKILL) if it is still there, and reaps it
  GdbProcess(const GdbProcess&) = delete;
  GdbProcess& operator=(const GdbProcess&) = delete;

  // Writes "<token><command>\n"; returns the token. Throws when gdb has gone.
  std::uint64_t write_command(std::string_view command);

  int output_fd() const { return out_fd_; }
  // Reads what gdb has written, without waiting, and appends its complete
  // lines as records; a line that does not parse becomes a Log record
  // naming the error (so it is seen, never lost). False once gdb's output
  // has ended (it exited or closed it).
  bool read_records(std::vector<Record>& out);

  // Waits up to `timeout_ms` for gdb to exit; true when it has (reaped).
  bool wait_exit(int timeout_ms);
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int in_fd_ = -1;
  int out_fd_ = -1;
  std::uint64_t next_token_ = 1;
  std::string partial_;  // a line not yet ended
  bool reaped_ = false;
};

}  // namespace backstep::dap::mi
