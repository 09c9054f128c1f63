// backstep's own stdout and stderr, and which of the recorded program's
// descriptors reach them: what the program writes there is kept in the
// trace, so that replay re-emits it (trace::StdioEcho).
#pragma once

#include <sys/types.h>

#include <optional>
#include <utility>
#include <vector>

namespace backstep {

class OriginalStdio {
 public:
  OriginalStdio();  // looks at fds 1 and 2 now

  // 1 (stdout) or 2 (stderr) when the program's `fd` of thread `tid`, the
  // file (`dev`, `ino`), is the same file as ours, whatever its number: fd 1
  // or 2 themselves, a dup/dup2/F_DUPFD copy, /dev/stdout opened anew.
  // nullopt otherwise.
  std::optional<int> stream_of(pid_t tid, int fd, dev_t dev, ino_t ino) const;
  // The files (dev, ino) behind our stdout and stderr, those open.
  std::vector<std::pair<dev_t, ino_t>> files() const;

 private:
  struct File {
    bool open = false;
    dev_t dev = 0;
    ino_t ino = 0;
  };
  File out_, err_;
};

}  // namespace backstep
