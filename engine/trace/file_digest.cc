#include "engine/trace/file_digest.h"

#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <system_error>

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
  // Not zero-filled: every byte hashed was read first.
  auto buf = std::make_unique_for_overwrite<uint8_t[]>(kBlock);
  FileDigest d;
  for (;;) {
    std::size_t n = read_at(fd, buf.get(), kBlock, d.size);
    if (n == 0) break;
    XXH3_64bits_update(state.get(), buf.get(), n);
    d.size += n;
  }
  d.hash = XXH3_64bits_digest(state.get());
  return d;
}

bool same_bytes(int a, int b, uint64_t size) {
  auto x = std::make_unique_for_overwrite<uint8_t[]>(kBlock);
  auto y = std::make_unique_for_overwrite<uint8_t[]>(kBlock);
  for (uint64_t offset = 0;;) {
    std::size_t na = read_at(a, x.get(), kBlock, offset);
    std::size_t nb = read_at(b, y.get(), kBlock, offset);
    if (na != nb || std::memcmp(x.get(), y.get(), na) != 0) return false;
    if (na == 0) return offset == size;
    offset += na;
  }
}

std::string format_sums_line(const StoredFile& f) {
  char head[48];
  std::snprintf(head, sizeof head, "%016" PRIx64 " %" PRIu64 " ", f.hash, f.size);
  return head + f.path + "\n";
}

std::optional<StoredFile> parse_sums_line(const std::string& line) {
  std::size_t s1 = line.find(' ');
  if (s1 != 16) return std::nullopt;
  std::size_t s2 = line.find(' ', s1 + 1);
  if (s2 == std::string::npos || s2 == s1 + 1 || s2 + 1 == line.size()) return std::nullopt;
  StoredFile f;
  for (std::size_t i = 0; i < s1; ++i) {
    char c = line[i];
    int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (v < 0) return std::nullopt;
    f.hash = (f.hash << 4) | static_cast<uint64_t>(v);
  }
  if (s2 - s1 - 1 > 19) return std::nullopt;
  for (std::size_t i = s1 + 1; i < s2; ++i) {
    if (line[i] < '0' || line[i] > '9') return std::nullopt;
    uint64_t next = f.size * 10 + static_cast<uint64_t>(line[i] - '0');
    if (next / 10 != f.size) return std::nullopt;
    f.size = next;
  }
  f.path = line.substr(s2 + 1);
  return f;
}

}  // namespace backstep::trace
