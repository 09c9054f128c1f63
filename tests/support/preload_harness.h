// The preload library's hook called directly, as the trampoline would, with
// a hand-built thread buffer: shared by the preload unit tests.
#pragma once

#include <boost/test/unit_test.hpp>

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "preload/preload_internal.h"

namespace backstep::testing::preload {

inline constexpr uint64_t kRecordsCapacity = BS_BUFFER_SIZE - BS_HOOK_STACK_SIZE - sizeof(bs_buffer_header);

// The tool page backstep maps in every recorded process, with the same
// `syscall; ret` at both entries. Mapped once; absent when something else
// already occupies the address (the tests that need it are then skipped).
inline bool map_tool_page() {
  void* want = reinterpret_cast<void*>(BS_TOOL_PAGE_ADDR);
  void* page = mmap(want, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (page != want) {
    if (page != MAP_FAILED) munmap(page, 4096);
    return false;
  }
  const unsigned char syscall_ret[] = {0x0f, 0x05, 0xc3};
  std::memcpy(reinterpret_cast<void*>(BS_UNTRACED_SYSCALL_ADDR), syscall_ret, sizeof(syscall_ret));
  std::memcpy(reinterpret_cast<void*>(BS_TRACED_SYSCALL_ADDR), syscall_ret, sizeof(syscall_ret));
  return mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0;
}

inline boost::test_tools::assertion_result tool_page_available(boost::unit_test::test_unit_id) {
  static const bool mapped = map_tool_page();
  boost::test_tools::assertion_result result(mapped);
  result.message() << "cannot map the tool page at 0x70000000";
  return result;
}

// A thread buffer as the recorder would have it after registration, shared
// with fork's children so that a test sees what a diverging child wrote.
struct Buffer {
  bs_buffer_header* header;
  explicit Buffer(bs_mode mode) {
    void* p = mmap(nullptr, BS_BUFFER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    BOOST_REQUIRE(p != MAP_FAILED);
    header = static_cast<bs_buffer_header*>(p);
    header->version = BS_PRELOAD_VERSION;
    header->mode = mode;
    bs_thread.buffer = header;
    bs_thread.status = BS_THREAD_READY;
  }
  ~Buffer() {
    bs_thread.buffer = nullptr;
    bs_thread.status = BS_THREAD_REFUSED;
    munmap(header, BS_BUFFER_SIZE);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void allow(int fd) { header->fd_allowed[fd / 64] |= uint64_t{1} << (fd % 64); }
  // The gate of calls that may block (a pipe or a socket).
  void allow_blocking(int fd) { header->fd_blocking[fd / 64] |= uint64_t{1} << (fd % 64); }
  const bs_record* record_at(uint32_t offset) const {
    return reinterpret_cast<const bs_record*>(reinterpret_cast<const unsigned char*>(header + 1) + offset);
  }
  const unsigned char* data_of(const bs_record* rec) const { return reinterpret_cast<const unsigned char*>(rec + 1); }
};

struct HookResult {
  bool handled;
  int64_t result;  // the saved rax after the hook
};

// Calls the hook as the trampoline would for `nr` with these arguments.
inline HookResult hook(long nr, std::initializer_list<uint64_t> args) {
  bs_saved_regs regs{};
  regs.rax = static_cast<uint64_t>(nr);
  int i = 0;
  for (uint64_t a : args) regs.args[i++] = a;
  bs_saved_regs before = regs;
  bool handled = bs_hook(&regs) != 0;
  if (!handled) BOOST_TEST(std::memcmp(&regs, &before, sizeof(regs)) == 0, "a call not handled changed the registers");
  return {handled, static_cast<int64_t>(regs.rax)};
}

inline uint64_t u(const void* p) { return reinterpret_cast<uint64_t>(p); }

}  // namespace backstep::testing::preload
