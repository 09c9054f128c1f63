#include "engine/trace/file_digest.h"

#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <system_error>
#include <vector>

namespace backstep::trace {

namespace {

constexpr std::size_t kBlock = 1 << 20;

// Up to `size` bytes at `offset`; fewer only at the end of the file.
std::size_t read_at(int fd, uint8_t* buf, std::size_t size, uint64_t offset) {
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, buf + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::system_category(), "read");
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

struct StateDeleter {
  void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};

}  // namespace

FileDigest digest_of(int fd) {
  std::unique_ptr<XXH3_state_t, StateDeleter> state(XXH3_createState());
  if (!state || XXH3_64bits_reset(state.get()) == XXH_ERROR) throw std::system_error(ENOMEM, std::system_category(), "xxhash");
  std::vector<uint8_t> buf(kBlock);
  FileDigest d;
  for (;;) {
    std::size_t n = read_at(fd, buf.data(), buf.size(), d.size);
    if (n == 0) break;
    XXH3_64bits_update(state.get(), buf.data(), n);
    d.size += n;
  }
  d.hash = XXH3_64bits_digest(state.get());
  return d;
}

bool same_bytes(int a, int b, uint64_t size) {
  std::vector<uint8_t> x(kBlock), y(kBlock);
  for (uint64_t offset = 0;;) {
    std::size_t na = read_at(a, x.data(), x.size(), offset);
    std::size_t nb = read_at(b, y.data(), y.size(), offset);
    if (na != nb || std::memcmp(x.data(), y.data(), na) != 0) return false;
    if (na == 0) return offset == size;
    offset += na;
  }
}

}  // namespace backstep::trace
