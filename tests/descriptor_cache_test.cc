// What the recorder remembers of a process's descriptors
// (engine/record/descriptor_cache.h), on this test process's own table:
// kept until a call that may close or replace one, never kept for a table
// not shared by the whole process, started afresh for a new process.
#define BOOST_TEST_MODULE descriptor_cache
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <linux/kcmp.h>
#include <sys/syscall.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "engine/record/descriptor_cache.h"
#include "tests/support/temp_dir.h"

namespace {

using backstep::DescriptorCache;
using backstep::testing::TempDir;

ino_t inode_of(const std::string& path) {
  struct stat st {};
  BOOST_REQUIRE(stat(path.c_str(), &st) == 0);
  return st.st_ino;
}

// Two files, and a descriptor of the first at `fd`.
struct Files {
  TempDir dir{"descriptor_cache_test"};
  std::string a = dir.sub("a"), b = dir.sub("b");
  int fd = -1;
  Files() {
    BOOST_REQUIRE(close(open(a.c_str(), O_CREAT | O_WRONLY, 0600)) == 0);
    BOOST_REQUIRE(close(open(b.c_str(), O_CREAT | O_WRONLY, 0600)) == 0);
    fd = open(a.c_str(), O_RDONLY | O_CLOEXEC);
    BOOST_REQUIRE(fd >= 0);
  }
  ~Files() { close(fd); }
  // Puts file b at `fd` behind the cache's back.
  void replace() {
    int other = open(b.c_str(), O_RDONLY | O_CLOEXEC);
    BOOST_REQUIRE(other >= 0);
    BOOST_REQUIRE(dup2(other, fd) == fd);
    close(other);
  }
};

const pid_t self = getpid();

}  // namespace

BOOST_AUTO_TEST_CASE(a_descriptor_is_looked_up_once_and_kept) {
  Files f;
  DescriptorCache cache;
  auto file = cache.file(self, f.fd);
  BOOST_REQUIRE(file);
  BOOST_TEST(file->ino == inode_of(f.a));
  BOOST_TEST(file->regular());
  BOOST_TEST(!file->proc);
  BOOST_TEST(!file->stdio);
  BOOST_TEST(cache.kept(self) == 1u);
  // Changed without telling the cache: it still answers what it kept,
  // which is why every call that closes or replaces one must tell it.
  f.replace();
  BOOST_TEST(cache.file(self, f.fd)->ino == inode_of(f.a));
}

BOOST_AUTO_TEST_CASE(a_call_that_may_replace_descriptors_drops_what_was_kept) {
  Files f;
  DescriptorCache cache;
  BOOST_REQUIRE(cache.file(self, f.fd));
  cache.table_changing(self);
  BOOST_TEST(cache.kept(self) == 0u);
  // While the call runs, answers are fresh and not kept.
  f.replace();
  BOOST_TEST(cache.file(self, f.fd)->ino == inode_of(f.b));
  BOOST_TEST(cache.kept(self) == 0u);
  cache.table_changed(self);
  BOOST_TEST(cache.file(self, f.fd)->ino == inode_of(f.b));
  BOOST_TEST(cache.kept(self) == 1u);
}

BOOST_AUTO_TEST_CASE(a_closed_descriptor_is_not_open_and_not_kept) {
  DescriptorCache cache;
  int fd = dup(0);
  BOOST_REQUIRE(fd >= 0);
  close(fd);
  BOOST_TEST(!cache.file(self, fd));
  BOOST_TEST(!cache.file(self, -1));
  BOOST_TEST(cache.kept(self) == 0u);
}

BOOST_AUTO_TEST_CASE(proc_files_are_told_apart) {
  int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
  BOOST_REQUIRE(fd >= 0);
  DescriptorCache cache;
  BOOST_TEST(cache.file(self, fd)->proc);
  close(fd);
}

BOOST_AUTO_TEST_CASE(a_copy_of_our_stdout_or_stderr_is_stdio) {
  DescriptorCache cache;
  int out = dup(1), err = dup(2);
  BOOST_REQUIRE(out >= 0 && err >= 0);
  BOOST_TEST(cache.stdio_stream(self, 1).value_or(0) == 1);
  BOOST_TEST(cache.stdio_stream(self, 2).value_or(0) == 2);
  BOOST_TEST(cache.stdio_stream(self, out).value_or(0) == 1);
  // Under ctest stderr may be stdout's very open file (2>&1): then a copy
  // of it is told as stdout.
  bool merged = syscall(SYS_kcmp, self, self, KCMP_FILE, 1, 2) == 0;
  BOOST_TEST(cache.stdio_stream(self, err).value_or(0) == (merged ? 1 : 2));
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  BOOST_TEST(!cache.stdio_stream(self, null).has_value());
  close(null);
  close(out);
  close(err);
}

BOOST_AUTO_TEST_CASE(a_thread_with_a_table_of_its_own_makes_its_process_keep_nothing) {
  Files f;
  DescriptorCache cache;
  BOOST_REQUIRE(cache.file(self, f.fd));
  cache.creating(self, CLONE_VM | CLONE_SIGHAND | CLONE_THREAD);  // no CLONE_FILES
  BOOST_TEST(cache.kept(self) == 0u);
  f.replace();
  BOOST_TEST(cache.file(self, f.fd)->ino == inode_of(f.b));
  BOOST_TEST(cache.kept(self) == 0u);
}

BOOST_AUTO_TEST_CASE(unshare_of_the_table_makes_its_process_keep_nothing) {
  Files f;
  DescriptorCache cache;
  BOOST_REQUIRE(cache.file(self, f.fd));
  cache.table_unshared(self);
  f.replace();
  BOOST_TEST(cache.file(self, f.fd)->ino == inode_of(f.b));
  BOOST_TEST(cache.kept(self) == 0u);
}

BOOST_AUTO_TEST_CASE(threads_sharing_the_table_share_what_is_kept) {
  Files f;
  DescriptorCache cache;
  int flags = CLONE_VM | CLONE_SIGHAND | CLONE_THREAD | CLONE_FILES;
  cache.creating(self, flags);
  constexpr pid_t kThread = 1 << 22;  // a made-up tid: never asked about the kernel
  cache.created(self, kThread, flags);
  BOOST_REQUIRE(cache.file(self, f.fd));
  BOOST_TEST(cache.kept(kThread) == 1u);
  cache.table_changing(kThread);  // the other thread closes something
  BOOST_TEST(cache.kept(self) == 0u);
}

BOOST_AUTO_TEST_CASE(a_new_process_starts_afresh_and_one_sharing_the_table_keeps_nothing) {
  Files f;
  DescriptorCache cache;
  BOOST_REQUIRE(cache.file(self, f.fd));
  constexpr pid_t kChild = 1 << 22;
  cache.created(self, kChild, 0);  // fork: a copy of the table
  BOOST_TEST(cache.kept(kChild) == 0u);
  BOOST_TEST(cache.kept(self) == 1u);
  cache.created(self, kChild + 1, CLONE_FILES);  // one table for both processes
  BOOST_TEST(cache.kept(self) == 0u);
  BOOST_REQUIRE(cache.file(self, f.fd));
  BOOST_TEST(cache.kept(self) == 0u);
}
