#include "engine/record/buffer_view.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "values/log.h"
#include "engine/core/pagemap.h"
#include "engine/core/task.h"
#include "engine/core/tool_page.h"

namespace backstep {
namespace {

constexpr uint64_t kPage = 4096;
constexpr char kMemfdName[] = "backstep-buffer";

bool failed(int64_t r) { return r < 0 && r >= -4095; }

// Calls fn(offset, page, length) for each page of `contents` that holds
// anything: the rest is written into fresh (zero) memory, where zero pages
// cost nothing until written; most of a new buffer was never touched.
template <typename Fn>
void for_each_used_page(const uint8_t* contents, uint64_t size, Fn fn) {
  for (uint64_t at = 0; at < size; at += kPage) {
    uint64_t n = std::min(kPage, size - at);
    const uint8_t* page = contents + at;
    if (std::any_of(page, page + n, [](uint8_t b) { return b != 0; })) fn(at, page, n);
  }
}

// The task's bytes at [addr, addr + size) into `dst` (zeros), reading only
// the pages it touched: a fresh buffer holds the library's header only.
bool read_touched_pages(Task& task, uint64_t addr, uint64_t size, uint8_t* dst) {
  std::vector<bool> touched = Pagemap(task.tid()).touched(addr, size);
  for (std::size_t i = 0; i < touched.size(); ++i) {
    uint64_t at = i * kPage, n = std::min(kPage, size - at);
    if (touched[i] && task.read_some(remote_ptr<void>(addr + at), dst + at, n) != n) return false;
  }
  return true;
}

// A memfd of `size` bytes in the task, open here as well (`own`); the task's
// descriptor, or -errno with nothing left open.
int64_t memfd_in(Task& task, uint64_t size, int& own, std::vector<siginfo_t>& held) {
  task.write_bytes(kToolScratch, kMemfdName, sizeof(kMemfdName));
  int64_t fd = tool_syscall_holding(task, held, SYS_memfd_create, {kToolScratch.as_int(), MFD_CLOEXEC, 0, 0, 0, 0});
  if (failed(fd)) return fd;
  // The recorder traces the task: it may open the task's descriptors.
  std::string path = "/proc/" + std::to_string(task.tid()) + "/fd/" + std::to_string(fd);
  own = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  int err = errno;
  if (own >= 0 && ::ftruncate(own, static_cast<off_t>(size)) != 0) {
    err = errno;
    ::close(own);
    own = -1;
  }
  if (own < 0) {
    tool_syscall_holding(task, held, SYS_close, {static_cast<uint64_t>(fd), 0, 0, 0, 0, 0});
    return -err;
  }
  return fd;
}

}  // namespace

std::unique_ptr<BufferView> BufferView::share(Task& task, uint64_t addr, uint64_t size, const uint8_t* contents,
                                              std::vector<siginfo_t>& held) {
  int own = -1;
  int64_t fd = memfd_in(task, size, own, held);
  if (failed(fd)) {
    BS_LOG(Record, "thread " << task.tid() << ": no shared view of its syscall buffer (memfd: error " << -fd << ")");
    return nullptr;
  }
  void* here = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, own, 0);
  ::close(own);
  auto close_theirs = [&] { tool_syscall_holding(task, held, SYS_close, {static_cast<uint64_t>(fd), 0, 0, 0, 0, 0}); };
  if (here == MAP_FAILED) {
    close_theirs();
    return nullptr;
  }
  auto* base = static_cast<uint8_t*>(here);
  if (contents) {
    for_each_used_page(contents, size, [&](uint64_t at, const uint8_t* page, uint64_t n) { std::memcpy(base + at, page, n); });
  } else if (!read_touched_pages(task, addr, size, base)) {
    ::munmap(here, size);
    close_theirs();
    return nullptr;
  }
  int64_t r = tool_syscall_holding(task, held, SYS_mmap,
                                   {addr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, static_cast<uint64_t>(fd), 0});
  close_theirs();
  if (static_cast<uint64_t>(r) != addr) {
    // A failed MAP_FIXED may have unmapped the range already.
    std::vector<uint8_t> back(base, base + size);
    ::munmap(here, size);
    if (!make_buffer_private(task, addr, size, back.data(), held)) {
      char where[32];
      std::snprintf(where, sizeof(where), "0x%llx", static_cast<unsigned long long>(addr));
      throw std::runtime_error("thread " + std::to_string(task.tid()) + ": its syscall buffer at " + where +
                               " could not be mapped again (error " + std::to_string(-r) + ")");
    }
    return nullptr;
  }
  return std::unique_ptr<BufferView>(new BufferView(base, addr, size));
}

BufferView::~BufferView() { ::munmap(base_, size_); }

bool make_buffer_private(Task& task, uint64_t addr, uint64_t size, const uint8_t* contents,
                         std::vector<siginfo_t>& held) {
  int64_t r = tool_syscall_holding(task, held, SYS_mmap,
                                   {addr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                                    static_cast<uint64_t>(-1), 0});
  if (static_cast<uint64_t>(r) != addr) return false;
  for_each_used_page(contents, size, [&](uint64_t at, const uint8_t* page, uint64_t n) {
    task.write_bytes(remote_ptr<void>(addr + at), page, n);
  });
  return true;
}

}  // namespace backstep
