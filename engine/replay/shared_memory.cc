#include "engine/replay/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/proc_maps.h"
#include "engine/core/tool_page.h"
#include "engine/trace/trace_file.h"

namespace backstep {
namespace {

constexpr const char* kMemfdPrefix = "backstep-shared-";
// How /proc/PID/maps names our memfds: "/memfd:backstep-shared-7 (deleted)".
constexpr const char* kMapsPrefix = "/memfd:backstep-shared-";
// Anonymous objects are numbered by replay, above any recorded file object.
constexpr uint64_t kAnonymousIds = uint64_t{1} << 62;
constexpr uint32_t kMapTypeBits = MAP_SHARED | MAP_PRIVATE | MAP_SHARED_VALIDATE;


// The object a maps line shows, if it is one of ours.
bool object_of(const MapsEntry& e, uint64_t& id) {
  if (e.name.rfind(kMapsPrefix, 0) != 0) return false;
  const char* digits = e.name.c_str() + std::strlen(kMapsPrefix);
  char* end = nullptr;
  id = std::strtoull(digits, &end, 10);
  return end != digits;
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

// Copies [from, to) of `in` to the same offsets of `out`, a byte range at a
// time.
void copy_bytes(int in, int out, uint64_t from, uint64_t to, const std::string& what) {
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

// Copies [from, to) of `in` to the same offsets of `out`, holes as holes:
// a terabyte reserved by ftruncate and barely touched costs neither disk
// nor memory. Where `in` cannot tell its holes, copies every byte.
void copy_range(int in, int out, uint64_t from, uint64_t to, const std::string& what) {
  while (from < to) {
    off_t data = ::lseek(in, static_cast<off_t>(from), SEEK_DATA);
    if (data < 0 && errno != ENXIO) return copy_bytes(in, out, from, to, what);
    uint64_t data_at = data < 0 ? to : std::min<uint64_t>(static_cast<uint64_t>(data), to);
    if (data_at > from) {
      // A hole in `in`: zeros in `out` too, whatever it held.
      ::fallocate(out, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(from),
                  static_cast<off_t>(data_at - from));
    }
    if (data_at >= to) return;
    off_t hole = ::lseek(in, static_cast<off_t>(data_at), SEEK_HOLE);
    uint64_t hole_at = hole < 0 ? to : std::min<uint64_t>(static_cast<uint64_t>(hole), to);
    copy_bytes(in, out, data_at, hole_at, what);
    from = hole_at;
  }
}

uint64_t size_of(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw std::runtime_error(std::string("shared memory: fstat: ") + std::strerror(errno));
  return static_cast<uint64_t>(st.st_size);
}

// Points a checkpoint's alias `e` at its own copy `fd` of the object
// (`size` bytes). A private alias keeps what it holds: its pages below the
// end of the object are read first and written back over the new mapping
// (private copies then, which only matters if the file changes again).
void remap_alias(Task& child, const MapsEntry& e, uint64_t fd, uint64_t size) {
  std::vector<uint8_t> kept;
  if (!e.shared && size > e.offset) {
    uint64_t readable = std::min(e.end - e.start, ((size - e.offset) + 4095) & ~uint64_t{4095});
    kept.resize(readable);
    kept.resize(child.read_some(remote_ptr<void>(e.start), kept.data(), kept.size()));
  }
  int64_t r = tool_syscall(child, SYS_mmap, e.start, e.end - e.start, e.prot,
                           (e.shared ? MAP_SHARED : MAP_PRIVATE) | MAP_FIXED, fd, e.offset);
  if (r != static_cast<int64_t>(e.start)) {
    throw std::runtime_error("shared memory: cannot remap a checkpoint's copy: error " + std::to_string(-r));
  }
  if (!kept.empty()) child.write_bytes(remote_ptr<void>(e.start), kept.data(), kept.size());
}

// Opens backstep's descriptor `own` in `task` (through /proc), for one
// mmap; returns the task's descriptor or -errno.
int64_t open_in(Task& task, int own) {
  std::string path = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(own);
  task.write_bytes(kToolScratch, path.c_str(), path.size() + 1);
  return tool_syscall(task, SYS_openat, static_cast<uint64_t>(AT_FDCWD), kToolScratch.as_int(),
                      static_cast<uint64_t>(O_RDWR | O_CLOEXEC));
}

}  // namespace

SharedObjects::~SharedObjects() { close_all(); }

SharedObjects::SharedObjects(SharedObjects&& other) noexcept
    : fds_(std::exchange(other.fds_, {})),
      shares_(std::exchange(other.shares_, {})),
      next_anonymous_(other.next_anonymous_),
      spaces_(std::move(other.spaces_)) {}

SharedObjects& SharedObjects::operator=(SharedObjects&& other) noexcept {
  if (this != &other) {
    close_all();
    fds_ = std::exchange(other.fds_, {});
    shares_ = std::exchange(other.shares_, {});
    next_anonymous_ = other.next_anonymous_;
    spaces_ = std::move(other.spaces_);
  }
  return *this;
}

void SharedObjects::close_all() {
  for (const auto& [id, fd] : fds_) ::close(fd);
  fds_.clear();
  shares_.clear();
}

int SharedObjects::create(uint64_t id, uint64_t size) {
  std::string name = kMemfdPrefix + std::to_string(id);
  int fd = static_cast<int>(::syscall(SYS_memfd_create, name.c_str(), MFD_CLOEXEC));
  if (fd < 0) return -errno;
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    int e = errno;
    ::close(fd);
    return -e;
  }
  return fd;
}

void SharedObjects::forget_unmapped(Task& task) {
  std::vector<Task*> spaces = spaces_ ? spaces_() : std::vector<Task*>{};
  if (std::find(spaces.begin(), spaces.end(), &task) == spaces.end()) spaces.push_back(&task);
  std::set<uint64_t> mapped;
  for (Task* t : spaces) {
    for (const MapsEntry& e : read_proc_maps(t->tid())) {
      uint64_t id;
      if (object_of(e, id)) mapped.insert(id);
    }
  }
  for (auto it = fds_.begin(); it != fds_.end();) {
    if (mapped.count(it->first)) {
      ++it;
      continue;
    }
    ::close(it->second);
    shares_.erase(it->first);
    it = fds_.erase(it);
  }
}

std::string SharedObjects::unshare(uint64_t id, Task* also) {
  auto token = shares_.find(id);
  if (token == shares_.end()) return "";
  if (token->second.use_count() == 1) {  // the others are gone
    shares_.erase(token);
    return "";
  }
  auto it = fds_.find(id);
  if (it == fds_.end()) return "";
  uint64_t size = size_of(it->second);
  int fresh = create(id, size);
  if (fresh < 0) return "cannot copy shared object " + std::to_string(id) + ": " + std::strerror(-fresh);
  copy_range(it->second, fresh, 0, size, "a shared object");
  std::vector<Task*> spaces = spaces_ ? spaces_() : std::vector<Task*>{};
  if (also && std::find(spaces.begin(), spaces.end(), also) == spaces.end()) spaces.push_back(also);
  for (Task* t : spaces) {
    std::vector<MapsEntry> entries;
    for (const MapsEntry& e : read_proc_maps(t->tid())) {
      uint64_t of;
      if (object_of(e, of) && of == id) entries.push_back(e);
    }
    if (entries.empty()) continue;
    int64_t in_task = open_in(*t, fresh);
    if (in_task < 0) {
      ::close(fresh);
      return "cannot open a copy of shared object " + std::to_string(id) + " in the replayed process: error " +
             std::to_string(-in_task);
    }
    for (const MapsEntry& e : entries) remap_alias(*t, e, static_cast<uint64_t>(in_task), size);
    tool_syscall(*t, SYS_close, static_cast<uint64_t>(in_task));
  }
  ::close(it->second);
  it->second = fresh;
  shares_.erase(token);
  return "";
}

int64_t SharedObjects::map(Task& task, const trace::Mapping& m, const trace::TraceReader& reader) {
  if (!fds_.empty()) forget_unmapped(task);
  bool file = m.kind == trace::MappingKind::File;
  // Anonymous memory with a recorded object is a System V segment, which
  // every attachment shares; other shared anonymous memory is its own.
  uint64_t id = file || m.shared_object != 0 ? m.shared_object : kAnonymousIds + next_anonymous_++;
  // A new alias (perhaps shared, perhaps of a grown file) of an object
  // another session shares: this session's own copy first.
  if (std::string failed = unshare(id, &task); !failed.empty()) throw std::runtime_error("shared memory: " + failed);
  auto it = fds_.find(id);
  if (!file) {
    // Shared anonymous memory is an object of the mapping's size: the part
    // an mremap grows it by faults with SIGBUS, in replay as when recorded.
    // A segment attached again keeps its object (and bytes).
    if (it == fds_.end()) {
      int fd = create(id, m.end - m.start);
      if (fd < 0) return fd;
      it = fds_.emplace(id, fd).first;
    }
  } else {
    // A new object has the file's size when it was mapped (the copy's), so
    // that accesses past the end fault as they did; size notes follow the
    // file from there. An object still mapped keeps its bytes (the copy may
    // predate stores through the mapping: the recorder reuses an unchanged
    // file's copy), growing only if the file grew without a note (by another
    // process): the new part comes from the copy made at this mmap.
    std::string copy = reader.verified_file_path(m);
    trace::OpenedTraceFile opened = trace::open_trace_file(copy);
    Fd in(opened.fd.release());
    uint64_t size = size_of(in.get());
    if (it == fds_.end()) {
      int fd = create(id, size);
      if (fd < 0) return fd;
      it = fds_.emplace(id, fd).first;
      copy_range(in.get(), fd, 0, size, copy);
    } else {
      uint64_t have = size_of(it->second);
      if (have < size) {
        if (::ftruncate(it->second, static_cast<off_t>(size)) != 0) return -errno;
        copy_range(in.get(), it->second, have, size, copy);
      }
    }
  }
  // A private mapping of a file that may change size is a private mapping
  // of the object: its pages past the end fault until the file grows.
  uint32_t type = (m.flags & kMapTypeBits) == MAP_PRIVATE ? MAP_PRIVATE : MAP_SHARED;
  uint32_t flags = (m.flags & ~kMapTypeBits & ~MAP_ANONYMOUS & ~MAP_FIXED_NOREPLACE & ~MAP_GROWSDOWN) | type | MAP_FIXED;
  int64_t fd = open_in(task, it->second);
  if (fd < 0) return fd;
  int64_t r = tool_syscall(task, SYS_mmap, m.start, m.end - m.start, m.prot, flags, static_cast<uint64_t>(fd),
                           file ? m.offset : 0);
  tool_syscall(task, SYS_close, static_cast<uint64_t>(fd));
  return r;
}

std::string SharedObjects::resize(Task& task, uint64_t object, uint64_t size) {
  if (std::string failed = unshare(object, &task); !failed.empty()) return failed;
  auto it = fds_.find(object);
  if (it == fds_.end()) return "";
  if (::ftruncate(it->second, static_cast<off_t>(size)) == 0) return "";
  return "cannot resize shared object " + std::to_string(object) + " to " + std::to_string(size) + " bytes: " +
         std::strerror(errno);
}

std::string SharedObjects::write(uint64_t object, uint64_t offset, const std::vector<uint8_t>& data) {
  if (std::string failed = unshare(object, nullptr); !failed.empty()) return failed;
  auto it = fds_.find(object);
  if (it == fds_.end()) return "";
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::pwrite(it->second, data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "cannot write into shared object " + std::to_string(object) + ": " + std::strerror(errno);
    done += static_cast<std::size_t>(n);
  }
  return "";
}

SharedObjects SharedObjects::copy_into(const std::vector<Task*>& spaces) const {
  SharedObjects copy;
  copy.next_anonymous_ = next_anonymous_;
  if (fds_.empty()) return copy;
  // Every alias of every object, in every address space of the copy.
  std::map<uint64_t, std::map<Task*, std::vector<MapsEntry>>> aliases;
  for (Task* t : spaces) {
    for (const MapsEntry& e : read_proc_maps(t->tid())) {
      uint64_t id;
      if (object_of(e, id) && fds_.count(id)) aliases[id][t].push_back(e);
    }
  }
  for (const auto& [id, fd] : fds_) {
    auto found = aliases.find(id);
    if (found == aliases.end()) continue;  // unmapped: nothing to copy
    bool only_private = true;
    for (const auto& [task, entries] : found->second) {
      for (const MapsEntry& e : entries) only_private = only_private && !e.shared;
    }
    if (only_private) {
      // Nothing stores into it through memory: the copy shares the memfd
      // (its mappings, forked, already use it) until a write or a resize
      // (unshare).
      int dup = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
      if (dup < 0) throw std::runtime_error("shared memory: cannot share an object: " + std::string(std::strerror(errno)));
      copy.fds_.emplace(id, dup);
      std::shared_ptr<const int>& token = shares_[id];
      if (!token) token = std::make_shared<const int>(0);
      copy.shares_[id] = token;
      continue;
    }
    uint64_t size = size_of(fd);
    int fresh = copy.create(id, size);
    if (fresh < 0) {
      throw std::runtime_error("shared memory: cannot create a checkpoint's copy: " + std::string(std::strerror(-fresh)));
    }
    copy.fds_.emplace(id, fresh);
    copy_range(fd, fresh, 0, size, "a shared object");
    for (const auto& [task, entries] : found->second) {
      int64_t in_task = open_in(*task, fresh);
      if (in_task < 0) {
        throw std::runtime_error("shared memory: cannot open a checkpoint's copy in the replayed process: error " +
                                 std::to_string(-in_task));
      }
      for (const MapsEntry& e : entries) remap_alias(*task, e, static_cast<uint64_t>(in_task), size);
      tool_syscall(*task, SYS_close, static_cast<uint64_t>(in_task));
    }
  }
  return copy;
}

}  // namespace backstep
