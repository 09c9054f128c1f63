#include "engine/replay/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/proc_maps.h"
#include "engine/core/tool_page.h"

namespace backstep {
namespace {

constexpr const char* kMemfdPrefix = "backstep-shared-";
// How /proc/PID/maps names our memfds: "/memfd:backstep-shared-7 (deleted)".
constexpr const char* kMapsPrefix = "/memfd:backstep-shared-";
// Anonymous objects are numbered by replay, above any recorded file object.
constexpr uint64_t kAnonymousIds = uint64_t{1} << 62;
constexpr uint32_t kMapTypeBits = MAP_SHARED | MAP_PRIVATE | MAP_SHARED_VALIDATE;

uint64_t page_up(uint64_t v) { return (v + 4095) & ~uint64_t{4095}; }

// The object a maps line shows, if it is one of ours.
bool object_of(const MapsEntry& e, uint64_t& id) {
  if (e.name.rfind(kMapsPrefix, 0) != 0) return false;
  const char* digits = e.name.c_str() + std::strlen(kMapsPrefix);
  char* end = nullptr;
  id = std::strtoull(digits, &end, 10);
  return end != digits;
}

std::string proc_fd(const Task& task, int fd) {
  return "/proc/" + std::to_string(task.tid()) + "/fd/" + std::to_string(fd);
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Fd open_or_throw(const std::string& path, int flags) {
  Fd fd(::open(path.c_str(), flags | O_CLOEXEC));
  if (fd.get() < 0) throw std::runtime_error("shared memory: cannot open " + path + ": " + std::strerror(errno));
  return fd;
}

// Copies [from, to) of `in` to the same offsets of `out`.
void copy_range(int in, int out, uint64_t from, uint64_t to, const std::string& what) {
  std::vector<char> buf(1 << 20);
  while (from < to) {
    ssize_t n = ::pread(in, buf.data(), std::min<uint64_t>(buf.size(), to - from), static_cast<off_t>(from));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("shared memory: cannot read " + what + ": " + std::strerror(errno));
    if (n == 0) return;  // a short file: the rest reads as zeros, as in a mapping past EOF
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::pwrite(out, buf.data() + done, static_cast<size_t>(n - done), static_cast<off_t>(from + done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw std::runtime_error("shared memory: cannot fill an object from " + what + ": " + std::strerror(errno));
      done += w;
    }
    from += static_cast<uint64_t>(n);
  }
}

uint64_t size_of(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw std::runtime_error(std::string("shared memory: fstat: ") + std::strerror(errno));
  return static_cast<uint64_t>(st.st_size);
}

}  // namespace

int64_t SharedObjects::create(Task& task, uint64_t id, uint64_t size) {
  std::string name = kMemfdPrefix + std::to_string(id);
  task.write_bytes(kToolScratch, name.c_str(), name.size() + 1);
  int64_t fd = tool_syscall(task, SYS_memfd_create, kToolScratch.as_int(), 0);
  if (fd < 0) return fd;
  int64_t r = tool_syscall(task, SYS_ftruncate, static_cast<uint64_t>(fd), size);
  if (r < 0) {
    tool_syscall(task, SYS_close, static_cast<uint64_t>(fd));
    return r;
  }
  return fd;
}

void SharedObjects::forget_unmapped(Task& task) {
  std::set<uint64_t> mapped;
  for (const MapsEntry& e : read_proc_maps(task.tid())) {
    uint64_t id;
    if (object_of(e, id)) mapped.insert(id);
  }
  for (auto it = fds_.begin(); it != fds_.end();) {
    if (mapped.count(it->first)) {
      ++it;
      continue;
    }
    tool_syscall(task, SYS_close, static_cast<uint64_t>(it->second));
    it = fds_.erase(it);
  }
}

int64_t SharedObjects::map(Task& task, const trace::Mapping& m, const trace::TraceReader& reader) {
  if (!fds_.empty()) forget_unmapped(task);
  bool file = m.kind == trace::MappingKind::File;
  uint64_t id = file ? m.shared_object : kAnonymousIds + next_anonymous_++;
  uint64_t needed = page_up((file ? m.offset : 0) + (m.end - m.start));
  auto it = fds_.find(id);
  if (it == fds_.end()) {
    uint64_t size = needed;
    std::string copy;
    if (file) {
      copy = reader.verified_file_path(m);
      size = std::max(size, size_of(open_or_throw(copy, O_RDONLY).get()));
    }
    int64_t fd = create(task, id, size);
    if (fd < 0) return fd;
    it = fds_.emplace(id, static_cast<int>(fd)).first;
    if (file) {
      Fd in = open_or_throw(copy, O_RDONLY);
      Fd out = open_or_throw(proc_fd(task, it->second), O_RDWR);
      copy_range(in.get(), out.get(), 0, size, copy);
    }
  } else if (file) {
    // Another alias is still mapped: share its memory. The file may have
    // grown since (write(2) past the old end): take the new part from the
    // trace's copy made at this mmap.
    Fd out = open_or_throw(proc_fd(task, it->second), O_RDWR);
    uint64_t have = size_of(out.get());
    if (have < needed) {
      std::string copy = reader.verified_file_path(m);
      Fd in = open_or_throw(copy, O_RDONLY);
      if (::ftruncate(out.get(), static_cast<off_t>(needed)) != 0) return -errno;
      copy_range(in.get(), out.get(), have, needed, copy);
    }
  }
  uint32_t flags = (m.flags & ~kMapTypeBits & ~MAP_ANONYMOUS & ~MAP_FIXED_NOREPLACE & ~MAP_GROWSDOWN) |
                   MAP_SHARED | MAP_FIXED;
  return tool_syscall(task, SYS_mmap, m.start, m.end - m.start, m.prot, flags, static_cast<uint64_t>(it->second),
                      file ? m.offset : 0);
}

SharedObjects SharedObjects::copy_into(Task& child) const {
  SharedObjects copy;
  copy.next_anonymous_ = next_anonymous_;
  if (fds_.empty()) return copy;
  std::map<uint64_t, std::vector<MapsEntry>> aliases;
  for (const MapsEntry& e : read_proc_maps(child.tid())) {
    uint64_t id;
    if (object_of(e, id) && fds_.count(id)) aliases[id].push_back(e);
  }
  for (const auto& [id, fd] : fds_) {
    auto found = aliases.find(id);
    if (found == aliases.end()) {
      tool_syscall(child, SYS_close, static_cast<uint64_t>(fd));  // unmapped: nothing to copy
      continue;
    }
    Fd in = open_or_throw(proc_fd(child, fd), O_RDONLY);
    uint64_t size = size_of(in.get());
    int64_t fresh = copy.create(child, id, size);
    if (fresh < 0) throw std::runtime_error("shared memory: cannot create a checkpoint's copy: error " + std::to_string(-fresh));
    Fd out = open_or_throw(proc_fd(child, static_cast<int>(fresh)), O_RDWR);
    copy_range(in.get(), out.get(), 0, size, "a shared object");
    for (const MapsEntry& e : found->second) {
      int64_t r = tool_syscall(child, SYS_mmap, e.start, e.end - e.start, e.prot, MAP_SHARED | MAP_FIXED,
                               static_cast<uint64_t>(fresh), e.offset);
      if (r != static_cast<int64_t>(e.start)) {
        throw std::runtime_error("shared memory: cannot remap a checkpoint's copy: error " + std::to_string(-r));
      }
    }
    // The copy takes the original's descriptor number, so that the table
    // reads the same in both processes.
    if (tool_syscall(child, SYS_dup2, static_cast<uint64_t>(fresh), static_cast<uint64_t>(fd)) != fd) {
      throw std::runtime_error("shared memory: cannot move a checkpoint's copy into place");
    }
    tool_syscall(child, SYS_close, static_cast<uint64_t>(fresh));
    copy.fds_.emplace(id, fd);
  }
  return copy;
}

}  // namespace backstep
