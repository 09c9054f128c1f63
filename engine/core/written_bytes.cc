#include "engine/core/written_bytes.h"

#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <algorithm>

namespace backstep {
namespace {

// Bytes that make one call's data worth comparing; larger results (which the
// kernel never returns for a single write) are not read.
constexpr uint64_t kMaxWritten = uint64_t{1} << 31;

std::vector<uint8_t> read_buffer(Task& task, uint64_t addr, uint64_t len) {
  std::vector<uint8_t> out(len);
  out.resize(task.read_some(remote_ptr<void>(addr), out.data(), len));
  return out;
}

// The data of one msghdr: its iovecs, up to `len` bytes.
void append_msghdr_data(Task& task, uint64_t msg_addr, uint64_t len, std::vector<uint8_t>& out) {
  msghdr msg;
  if (task.read_some(remote_ptr<void>(msg_addr), &msg, sizeof(msg)) != sizeof(msg)) return;
  std::vector<uint8_t> data = gather_iovecs(task, reinterpret_cast<uint64_t>(msg.msg_iov), msg.msg_iovlen, len);
  out.insert(out.end(), data.begin(), data.end());
}

}  // namespace

std::vector<uint8_t> gather_iovecs(Task& task, uint64_t iov_addr, uint64_t iovcnt, uint64_t total) {
  std::vector<uint8_t> out;
  for (uint64_t i = 0; i < iovcnt && total > 0; ++i) {
    iovec v;
    if (task.read_some(remote_ptr<void>(iov_addr + i * sizeof(iovec)), &v, sizeof(v)) != sizeof(v)) break;
    uint64_t n = std::min<uint64_t>(v.iov_len, total);
    std::size_t old = out.size();
    out.resize(old + n);
    std::size_t got = task.read_some(remote_ptr<void>(reinterpret_cast<uint64_t>(v.iov_base)), out.data() + old, n);
    out.resize(old + got);
    if (got < n) break;
    total -= n;
  }
  return out;
}

bool is_write_like(uint64_t nr) {
  switch (nr) {
    case SYS_write: case SYS_pwrite64: case SYS_sendto: case SYS_writev: case SYS_pwritev: case SYS_pwritev2:
    case SYS_sendmsg: case SYS_sendmmsg:
      return true;
    default:
      return false;
  }
}

std::optional<std::vector<uint8_t>> read_written_bytes(Task& task, const Registers& entry, int64_t result) {
  if (result <= 0 || static_cast<uint64_t>(result) > kMaxWritten) return std::nullopt;
  uint64_t n = static_cast<uint64_t>(result);
  switch (entry.syscallno()) {
    case SYS_write:
    case SYS_pwrite64:
    case SYS_sendto:
      return read_buffer(task, entry.arg(1), n);
    case SYS_writev:
    case SYS_pwritev:
    case SYS_pwritev2:
      return gather_iovecs(task, entry.arg(1), entry.arg(2), n);
    case SYS_sendmsg: {
      std::vector<uint8_t> out;
      append_msghdr_data(task, entry.arg(1), n, out);
      return out;
    }
    case SYS_sendmmsg: {
      // The result counts messages; each one's msg_len says what it sent.
      std::vector<uint8_t> out;
      for (uint64_t i = 0; i < n && i < entry.arg(2); ++i) {
        uint64_t header = entry.arg(1) + i * sizeof(mmsghdr);
        unsigned sent = 0;
        if (task.read_some(remote_ptr<void>(header + offsetof(mmsghdr, msg_len)), &sent, sizeof(sent)) !=
            sizeof(sent)) {
          break;
        }
        append_msghdr_data(task, header, sent, out);
      }
      return out;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace backstep
