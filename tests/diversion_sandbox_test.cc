// The sandbox of a diversion (engine/timeline/diversion_sandbox.h), checked
// against the kernel itself: a child of this test installs the filter and
// makes calls, and each result must be what the allow-list says, whatever
// the call would have done without it (a file's mode, a file's existence).
#define BOOST_TEST_MODULE diversion_sandbox
#include <boost/test/unit_test.hpp>

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine/core/seccomp_filter.h"
#include "engine/timeline/diversion_sandbox.h"

using namespace backstep;

namespace {

constexpr uint64_t kHighBit = uint64_t{1} << 32;
constexpr long kX32 = 0x40000000;

// One call the child makes under the filter.
struct Call {
  const char* what;
  uint32_t arch;
  long nr;
  uint64_t args[6];
};

long call64(long nr, const uint64_t* a) {
  long ret;
  register uint64_t r10 __asm__("r10") = a[3];
  register uint64_t r8 __asm__("r8") = a[4];
  register uint64_t r9 __asm__("r9") = a[5];
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}

long call32(long nr, const uint64_t* a) {
  long ret;
  __asm__ volatile("int $0x80"
                   : "=a"(ret)
                   : "a"(nr), "b"(a[0]), "c"(a[1]), "d"(a[2])
                   : "memory");
  // The 32-bit ABI's result is eax.
  return static_cast<int32_t>(ret);
}

// Whether this kernel runs `int 0x80` at all (ia32 emulation can be off).
bool int80_works() {
  pid_t child = fork();
  if (child == 0) {
    signal(SIGSEGV, SIG_DFL);  // not the test framework's handler
    uint64_t none[6] = {};
    _exit(call32(20, none) > 0 ? 0 : 1);  // getpid
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Runs `calls` in a child under the filter; their results.
std::vector<long> run_filtered(const std::vector<Call>& calls) {
  auto* results = static_cast<long*>(
      mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  BOOST_REQUIRE(results != MAP_FAILED);
  std::vector<sock_filter> code = sandbox_filter();
  sock_fprog prog{static_cast<unsigned short>(code.size()), code.data()};
  pid_t child = fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    if (!load_seccomp_filter(prog)) _exit(3);
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const Call& c = calls[i];
      results[i] = c.arch == AUDIT_ARCH_X86_64 ? call64(c.nr, c.args) : call32(c.nr, c.args);
    }
    _exit(0);
  }
  int status = 0;
  BOOST_REQUIRE_EQUAL(waitpid(child, &status, 0), child);
  BOOST_REQUIRE_MESSAGE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the filtered child failed: " << status);
  std::vector<long> out(results, results + calls.size());
  munmap(results, 4096);
  return out;
}

seccomp_data as_data(const Call& c) {
  seccomp_data d{};
  d.nr = static_cast<int>(c.nr);
  d.arch = c.arch;
  for (int i = 0; i < 6; ++i) d.args[i] = c.args[i];
  return d;
}

struct Scratch {
  char dir[32] = "/tmp/backstep-sandbox-XXXXXX";
  std::string file;
  char* low = nullptr;  // the file's path below 4 GiB, for 32-bit calls
  int fd = -1;
  void* page = nullptr;

  Scratch() {
    BOOST_REQUIRE(mkdtemp(dir));
    file = std::string(dir) + "/target";
    fd = open(file.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    BOOST_REQUIRE(fd >= 0);
    BOOST_REQUIRE_EQUAL(write(fd, "x", 1), 1);
    low = static_cast<char*>(
        mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0));
    BOOST_REQUIRE(low != MAP_FAILED);
    std::strcpy(low, file.c_str());
    page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    BOOST_REQUIRE(page != MAP_FAILED);
  }
  ~Scratch() {
    close(fd);
    unlink(file.c_str());
    unlink((std::string(dir) + "/created").c_str());
    rmdir(dir);
  }
  mode_t mode() const {
    struct stat st {};
    return stat(file.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
  }
};

uint64_t u(const void* p) { return reinterpret_cast<uint64_t>(p); }

}  // namespace

BOOST_AUTO_TEST_CASE(the_kernel_enforces_the_allow_list) {
  Scratch s;
  std::string created = std::string(s.dir) + "/created";
  const uint64_t anon = MAP_PRIVATE | MAP_ANONYMOUS;
  std::vector<Call> calls = {
      {"getpid", AUDIT_ARCH_X86_64, SYS_getpid, {}},
      {"write to stderr, nothing", AUDIT_ARCH_X86_64, SYS_write, {2, u(""), 0}},
      {"write to another descriptor", AUDIT_ARCH_X86_64, SYS_write, {static_cast<uint64_t>(s.fd), u("y"), 1}},
      {"write to 1 with high bits set", AUDIT_ARCH_X86_64, SYS_write, {kHighBit | 1, u(""), 0}},
      {"anonymous mmap", AUDIT_ARCH_X86_64, SYS_mmap, {0, 4096, PROT_READ, anon, static_cast<uint64_t>(-1), 0}},
      {"mmap of a file", AUDIT_ARCH_X86_64, SYS_mmap, {0, 4096, PROT_READ, MAP_SHARED, static_cast<uint64_t>(s.fd), 0}},
      {"madvise DONTNEED", AUDIT_ARCH_X86_64, SYS_madvise, {u(s.page), 4096, MADV_DONTNEED}},
      {"madvise REMOVE", AUDIT_ARCH_X86_64, SYS_madvise, {u(s.page), 4096, MADV_REMOVE}},
      {"openat", AUDIT_ARCH_X86_64, SYS_openat, {static_cast<uint64_t>(AT_FDCWD), u(created.c_str()), O_CREAT | O_WRONLY, 0600}},
      {"chmod", AUDIT_ARCH_X86_64, SYS_chmod, {u(s.file.c_str()), 04777}},
      {"getppid", AUDIT_ARCH_X86_64, SYS_getppid, {}},
      {"kill", AUDIT_ARCH_X86_64, SYS_kill, {1, 0}},
      {"x32 getpid", AUDIT_ARCH_X86_64, kX32 | SYS_getpid, {}},
      {"x32 write to stderr", AUDIT_ARCH_X86_64, kX32 | SYS_write, {2, u(""), 0}},
  };
  bool with_int80 = int80_works();
  if (with_int80) {
    calls.push_back({"int 0x80 chmod (15, rt_sigreturn's number)", AUDIT_ARCH_I386, 15, {u(s.low), 04777}});
    calls.push_back({"int 0x80 unlink (10, mprotect's number)", AUDIT_ARCH_I386, 10, {u(s.low)}});
    calls.push_back({"int 0x80 getpid (20)", AUDIT_ARCH_I386, 20, {}});
  } else {
    BOOST_TEST_MESSAGE("this kernel does not run int 0x80: the 32-bit calls are not tried");
  }
  std::vector<long> results = run_filtered(calls);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    bool allowed = sandbox_allows(as_data(calls[i]));
    bool refused = results[i] == -ENOSYS;
    BOOST_TEST(allowed == !refused, calls[i].what << ": the kernel returned " << results[i]
                                                  << ", the allow-list says " << (allowed ? "allowed" : "refused"));
  }
  BOOST_TEST(results[0] > 0);   // getpid ran
  BOOST_TEST(results[1] == 0);  // an empty write to stderr ran
  BOOST_TEST(results[2] == -ENOSYS);
  BOOST_TEST(results[3] == -ENOSYS);
  BOOST_TEST(results[4] > 0);
  BOOST_TEST(results[5] == -ENOSYS);
  BOOST_TEST(results[6] == 0);
  BOOST_TEST(results[7] == -ENOSYS);
  BOOST_TEST(results[8] == -ENOSYS);
  BOOST_TEST(results[9] == -ENOSYS);
  // Nothing outside the child changed.
  BOOST_TEST(s.mode() == 0600u);
  BOOST_TEST(access(s.file.c_str(), F_OK) == 0);
  BOOST_TEST(access(created.c_str(), F_OK) != 0);
  struct stat st {};
  BOOST_TEST(fstat(s.fd, &st) == 0);
  BOOST_TEST(st.st_size == 1);
}

BOOST_AUTO_TEST_CASE(only_x86_64_calls_pass) {
  seccomp_data d{};
  d.nr = SYS_getpid;
  d.arch = AUDIT_ARCH_X86_64;
  BOOST_TEST(sandbox_allows(d));
  d.arch = AUDIT_ARCH_I386;
  BOOST_TEST(!sandbox_allows(d));
  d.arch = 0;
  BOOST_TEST(!sandbox_allows(d));
  d.arch = AUDIT_ARCH_X86_64;
  d.nr = static_cast<int>(kX32 | SYS_getpid);
  BOOST_TEST(!sandbox_allows(d));
  d.nr = -1;
  BOOST_TEST(!sandbox_allows(d));
}
