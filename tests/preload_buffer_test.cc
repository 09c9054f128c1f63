// The preload library's hook (preload/syscall_hook.c and the record and
// replay files), called directly with a hand-built buffer: what a buffered
// call records, that replay returns the same results and outputs without
// the kernel, when a call is not handled, and how a divergence is reported.
#define BOOST_TEST_MODULE preload_buffer
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <thread>
#include <vector>

#include "preload/preload_internal.h"
#include "tests/support/preload_harness.h"
#include "tests/support/temp_dir.h"

namespace {

using namespace backstep::testing::preload;

std::string file_content() {
  std::string s;
  for (int i = 0; i < 100; ++i) s.push_back(static_cast<char>('A' + i % 26));
  return s;
}

int open_test_file(const backstep::testing::TempDir& dir) {
  int fd = open(dir.sub("data").c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  BOOST_REQUIRE(fd >= 0);
  std::string content = file_content();
  BOOST_REQUIRE(write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
  BOOST_REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
  return fd;
}

// The program's memory that the calls below write.
struct Outputs {
  char read_buf[64];
  char pread_buf[50];
  struct stat st;
  timespec ts;
  void clear() { std::memset(this, 0, sizeof(*this)); }
};

// read, pread64, fstat, write, getpid, clock_gettime on `fd`; each must be
// handled. Returns their results.
std::vector<int64_t> make_calls(int fd, Outputs& out) {
  static const char kWritten[] = "XYZ";
  std::vector<int64_t> results;
  for (HookResult r : {hook(SYS_read, {uint64_t(fd), u(out.read_buf), sizeof(out.read_buf)}),
                       hook(SYS_pread64, {uint64_t(fd), u(out.pread_buf), sizeof(out.pread_buf), 10}),
                       hook(SYS_fstat, {uint64_t(fd), u(&out.st)}),
                       hook(SYS_write, {uint64_t(fd), u(kWritten), 3}),
                       hook(SYS_getpid, {}),
                       hook(SYS_clock_gettime, {CLOCK_MONOTONIC, u(&out.ts)})}) {
    BOOST_TEST(r.handled);
    results.push_back(r.result);
  }
  return results;
}

}  // namespace

// Natively the registration call is unknown (-ENOSYS): the constructor left
// the main thread refused, and a new thread's first call is refused too.
BOOST_AUTO_TEST_CASE(natively_every_thread_is_refused) {
  BOOST_TEST(bs_thread.status == unsigned{BS_THREAD_REFUSED});
  BOOST_TEST(bs_thread.buffer == nullptr);
  bs_buffer_header* buffer = reinterpret_cast<bs_buffer_header*>(1);
  uint32_t status = 0;
  std::thread([&] {
    buffer = bs_thread_buffer();
    status = bs_thread.status;
  }).join();
  BOOST_TEST(buffer == nullptr);
  BOOST_TEST(status == unsigned{BS_THREAD_REFUSED});
}

namespace {

// A seccomp filter that answers the registration call with 0 when its
// arguments are a buffer of BS_BUFFER_SIZE, the stub area's size and the
// library's version (what backstep's recorder checks), EINVAL otherwise.
void accept_registration() {
  auto low_arg = [](int i) { return static_cast<uint32_t>(offsetof(seccomp_data, args) + 8 * i); };
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BS_CALL_REGISTER_BUFFER, 0, 8),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, low_arg(1)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BS_BUFFER_SIZE, 0, 5),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, low_arg(3)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BS_STUB_AREA_SIZE, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, low_arg(5)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BS_PRELOAD_VERSION, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(std::size(filter)), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(20);
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) _exit(21);
}

}  // namespace

// When backstep accepts the registration (here a seccomp filter stands in
// for it), the thread keeps its buffer, with the library's version in it
// and no mode until backstep writes one.
BOOST_AUTO_TEST_CASE(an_accepted_registration_keeps_the_buffer) {
  pid_t child = fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    accept_registration();
    bs_thread.status = BS_THREAD_NEW;
    bs_thread.buffer = nullptr;
    bs_buffer_header* header = bs_thread_buffer();
    if (!header || bs_thread.status != BS_THREAD_READY) _exit(1);
    if (header->version != BS_PRELOAD_VERSION || header->mode != BS_MODE_OFF) _exit(2);
    if (bs_thread_buffer() != header) _exit(3);  // registered once
    bs_saved_regs regs{};
    regs.rax = SYS_getpid;
    if (bs_hook(&regs) != 0) _exit(4);  // mode off: traced
    header->used = 8;  // the buffer is writable, and BS_BUFFER_SIZE long
    reinterpret_cast<volatile char*>(header)[BS_BUFFER_SIZE - 1] = 1;
    // A thread's first call registers on the program's stack and asks the
    // trampoline to call again, on the buffer's stack; then as any call.
    bs_thread.status = BS_THREAD_NEW;
    bs_thread.buffer = nullptr;
    regs.rax = SYS_getpid;
    if (bs_hook(&regs) != BS_HOOK_AGAIN) _exit(5);
    if (bs_thread.buffer == nullptr || bs_hook(&regs) != 0) _exit(6);
    _exit(0);
  }
  int status = 0;
  BOOST_REQUIRE(waitpid(child, &status, 0) == child);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0);
}

BOOST_AUTO_TEST_CASE(records_then_replays_without_the_kernel, *boost::unit_test::precondition(tool_page_available)) {
  backstep::testing::TempDir dir("preload_buffer_test");
  int fd = open_test_file(dir);
  Buffer buffer(BS_MODE_RECORD);
  buffer.allow(fd);
  const std::string content = file_content();

  Outputs recorded{};
  std::vector<int64_t> results = make_calls(fd, recorded);
  BOOST_TEST(results == (std::vector<int64_t>{64, 50, 0, 3, getpid(), 0}), boost::test_tools::per_element());
  BOOST_TEST(std::memcmp(recorded.read_buf, content.data(), 64) == 0);
  BOOST_TEST(std::memcmp(recorded.pread_buf, content.data() + 10, 50) == 0);
  BOOST_TEST(recorded.st.st_size == 100);
  char written[3] = {};
  BOOST_TEST(pread(fd, written, 3, 64) == 3);  // the write really happened, after the read's 64 bytes
  BOOST_TEST(std::string(written, 3) == "XYZ");

  // The records, in order: size, nr, ret, outputs, check.
  const bs_buffer_header* h = buffer.header;
  BOOST_TEST(h->busy == 0u);
  BOOST_TEST(h->calls == 6u);
  struct Expect {
    long nr;
    uint32_t size;
    uint32_t out_len;
    const void* data;
  } expect[] = {{SYS_read, 40 + 64, 64, content.data()},
                {SYS_pread64, 40 + 56, 50, content.data() + 10},
                {SYS_fstat, 40 + 144, 144, &recorded.st},
                {SYS_write, 40, 0, nullptr},
                {SYS_getpid, 40, 0, nullptr},
                {SYS_clock_gettime, 40 + 16, 16, &recorded.ts}};
  uint32_t offset = 0;
  for (size_t i = 0; i < std::size(expect); ++i) {
    const bs_record* rec = buffer.record_at(offset);
    BOOST_TEST_CONTEXT("record " << i) {
      BOOST_TEST(rec->nr == expect[i].nr);
      BOOST_TEST(rec->size == expect[i].size);
      BOOST_TEST(rec->ret == results[i]);
      BOOST_TEST(rec->out_len[0] == expect[i].out_len);
      BOOST_TEST(rec->out_len[1] == 0u);
      if (expect[i].data) BOOST_TEST(std::memcmp(buffer.data_of(rec), expect[i].data, expect[i].out_len) == 0);
      BOOST_TEST(rec->check == (rec->nr == SYS_write ? bs_hash("XYZ", 3) : 0));
    }
    offset += rec->size;
  }
  BOOST_TEST(h->used == offset);

  // Replay: the descriptor is closed, so only the records can answer.
  BOOST_REQUIRE(close(fd) == 0);
  buffer.header->mode = BS_MODE_REPLAY;
  buffer.header->cursor = 0;
  Outputs replayed{};
  std::vector<int64_t> replayed_results = make_calls(fd, replayed);
  BOOST_TEST(replayed_results == results, boost::test_tools::per_element());
  BOOST_TEST(std::memcmp(replayed.read_buf, recorded.read_buf, sizeof(recorded.read_buf)) == 0);
  BOOST_TEST(std::memcmp(replayed.pread_buf, recorded.pread_buf, sizeof(recorded.pread_buf)) == 0);
  BOOST_TEST(std::memcmp(&replayed.st, &recorded.st, sizeof(recorded.st)) == 0);
  BOOST_TEST(replayed.ts.tv_sec == recorded.ts.tv_sec);
  BOOST_TEST(replayed.ts.tv_nsec == recorded.ts.tv_nsec);
  BOOST_TEST(h->cursor == h->used);
  BOOST_TEST(h->calls == 12u);
  BOOST_TEST(h->busy == 0u);

  // No record left: the traced path, as when recording stopped buffering.
  char more[8];
  BOOST_TEST(!hook(SYS_read, {uint64_t(fd), u(more), sizeof(more)}).handled);
  BOOST_TEST(h->calls == 12u);
}

BOOST_AUTO_TEST_CASE(calls_that_take_the_traced_path, *boost::unit_test::precondition(tool_page_available)) {
  backstep::testing::TempDir dir("preload_buffer_test");
  int fd = open_test_file(dir);
  Buffer buffer(BS_MODE_RECORD);
  bs_buffer_header* h = buffer.header;
  char buf[64];

  // A descriptor whose bit is clear, out of range, or negative.
  BOOST_TEST(!hook(SYS_read, {uint64_t(fd), u(buf), sizeof(buf)}).handled);
  BOOST_TEST(!hook(SYS_read, {BS_MAX_FDS, u(buf), sizeof(buf)}).handled);
  BOOST_TEST(!hook(SYS_read, {uint64_t(-1), u(buf), sizeof(buf)}).handled);
  buffer.allow(fd);
  // Calls not in the table, and numbers beyond any.
  BOOST_TEST(!hook(SYS_openat, {uint64_t(AT_FDCWD), u("/"), O_RDONLY}).handled);
  BOOST_TEST(!hook(SYS_accept, {uint64_t(fd), 0, 0}).handled);
  BOOST_TEST(!hook(1000, {}).handled);
  BOOST_TEST(!hook(-1, {}).handled);
  BOOST_TEST(h->used == 0u);
  BOOST_TEST(lseek(fd, 0, SEEK_CUR) == 0);  // nothing was read

  // yield: this one call is traced, and the flag is consumed.
  h->yield = 1;
  BOOST_TEST(!hook(SYS_getpid, {}).handled);
  BOOST_TEST(h->yield == 0u);
  BOOST_TEST(hook(SYS_getpid, {}).handled);
  uint32_t used = h->used;

  // No room for the record and the output's bound (the count, not the
  // result): 40 + 64 bytes needed.
  h->used = static_cast<uint32_t>(kRecordsCapacity - 100);
  BOOST_TEST(!hook(SYS_read, {uint64_t(fd), u(buf), sizeof(buf)}).handled);
  h->used = static_cast<uint32_t>(kRecordsCapacity - 104);
  BOOST_TEST(hook(SYS_read, {uint64_t(fd), u(buf), sizeof(buf)}).handled);
  BOOST_TEST(h->used == kRecordsCapacity);
  h->used = used;
  // A count no buffer holds, even near 2^64 (no overflow).
  BOOST_TEST(!hook(SYS_read, {uint64_t(fd), u(buf), uint64_t{1} << 40}).handled);
  BOOST_TEST(!hook(SYS_read, {uint64_t(fd), u(buf), ~uint64_t{0}}).handled);
  BOOST_TEST(h->used == used);

  // Not registered (mode off), or the thread's registration was refused.
  h->mode = BS_MODE_OFF;
  BOOST_TEST(!hook(SYS_getpid, {}).handled);
  h->mode = BS_MODE_RECORD;
  bs_thread.status = BS_THREAD_REFUSED;
  BOOST_TEST(!hook(SYS_getpid, {}).handled);
  bs_thread.status = BS_THREAD_READY;
  BOOST_TEST(h->busy == 0u);
  close(fd);
}

BOOST_AUTO_TEST_CASE(failed_calls_record_no_output, *boost::unit_test::precondition(tool_page_available)) {
  Buffer buffer(BS_MODE_RECORD);
  buffer.allow(900);  // not open
  struct stat st;
  HookResult r = hook(SYS_fstat, {900, u(&st)});
  BOOST_TEST(r.handled);
  BOOST_TEST(r.result == -EBADF);
  const bs_record* rec = buffer.record_at(0);
  BOOST_TEST(rec->ret == -EBADF);
  BOOST_TEST(rec->out_len[0] == 0u);
  BOOST_TEST(rec->size == 40u);
  // A null pointer: the call succeeds, nothing is copied.
  r = hook(SYS_time, {0});
  BOOST_TEST(r.handled);
  BOOST_TEST(r.result > 0);
  BOOST_TEST(buffer.record_at(40)->out_len[0] == 0u);
}

// ioctl: buffered for the requests the spec lists (TCGETS, TIOCGPGRP,
// TIOCGWINSZ, FIONREAD) on any descriptor, each recording the fixed size it
// writes; any other request takes the traced path (its handler). Replayed
// with every descriptor closed.
BOOST_AUTO_TEST_CASE(ioctl_is_buffered_by_request, *boost::unit_test::precondition(tool_page_available)) {
  backstep::testing::TempDir dir("preload_buffer_test");
  int file = open_test_file(dir);
  BOOST_REQUIRE(lseek(file, 30, SEEK_SET) == 30);
  int p[2];
  BOOST_REQUIRE(pipe(p) == 0);
  BOOST_REQUIRE(write(p[1], "hello", 5) == 5);
  // A terminal, where the queries succeed and write (skipped without ptys).
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  int tty = -1;
  if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0) tty = open(ptsname(master), O_RDWR | O_NOCTTY);
  const uint64_t kTcgets = 0x5401, kTiocgwinsz = 0x5413, kFionread = 0x541b, kTiocswinsz = 0x5414;

  struct Outputs {
    unsigned char termios[64], winsize[64], tty_termios[64], tty_winsize[64];
    int file_left, pipe_left;
  };
  auto calls = [&](Outputs& out) {
    std::memset(&out, 0xee, sizeof(out));
    std::vector<int64_t> results;
    for (HookResult r : {hook(SYS_ioctl, {uint64_t(file), kTcgets, u(out.termios)}),
                         hook(SYS_ioctl, {uint64_t(file), kTiocgwinsz, u(out.winsize)}),
                         hook(SYS_ioctl, {uint64_t(file), kFionread, u(&out.file_left)}),
                         hook(SYS_ioctl, {uint64_t(p[0]), kFionread, u(&out.pipe_left)})}) {
      BOOST_TEST(r.handled);
      results.push_back(r.result);
    }
    if (tty >= 0) {
      // The high half of the request is not the kernel's (an unsigned int).
      for (HookResult r : {hook(SYS_ioctl, {uint64_t(tty), kTcgets | (uint64_t{1} << 32), u(out.tty_termios)}),
                           hook(SYS_ioctl, {uint64_t(tty), kTiocgwinsz, u(out.tty_winsize)})}) {
        BOOST_TEST(r.handled);
        results.push_back(r.result);
      }
    }
    return results;
  };

  Buffer buffer(BS_MODE_RECORD);
  Outputs recorded;
  std::vector<int64_t> results = calls(recorded);
  BOOST_TEST(results[0] == -ENOTTY);
  BOOST_TEST(results[1] == -ENOTTY);
  BOOST_TEST(results[2] == 0);
  BOOST_TEST(results[3] == 0);
  BOOST_TEST(recorded.termios[0] == 0xee);  // a failure writes nothing
  BOOST_TEST(recorded.file_left == 70);
  BOOST_TEST(recorded.pipe_left == 5);
  BOOST_TEST(buffer.record_at(0)->out_len[0] == 0u);
  uint32_t offset = 0;
  for (int i = 0; i < 2; ++i) offset += buffer.record_at(offset)->size;
  BOOST_TEST(buffer.record_at(offset)->out_len[0] == 4u);  // FIONREAD's int
  if (tty >= 0) {
    BOOST_TEST(results[4] == 0);
    BOOST_TEST(results[5] == 0);
    BOOST_TEST(recorded.tty_termios[35] != 0xee);  // the kernel's termios: 36 bytes
    BOOST_TEST(recorded.tty_termios[36] == 0xee);
    BOOST_TEST(recorded.tty_winsize[8] == 0xee);  // struct winsize: 8
  }
  // A request outside the list, or one that changes the terminal: traced.
  uint32_t used = buffer.header->used;
  unsigned char ws[8] = {};
  BOOST_TEST(!hook(SYS_ioctl, {uint64_t(file), kTiocswinsz, u(ws)}).handled);
  BOOST_TEST(!hook(SYS_ioctl, {uint64_t(file), 0x5402, u(recorded.termios)}).handled);  // TCSETS
  BOOST_TEST(!hook(SYS_ioctl, {uint64_t(file), 0x80045401, u(ws)}).handled);
  BOOST_TEST(buffer.header->used == used);

  // Replay: nothing open, the records answer.
  for (int fd : {file, p[0], p[1], tty, master}) {
    if (fd >= 0) close(fd);
  }
  buffer.header->mode = BS_MODE_REPLAY;
  buffer.header->cursor = 0;
  Outputs replayed;
  BOOST_TEST(calls(replayed) == results, boost::test_tools::per_element());
  BOOST_TEST(std::memcmp(&replayed, &recorded, sizeof(recorded)) == 0);
  BOOST_TEST(buffer.header->cursor == buffer.header->used);
}

namespace {

// Runs `replay` in a child with a replay buffer holding one record made by
// `record` in the parent, and returns the child's divergence report.
struct Divergence {
  int signal;     // what ended the child, 0 when it exited
  int exit_code;  // its status when it exited
  uint32_t nr;
  uint32_t reason;
};

template <typename Record, typename Replay>
Divergence diverge(Record record, Replay replay) {
  Buffer buffer(BS_MODE_RECORD);
  record(buffer);
  buffer.header->mode = BS_MODE_REPLAY;
  buffer.header->cursor = 0;
  pid_t child = fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(SIGILL, SIG_DFL);
    replay();
    _exit(0);
  }
  int status = 0;
  BOOST_REQUIRE(waitpid(child, &status, 0) == child);
  return {WIFSIGNALED(status) ? WTERMSIG(status) : 0, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
          buffer.header->diverged_nr, buffer.header->diverged_reason};
}

}  // namespace

BOOST_AUTO_TEST_CASE(replay_reports_a_divergence_with_ud2, *boost::unit_test::precondition(tool_page_available)) {
  // Another call than the record's.
  Divergence d = diverge([](Buffer&) { BOOST_REQUIRE(hook(SYS_getpid, {}).handled); },
                         [] { hook(SYS_getuid, {}); });
  BOOST_TEST(d.signal == SIGILL);
  BOOST_TEST(d.nr == unsigned{SYS_getuid});
  BOOST_TEST(d.reason == unsigned{BS_DIVERGED_NR});

  // A write of other data.
  backstep::testing::TempDir dir("preload_buffer_test");
  int fd = open_test_file(dir);
  d = diverge(
      [fd](Buffer& b) {
        b.allow(fd);
        BOOST_REQUIRE(hook(SYS_write, {uint64_t(fd), u("XYZ"), 3}).handled);
      },
      [fd] { hook(SYS_write, {uint64_t(fd), u("XYW"), 3}); });
  BOOST_TEST(d.signal == SIGILL);
  BOOST_TEST(d.nr == unsigned{SYS_write});
  BOOST_TEST(d.reason == unsigned{BS_DIVERGED_DATA});

  // A read whose recorded output no longer fits the program's count.
  static char buf[64];
  d = diverge(
      [fd](Buffer& b) {
        b.allow(fd);
        BOOST_REQUIRE(hook(SYS_pread64, {uint64_t(fd), u(buf), sizeof(buf), 0}).handled);
      },
      [fd] { hook(SYS_pread64, {uint64_t(fd), u(buf), 32, 0}); });
  BOOST_TEST(d.signal == SIGILL);
  BOOST_TEST(d.nr == unsigned{SYS_pread64});
  BOOST_TEST(d.reason == unsigned{BS_DIVERGED_SIZE});

  // The same calls replay without a divergence (the child exits normally).
  d = diverge([](Buffer&) { BOOST_REQUIRE(hook(SYS_getpid, {}).handled); },
              [] {
                if (!hook(SYS_getpid, {}).handled) _exit(3);
              });
  BOOST_TEST(d.signal == 0);
  BOOST_TEST(d.exit_code == 0);
  BOOST_TEST(d.reason == unsigned{BS_DIVERGED_NONE});
  close(fd);
}

// Calls that may block (BS_CALL_MAY_BLOCK): on a descriptor whose
// fd_blocking bit is set, made first in a form that cannot wait and
// buffered when that needs no wait; otherwise made with the desched event
// armed, which the library opens on first use at BS_DESCHED_FD_MIN or above
// and points at the recorder's thread (here: this one, with a signal that is
// ignored).
BOOST_AUTO_TEST_CASE(calls_that_may_block_arm_the_desched_event,
                     *boost::unit_test::precondition(tool_page_available)) {
  int p[2], q[2];
  BOOST_REQUIRE(pipe(p) == 0);
  BOOST_REQUIRE(pipe2(q, O_NONBLOCK) == 0);  // empty: a read would wait, and says EAGAIN at once
  BOOST_REQUIRE(write(p[1], "hello", 5) == 5);
  char buf[16] = {};
  {
    Buffer b(BS_MODE_RECORD);
    b.header->desched_fd = -1;
    // No bit: traced. fd_allowed is for calls that cannot block.
    BOOST_TEST(!hook(SYS_read, {uint64_t(p[0]), u(buf), sizeof(buf)}).handled);
    b.allow_blocking(p[0]);
    b.allow_blocking(q[0]);
    // Data is there: read without waiting, no event needed (none opened).
    HookResult r = hook(SYS_read, {uint64_t(p[0]), u(buf), sizeof(buf)});
    BOOST_TEST(r.handled);
    BOOST_TEST(r.result == 5);
    BOOST_TEST(std::string(buf, 5) == "hello");
    BOOST_TEST(b.record_at(0)->nr == unsigned{SYS_read});
    BOOST_TEST(b.header->desched_fd == -1);
    uint32_t used = b.header->used;
    // A read that would wait, with no recorder to tell: the event cannot be
    // armed, so traced.
    BOOST_TEST(!hook(SYS_read, {uint64_t(q[0]), u(buf), sizeof(buf)}).handled);
    BOOST_TEST(b.header->used == used);

    b.header->recorder_tid = static_cast<uint32_t>(syscall(SYS_gettid));
    b.header->desched_signal = SIGURG;  // ignored by default, should a switch happen
    r = hook(SYS_read, {uint64_t(q[0]), u(buf), sizeof(buf)});
    BOOST_TEST(r.handled);
    BOOST_TEST(r.result == -EAGAIN);  // the program's O_NONBLOCK, through the armed call
    int fd = b.header->desched_fd;
    BOOST_TEST(fd >= BS_DESCHED_FD_MIN);
    BOOST_TEST(b.header->desched_tid == static_cast<uint32_t>(syscall(SYS_gettid)));
    BOOST_TEST((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    BOOST_TEST(fcntl(fd, F_GETSIG) == SIGURG);
    f_owner_ex owner{};
    BOOST_REQUIRE(fcntl(fd, F_GETOWN_EX, &owner) == 0);
    BOOST_TEST(owner.type == F_OWNER_TID);
    BOOST_TEST(owner.pid == static_cast<pid_t>(syscall(SYS_gettid)));

    // A write of the pipe is buffered the same way (room: no event).
    BOOST_TEST(hook(SYS_write, {uint64_t(p[1]), u("ab"), 2}).handled == false);  // p[1] has no bit
    b.allow_blocking(p[1]);
    r = hook(SYS_write, {uint64_t(p[1]), u("ab"), 2});
    BOOST_TEST(r.handled);
    BOOST_TEST(r.result == 2);
    BOOST_TEST(read(p[0], buf, sizeof(buf)) == 2);
    BOOST_TEST(b.header->desched_fd == fd);

    // A poll finds its descriptor ready at once; one with nothing ready and
    // a zero timeout of its own answers 0 without the event.
    BOOST_REQUIRE(write(p[1], "c", 1) == 1);
    pollfd polled[2] = {{p[0], POLLIN, 0}, {q[0], POLLIN, 0}};
    r = hook(SYS_poll, {u(polled), 2, uint64_t(-1)});
    BOOST_TEST(r.handled);
    BOOST_TEST(r.result == 1);
    BOOST_TEST(polled[0].revents == POLLIN);
    BOOST_TEST(polled[1].revents == 0);
    r = hook(SYS_poll, {u(&polled[1]), 1, 0});
    BOOST_TEST(r.handled);
    BOOST_TEST(r.result == 0);
    BOOST_TEST(read(p[0], buf, sizeof(buf)) == 1);

    // A thread that did not open it (a fork's child) opens its own at the
    // same number.
    b.header->desched_tid = 1;
    BOOST_TEST(hook(SYS_read, {uint64_t(q[0]), u(buf), sizeof(buf)}).handled);
    BOOST_TEST(b.header->desched_fd == fd);
    BOOST_TEST(b.header->desched_tid == static_cast<uint32_t>(syscall(SYS_gettid)));

    // A buffered close clears both of the descriptor's bits.
    int spare = dup(p[0]);
    uint64_t bit = uint64_t{1} << (spare % 64);
    b.header->fd_blocking[spare / 64] |= bit;
    b.header->fd_allowed[spare / 64] |= bit;
    BOOST_TEST(hook(SYS_close, {uint64_t(spare)}).handled);
    BOOST_TEST((b.header->fd_blocking[spare / 64] & bit) == 0u);
    BOOST_TEST((b.header->fd_allowed[spare / 64] & bit) == 0u);
    close(fd);
  }
  for (int fd : {p[0], p[1], q[0], q[1]}) close(fd);
}

// recvfrom's source address is an output of unknown size: buffered only
// when its pointer is null (recv).
BOOST_AUTO_TEST_CASE(recv_is_buffered_without_a_source_address,
                     *boost::unit_test::precondition(tool_page_available)) {
  int s[2];
  BOOST_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
  BOOST_REQUIRE(write(s[1], "0123456789", 10) == 10);
  Buffer b(BS_MODE_RECORD);
  b.header->desched_fd = -1;
  b.header->recorder_tid = static_cast<uint32_t>(syscall(SYS_gettid));
  b.header->desched_signal = SIGURG;
  b.allow_blocking(s[0]);
  char buf[4];
  sockaddr_storage from{};
  socklen_t len = sizeof(from);
  BOOST_TEST(!hook(SYS_recvfrom, {uint64_t(s[0]), u(buf), 4, 0, u(&from), u(&len)}).handled);
  HookResult r = hook(SYS_recvfrom, {uint64_t(s[0]), u(buf), 4, 0, 0, 0});
  BOOST_TEST(r.handled);
  BOOST_TEST(r.result == 4);
  BOOST_TEST(std::string(buf, 4) == "0123");
  if (b.header->desched_fd >= 0) close(b.header->desched_fd);
  close(s[0]);
  close(s[1]);
}
