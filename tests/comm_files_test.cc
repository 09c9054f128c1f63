// Thread names written through /proc/.../comm, as replay follows them
// (engine/replay/comm_files.h): which paths name a thread's comm file, and
// which descriptors refer to one across opens, dups and closes.
#define BOOST_TEST_MODULE comm_files
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>

#include <cstring>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>

#include "engine/replay/comm_files.h"

namespace {

using backstep::CommFiles;
using backstep::Registers;

constexpr uint32_t kCaller = 1002, kProcess = 1000;

std::optional<uint32_t> thread_of(const std::string& path) {
  return CommFiles::thread_of_path(path, kCaller, kProcess);
}

// The program's memory: strings at made-up addresses.
struct Memory {
  std::map<uint64_t, std::string> at;
  CommFiles::ReadMemory reader() {
    return [this](uint64_t addr, void* buf, std::size_t len) -> std::size_t {
      for (const auto& [start, bytes] : at) {
        std::size_t size = bytes.size() + 1;  // with its NUL
        if (addr < start || addr >= start + size) continue;
        std::size_t n = std::min(len, start + size - addr);
        std::memcpy(buf, bytes.c_str() + (addr - start), n);
        return n;
      }
      return 0;
    };
  }
};

Registers call(long nr, std::initializer_list<uint64_t> args) {
  Registers r;
  r.set_syscallno(static_cast<uint64_t>(nr));
  int i = 0;
  for (uint64_t a : args) r.set_arg(i++, a);
  return r;
}

struct Program {
  Memory memory;
  CommFiles files;
  std::optional<CommFiles::Rename> run(long nr, std::initializer_list<uint64_t> args, int64_t result) {
    return files.after_call(call(nr, args), result, kCaller, kProcess, memory.reader());
  }
  // openat(AT_FDCWD, path) returning `fd`.
  void open(const std::string& path, int fd) {
    uint64_t addr = 0x10000 + memory.at.size() * 0x1000;
    memory.at[addr] = path;
    run(SYS_openat, {static_cast<uint64_t>(AT_FDCWD), addr, O_WRONLY}, fd);
  }
  // write(fd, name) that returned `result`: the thread renamed, if any.
  std::optional<CommFiles::Rename> write(int fd, const std::string& name, int64_t result) {
    memory.at[0x90000] = name;
    return run(SYS_write, {static_cast<uint64_t>(fd), 0x90000, name.size()}, result);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(paths_of_comm_files_name_their_thread) {
  BOOST_TEST(thread_of("/proc/self/task/1005/comm").value_or(0) == 1005);
  BOOST_TEST(thread_of("/proc/1000/task/1005/comm").value_or(0) == 1005);
  BOOST_TEST(thread_of("/proc/thread-self/comm").value_or(0) == kCaller);
  // A process's comm is its first thread's, whichever thread writes it.
  BOOST_TEST(thread_of("/proc/self/comm").value_or(0) == kProcess);
  BOOST_TEST(thread_of("/proc/1005/comm").value_or(0) == 1005);
  BOOST_TEST(thread_of("//proc/./self//task/1005/comm").value_or(0) == 1005);
}

BOOST_AUTO_TEST_CASE(other_paths_name_no_thread) {
  for (const char* path : {"/proc/self/task/1005/stat", "/proc/self/task/x/comm", "/proc/self/task/1005",
                           "proc/self/comm", "/proc/self/comm/x", "/tmp/proc/self/comm", "/proc/comm",
                           "/proc/thread-self/task/1005/comm", "/proc/self/task/1005/../1006/comm",
                           "/proc/-5/comm", "/proc/self/fd/3/comm", ""}) {
    BOOST_TEST(!thread_of(path).has_value(), path);
  }
}

BOOST_AUTO_TEST_CASE(a_write_to_a_comm_file_renames_its_thread) {
  Program p;
  p.open("/proc/self/task/1005/comm", 7);
  auto renamed = p.write(7, "worker", 6);
  BOOST_REQUIRE(renamed);
  BOOST_TEST(renamed->tid == 1005u);
  BOOST_TEST(renamed->name == "worker");
  // The kernel keeps 15 bytes, up to a NUL.
  BOOST_TEST(p.write(7, "a-name-longer-than-fifteen", 26)->name == "a-name-longer-t");
  BOOST_TEST(p.write(7, std::string("ab\0cd", 5), 5)->name == "ab");
  // A failed write (EINVAL: another process's thread) renames nothing.
  BOOST_TEST(!p.write(7, "worker", -22).has_value());
  // Nor does a write to any other descriptor.
  BOOST_TEST(!p.write(8, "worker", 6).has_value());
}

BOOST_AUTO_TEST_CASE(pwrite_renames_too) {
  Program p;
  p.open("/proc/thread-self/comm", 4);
  p.memory.at[0x90000] = "positioned";
  auto renamed = p.run(SYS_pwrite64, {4, 0x90000, 10, 0}, 10);
  BOOST_REQUIRE(renamed);
  BOOST_TEST(renamed->tid == kCaller);
  BOOST_TEST(renamed->name == "positioned");
}

BOOST_AUTO_TEST_CASE(a_closed_or_reused_descriptor_is_no_longer_a_comm_file) {
  Program p;
  p.open("/proc/self/comm", 5);
  p.run(SYS_close, {5}, 0);
  BOOST_TEST(!p.write(5, "x", 1).has_value());
  // Closed even when close reports EINTR.
  p.open("/proc/self/comm", 5);
  p.run(SYS_close, {5}, -4);
  BOOST_TEST(!p.write(5, "x", 1).has_value());
  // A number opened again for another file.
  p.open("/proc/self/comm", 5);
  p.open("/tmp/other", 5);
  BOOST_TEST(!p.write(5, "x", 1).has_value());
  // close_range, but not with CLOSE_RANGE_CLOEXEC.
  p.open("/proc/self/comm", 6);
  p.run(SYS_close_range, {3, 10, CLOSE_RANGE_CLOEXEC}, 0);
  BOOST_TEST(p.write(6, "x", 1).has_value());
  p.run(SYS_close_range, {3, 10, 0}, 0);
  BOOST_TEST(!p.write(6, "x", 1).has_value());
}

BOOST_AUTO_TEST_CASE(copies_of_a_comm_file_descriptor_follow_it) {
  Program p;
  p.open("/proc/self/task/1005/comm", 3);
  p.run(SYS_dup, {3}, 9);
  BOOST_TEST(p.write(9, "a", 1)->tid == 1005u);
  p.run(SYS_fcntl, {3, F_DUPFD_CLOEXEC, 20}, 20);
  BOOST_TEST(p.write(20, "b", 1)->tid == 1005u);
  p.open("/tmp/other", 4);
  p.run(SYS_dup2, {4, 9}, 9);  // replaced by another file
  BOOST_TEST(!p.write(9, "c", 1).has_value());
  p.run(SYS_dup3, {3, 4, O_CLOEXEC}, 4);
  BOOST_TEST(p.write(4, "d", 1)->tid == 1005u);
}

BOOST_AUTO_TEST_CASE(an_unreadable_path_names_no_thread) {
  Program p;
  p.run(SYS_open, {0xdead0000, O_WRONLY}, 3);
  BOOST_TEST(!p.write(3, "x", 1).has_value());
}
