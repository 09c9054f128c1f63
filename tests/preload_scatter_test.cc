// The preload library's hook on the calls whose outputs or gates live in
// memory the arguments describe: readv and preadv (an iovec array),
// recvmsg and sendmsg (a msghdr), select and ppoll (fd_sets, the time
// left written even when they fail, the signal-mask gates). Each is
// recorded, then replayed with its descriptors closed, so only the records
// can answer; the cases that must take the traced path are checked too.
#define BOOST_TEST_MODULE preload_scatter
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tests/support/preload_harness.h"
#include "tests/support/temp_dir.h"

namespace {

using namespace backstep::testing::preload;

int open_file(const backstep::testing::TempDir& dir, const std::string& content) {
  int fd = open(dir.sub("data").c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  BOOST_REQUIRE(fd >= 0);
  BOOST_REQUIRE(write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
  BOOST_REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
  return fd;
}

void replay_from_start(Buffer& b) {
  b.header->mode = BS_MODE_REPLAY;
  b.header->cursor = 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(readv_and_preadv_scatter_what_they_read, *boost::unit_test::precondition(tool_page_available)) {
  backstep::testing::TempDir dir("preload_scatter_test");
  int fd = open_file(dir, "abcdefghijklmnopqrstuvwxyz");
  Buffer b(BS_MODE_RECORD);
  b.allow(fd);
  char x[3], y[1], z[40];
  iovec iov[4] = {{x, sizeof x}, {y, 0}, {y, sizeof y}, {z, sizeof z}};
  HookResult r = hook(SYS_readv, {uint64_t(fd), u(iov), 4});
  BOOST_TEST(r.handled);
  BOOST_TEST(r.result == 26);
  BOOST_TEST(std::string(x, 3) == "abc");
  BOOST_TEST(std::string(y, 1) == "d");
  BOOST_TEST(std::string(z, 22) == "efghijklmnopqrstuvwxyz");
  const bs_record* rec = b.record_at(0);
  BOOST_TEST(rec->out_len[0] == 26u);  // the bytes read, not the 44 of room
  BOOST_TEST(std::memcmp(b.data_of(rec), "abcdefghijklmnopqrstuvwxyz", 26) == 0);
  BOOST_TEST(rec->size == 40u + 32u);
  // preadv at an offset; a bad buffer fails with EFAULT and records nothing.
  char p[5];
  iovec piov[1] = {{p, sizeof p}};
  BOOST_TEST(hook(SYS_preadv, {uint64_t(fd), u(piov), 1, 20, 0}).result == 5);
  iovec bad[1] = {{nullptr, 4}};
  r = hook(SYS_preadv, {uint64_t(fd), u(bad), 1, 0, 0});
  BOOST_TEST(r.handled);
  BOOST_TEST(r.result == -EFAULT);
  BOOST_TEST(b.record_at(72 + 48)->out_len[0] == 0u);

  // Traced: an iovec array that cannot be read (the kernel answers EFAULT,
  // the library must not fault), or of more than BS_IOV_MAX entries.
  uint32_t used = b.header->used;
  BOOST_TEST(!hook(SYS_readv, {uint64_t(fd), 16, 2}).handled);
  static iovec many[BS_IOV_MAX + 1];
  for (iovec& v : many) v = {x, 1};
  BOOST_TEST(!hook(SYS_readv, {uint64_t(fd), u(many), BS_IOV_MAX + 1}).handled);
  // An array holding more than a buffer can: no room reserved, traced.
  iovec huge[1] = {{z, uint64_t{1} << 40}};
  BOOST_TEST(!hook(SYS_readv, {uint64_t(fd), u(huge), 1}).handled);
  BOOST_TEST(b.header->used == used);

  // Replay with the file closed: the same bytes land in the same buffers.
  BOOST_REQUIRE(close(fd) == 0);
  replay_from_start(b);
  std::memset(x, 0, sizeof x);
  std::memset(y, 0, sizeof y);
  std::memset(z, 0, sizeof z);
  std::memset(p, 0, sizeof p);
  BOOST_TEST(hook(SYS_readv, {uint64_t(fd), u(iov), 4}).result == 26);
  BOOST_TEST(std::string(x, 3) + std::string(y, 1) + std::string(z, 22) == "abcdefghijklmnopqrstuvwxyz");
  BOOST_TEST(hook(SYS_preadv, {uint64_t(fd), u(piov), 1, 20, 0}).result == 5);
  BOOST_TEST(std::string(p, 5) == "uvwxy");
  BOOST_TEST(hook(SYS_preadv, {uint64_t(fd), u(bad), 1, 0, 0}).result == -EFAULT);
  BOOST_TEST(b.header->cursor == b.header->used);
}

BOOST_AUTO_TEST_CASE(recvmsg_and_sendmsg_without_ancillary_data, *boost::unit_test::precondition(tool_page_available)) {
  int s[2];
  BOOST_REQUIRE(socketpair(AF_UNIX, SOCK_DGRAM, 0, s) == 0);
  // The sender gets an abstract address, which recvmsg returns.
  sockaddr_un me{};
  me.sun_family = AF_UNIX;
  int name_len = std::snprintf(me.sun_path + 1, sizeof(me.sun_path) - 1, "bs-scatter-%d", getpid());
  socklen_t me_len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name_len);
  BOOST_REQUIRE(bind(s[1], reinterpret_cast<sockaddr*>(&me), me_len) == 0);
  Buffer b(BS_MODE_RECORD);
  b.allow(s[0]);
  b.allow(s[1]);
  char part1[4] = "one", part2[6] = "-two!";
  iovec out[2] = {{part1, 3}, {part2, 5}};
  msghdr om{};
  om.msg_iov = out;
  om.msg_iovlen = 2;
  BOOST_TEST(hook(SYS_sendmsg, {uint64_t(s[1]), u(&om), 0}).result == 8);
  BOOST_TEST(b.record_at(0)->check == bs_hash_iov(reinterpret_cast<const uint64_t*>(out), 2, 8));

  char d1[2], d2[4];  // 6 of the 8 bytes: MSG_TRUNC
  iovec in[2] = {{d1, sizeof d1}, {d2, sizeof d2}};
  sockaddr_storage from;
  std::memset(&from, 0x5a, sizeof from);
  msghdr im{};
  im.msg_name = &from;
  im.msg_namelen = sizeof from;
  im.msg_iov = in;
  im.msg_iovlen = 2;
  HookResult r = hook(SYS_recvmsg, {uint64_t(s[0]), u(&im), 0});
  BOOST_TEST(r.handled);
  BOOST_TEST(r.result == 6);
  BOOST_TEST((im.msg_flags & MSG_TRUNC) != 0);
  socklen_t namelen = im.msg_namelen;
  BOOST_TEST(namelen == me_len);
  BOOST_TEST(std::memcmp(&from, &me, me_len) == 0);
  const bs_record* rec = b.record_at(40);
  BOOST_TEST(rec->out_len[0] == unsigned{BS_MSGHDR_SIZE});
  BOOST_TEST(rec->out_len[1] == namelen);
  BOOST_TEST(rec->out_len[2] == 6u);

  // Ancillary data, a msghdr that cannot be read, MSG_WAITALL on a
  // descriptor that may block: traced.
  uint32_t used = b.header->used;
  char control[64];
  im.msg_control = control;
  im.msg_controllen = sizeof control;
  BOOST_TEST(!hook(SYS_recvmsg, {uint64_t(s[0]), u(&im), MSG_DONTWAIT}).handled);
  BOOST_TEST(!hook(SYS_sendmsg, {uint64_t(s[1]), u(&im), 0}).handled);
  BOOST_TEST(!hook(SYS_recvmsg, {uint64_t(s[0]), 16, 0}).handled);
  BOOST_TEST(b.header->used == used);

  // Replay with the sockets closed: data, address, length and flags again.
  close(s[0]);
  close(s[1]);
  replay_from_start(b);
  BOOST_TEST(hook(SYS_sendmsg, {uint64_t(s[1]), u(&om), 0}).result == 8);
  std::memset(d1, 0, sizeof d1);
  std::memset(d2, 0, sizeof d2);
  std::memset(&from, 0x5a, sizeof from);
  im = msghdr{};
  im.msg_name = &from;
  im.msg_namelen = sizeof from;
  im.msg_iov = in;
  im.msg_iovlen = 2;
  BOOST_TEST(hook(SYS_recvmsg, {uint64_t(s[0]), u(&im), 0}).result == 6);
  BOOST_TEST(std::string(d1, 2) + std::string(d2, 4) == "one-tw");
  BOOST_TEST(im.msg_namelen == namelen);
  BOOST_TEST((im.msg_flags & MSG_TRUNC) != 0);
  BOOST_TEST(std::memcmp(&from, &me, me_len) == 0);
  BOOST_TEST(reinterpret_cast<unsigned char*>(&from)[me_len] == 0x5a);  // nothing past the address
  BOOST_TEST(b.header->cursor == b.header->used);
}

BOOST_AUTO_TEST_CASE(select_and_ppoll_write_the_time_left_even_when_failing,
                     *boost::unit_test::precondition(tool_page_available)) {
  int p[2];
  BOOST_REQUIRE(pipe(p) == 0);
  BOOST_REQUIRE(write(p[1], "x", 1) == 1);
  Buffer b(BS_MODE_RECORD);
  b.header->desched_fd = -1;
  b.header->recorder_tid = static_cast<uint32_t>(syscall(SYS_gettid));
  b.header->desched_signal = SIGURG;  // ignored, should a switch happen

  // select: the fd_sets (nfds rounded up to 64 bits) and the time left.
  fd_set r;
  FD_ZERO(&r);
  FD_SET(p[0], &r);
  FD_SET(p[1], &r);
  timeval tv = {5, 0};
  HookResult res = hook(SYS_select, {uint64_t(p[1] + 1), u(&r), 0, 0, u(&tv)});
  BOOST_TEST(res.handled);
  BOOST_TEST(res.result == 1);
  const bs_record* rec = b.record_at(0);
  BOOST_TEST(rec->out_len[0] == 8u);
  BOOST_TEST(rec->out_len[3] == 16u);
  fd_set r_after = r;
  timeval tv_after = tv;

  // A closed descriptor: EBADF, and the time left is still written.
  int gone = dup(p[0]);
  close(gone);
  fd_set g;
  FD_ZERO(&g);
  FD_SET(gone, &g);
  timeval tv2 = {5, 0};
  res = hook(SYS_select, {uint64_t(gone + 1), u(&g), 0, 0, u(&tv2)});
  BOOST_TEST(res.result == -EBADF);
  BOOST_TEST(b.record_at(rec->size)->out_len[0] == 0u);
  BOOST_TEST(b.record_at(rec->size)->out_len[3] == 16u);
  BOOST_TEST((tv2.tv_sec < 5 || tv2.tv_usec != 0));
  timeval tv2_after = tv2;
  // ... unless its pointer cannot be read.
  res = hook(SYS_select, {uint64_t(gone + 1), u(&g), 0, 0, 16});
  BOOST_TEST(res.result == -EFAULT);

  // ppoll and pselect6 only without a signal mask; pselect6's is a pointer
  // to {mask, size}: null there too is no mask.
  pollfd pf = {p[0], POLLIN, 0};
  sigset_t mask;
  sigemptyset(&mask);
  uint32_t used = b.header->used;
  BOOST_TEST(!hook(SYS_ppoll, {u(&pf), 1, 0, u(&mask), 8}).handled);
  uint64_t with_mask[2] = {u(&mask), 8}, without[2] = {0, 8};
  BOOST_TEST(!hook(SYS_pselect6, {uint64_t(p[0] + 1), u(&r), 0, 0, 0, u(with_mask)}).handled);
  BOOST_TEST(!hook(SYS_pselect6, {uint64_t(p[0] + 1), u(&r), 0, 0, 0, 16}).handled);
  BOOST_TEST(!hook(SYS_epoll_pwait, {0, 0, 1, 0, u(&mask), 8}).handled);
  BOOST_TEST(b.header->used == used);
  BOOST_TEST(hook(SYS_ppoll, {u(&pf), 1, 0, 0, 8}).result == 1);
  BOOST_TEST(pf.revents == POLLIN);
  FD_ZERO(&r);
  FD_SET(p[0], &r);
  BOOST_TEST(hook(SYS_pselect6, {uint64_t(p[0] + 1), u(&r), 0, 0, 0, u(without)}).result == 1);
  // nfds beyond BS_MAX_FDS: traced.
  BOOST_TEST(!hook(SYS_select, {BS_MAX_FDS + 1, u(&r), 0, 0, 0}).handled);

  // Replay with the pipe closed.
  close(p[0]);
  close(p[1]);
  if (b.header->desched_fd >= 0) close(b.header->desched_fd);
  replay_from_start(b);
  FD_ZERO(&r);
  FD_SET(p[0], &r);
  FD_SET(p[1], &r);
  tv = {5, 0};
  BOOST_TEST(hook(SYS_select, {uint64_t(p[1] + 1), u(&r), 0, 0, u(&tv)}).result == 1);
  BOOST_TEST(std::memcmp(&r, &r_after, 8) == 0);
  BOOST_TEST((tv.tv_sec == tv_after.tv_sec && tv.tv_usec == tv_after.tv_usec));
  tv2 = {5, 0};
  BOOST_TEST(hook(SYS_select, {uint64_t(gone + 1), u(&g), 0, 0, u(&tv2)}).result == -EBADF);
  BOOST_TEST((tv2.tv_sec == tv2_after.tv_sec && tv2.tv_usec == tv2_after.tv_usec));
  BOOST_TEST(hook(SYS_select, {uint64_t(gone + 1), u(&g), 0, 0, 16}).result == -EFAULT);
  // In replay the records alone say which calls were buffered: pselect6's
  // gate is not read again.
  pf.revents = 0;
  BOOST_TEST(hook(SYS_ppoll, {u(&pf), 1, 0, 0, 8}).result == 1);
  BOOST_TEST(pf.revents == POLLIN);
  BOOST_TEST(hook(SYS_pselect6, {uint64_t(p[0] + 1), u(&r), 0, 0, 0, u(without)}).result == 1);
  BOOST_TEST(b.header->cursor == b.header->used);
}

// openat: buffered without O_TRUNC and for a path outside /proc/, whose
// first bytes are read without faulting (a path may end right before an
// unmapped page); madvise only with advice that changes no memory.
BOOST_AUTO_TEST_CASE(openat_and_madvise_gates, *boost::unit_test::precondition(tool_page_available)) {
  backstep::testing::TempDir dir("preload_scatter_test");
  int fd = open_file(dir, "content");
  BOOST_REQUIRE(close(fd) == 0);
  std::string path = dir.sub("data");
  Buffer b(BS_MODE_RECORD);
  b.header->desched_fd = -1;
  b.header->recorder_tid = static_cast<uint32_t>(syscall(SYS_gettid));
  b.header->desched_signal = SIGURG;  // ignored, should a switch happen
  const uint64_t cwd = static_cast<uint64_t>(AT_FDCWD);

  HookResult opened = hook(SYS_openat, {cwd, u(path.c_str()), O_RDONLY | O_CLOEXEC});
  BOOST_TEST(opened.handled);
  BOOST_TEST(opened.result >= 0);
  HookResult missing = hook(SYS_openat, {cwd, u("no-such-file-here"), O_RDONLY});
  BOOST_TEST(missing.handled);
  BOOST_TEST(missing.result == -ENOENT);
  uint32_t used = b.header->used;
  BOOST_TEST(!hook(SYS_openat, {cwd, u(path.c_str()), O_WRONLY | O_TRUNC}).handled);
  BOOST_TEST(!hook(SYS_openat, {cwd, u("/proc/self/comm"), O_RDONLY}).handled);
  BOOST_TEST(!hook(SYS_openat, {cwd, 16, O_RDONLY}).handled);  // the kernel answers EFAULT
  BOOST_TEST(b.header->used == used);

  // Paths at the end of a page followed by an unreadable one.
  auto* pages = static_cast<char*>(mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  BOOST_REQUIRE(pages != MAP_FAILED);
  BOOST_REQUIRE(mprotect(pages + 4096, 4096, PROT_NONE) == 0);
  char* cut = pages + 4096 - 4;
  std::memcpy(cut, "/pro", 4);  // no end before the unreadable page: traced
  BOOST_TEST(!hook(SYS_openat, {cwd, u(cut), O_RDONLY}).handled);
  std::memcpy(cut, "/p\0", 3);  // ends before the prefix does: buffered
  HookResult short_path = hook(SYS_openat, {cwd, u(cut), O_RDONLY});
  BOOST_TEST(short_path.handled);
  BOOST_TEST(short_path.result == -ENOENT);
  munmap(pages, 8192);

  // madvise: WILLNEED is buffered, DONTNEED and FREE are not.
  auto* mem = static_cast<char*>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  BOOST_REQUIRE(mem != MAP_FAILED);
  BOOST_TEST(hook(SYS_madvise, {u(mem), 4096, MADV_WILLNEED}).result == 0);
  BOOST_TEST(!hook(SYS_madvise, {u(mem), 4096, MADV_DONTNEED}).handled);
  BOOST_TEST(!hook(SYS_madvise, {u(mem), 4096, MADV_FREE}).handled);

  // Replay: the same descriptor number, without opening anything.
  BOOST_REQUIRE(close(static_cast<int>(opened.result)) == 0);
  if (b.header->desched_fd >= 0) close(b.header->desched_fd);
  replay_from_start(b);
  BOOST_TEST(hook(SYS_openat, {cwd, u(path.c_str()), O_RDONLY | O_CLOEXEC}).result == opened.result);
  BOOST_TEST(fcntl(static_cast<int>(opened.result), F_GETFD) == -1);  // not opened again
  BOOST_TEST(hook(SYS_openat, {cwd, u("no-such-file-here"), O_RDONLY}).result == -ENOENT);
  // Replay reads no path (its memory is unmapped now): the records decide.
  BOOST_TEST(hook(SYS_openat, {cwd, u(cut), O_RDONLY}).result == -ENOENT);
  BOOST_TEST(hook(SYS_madvise, {u(mem), 4096, MADV_WILLNEED}).result == 0);
  BOOST_TEST(b.header->cursor == b.header->used);
  munmap(mem, 4096);
}

// openat's new descriptor: the library gates it itself where the recorder
// would (a file, a directory, /dev/null: fd_allowed; a FIFO: fd_blocking),
// never a file of /proc or one the recorder keeps out (a mapped file, its
// own stdout), and only once the recorder said so (gate_opens). The record
// holds the decision, which replay applies at the same call; a buffered
// close takes the descriptor out again, in both modes.
BOOST_AUTO_TEST_CASE(openat_gates_the_descriptor_it_creates, *boost::unit_test::precondition(tool_page_available)) {
  backstep::testing::TempDir dir("preload_scatter_test");
  BOOST_REQUIRE(close(open_file(dir, "content")) == 0);
  std::string path = dir.sub("data"), kept = dir.sub("kept"), fifo = dir.sub("pipe.fifo");
  int kept_fd = open(kept.c_str(), O_RDWR | O_CREAT, 0600);
  BOOST_REQUIRE(kept_fd >= 0);
  BOOST_REQUIRE(close(kept_fd) == 0);
  BOOST_REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  int proc_dir = open("/proc/self", O_RDONLY | O_DIRECTORY);
  BOOST_REQUIRE(proc_dir >= 0);
  Buffer b(BS_MODE_RECORD);
  b.header->desched_fd = -1;
  b.header->recorder_tid = static_cast<uint32_t>(syscall(SYS_gettid));
  b.header->desched_signal = SIGURG;
  const uint64_t cwd = static_cast<uint64_t>(AT_FDCWD);
  auto gate = [&](int64_t fd) {
    uint64_t bit = uint64_t{1} << (fd % 64);
    return ((b.header->fd_allowed[fd / 64] & bit) ? BS_OPENED_ALLOWED : 0) |
           ((b.header->fd_blocking[fd / 64] & bit) ? BS_OPENED_BLOCKING : 0);
  };
  struct Open {
    uint64_t dirfd;
    std::string path;
    uint64_t flags;
    int gate;  // expected, once the recorder allows it
  };
  const std::vector<Open> opens = {
      {cwd, path, O_RDONLY, BS_OPENED_ALLOWED},
      {cwd, dir.path, O_RDONLY | O_DIRECTORY, BS_OPENED_ALLOWED},
      {cwd, "/dev/null", O_WRONLY, BS_OPENED_ALLOWED},
      {cwd, fifo, O_RDWR, BS_OPENED_BLOCKING},  // O_RDWR: a FIFO opens at once
      {cwd, kept, O_RDONLY, BS_OPENED_NONE},
      {uint64_t(proc_dir), "status", O_RDONLY, BS_OPENED_NONE},  // not "/proc/...": only the device tells
      {cwd, "/dev/ptmx", O_RDWR | O_NOCTTY, BS_OPENED_NONE},  // a device that is not quiet
  };
  // Each open, then a close of what it opened (buffered once allowed); the
  // results, and the gate after each open.
  auto run = [&](std::vector<int64_t>& fds, std::vector<int>& gates) {
    for (const Open& o : opens) {
      HookResult r = hook(SYS_openat, {o.dirfd, u(o.path.c_str()), o.flags | O_CLOEXEC});
      BOOST_TEST(r.handled, o.path);
      fds.push_back(r.result);
      gates.push_back(r.result >= 0 ? gate(r.result) : -1);
    }
  };

  // A header no recorder wrote (gate_opens 0), and one of a buffer this
  // process only shares (a vfork child's: gate_pid is its parent's):
  // nothing enters a gate.
  std::vector<int64_t> plain_fds;
  std::vector<int> plain_gates;
  run(plain_fds, plain_gates);
  b.header->gate_opens = 1;
  b.header->gate_pid = static_cast<uint32_t>(getppid());
  run(plain_fds, plain_gates);
  for (size_t i = 0; i < plain_fds.size(); ++i) {
    if (plain_fds[i] >= 0) BOOST_TEST(plain_gates[i] == 0, opens[i % opens.size()].path);
    if (plain_fds[i] >= 0) close(static_cast<int>(plain_fds[i]));
  }

  // As the recorder writes it: this process, /proc's device, the kept file
  // in the filter.
  b.header->gate_pid = static_cast<uint32_t>(getpid());
  struct stat st;
  BOOST_REQUIRE(stat("/proc/self", &st) == 0);
  b.header->proc_dev = st.st_dev;
  BOOST_REQUIRE(stat(kept.c_str(), &st) == 0);
  uint64_t hash = bs_file_hash(st.st_dev, st.st_ino);
  for (int i = 0; i < 2; ++i) {
    uint32_t bit = bs_kept_out_bit(hash, i);
    b.header->kept_out[bit / 64] |= uint64_t{1} << (bit % 64);
  }
  BOOST_TEST(bs_kept_out(b.header->kept_out, st.st_dev, st.st_ino));
  uint32_t first = b.header->used;
  std::vector<int64_t> fds;
  std::vector<int> gates;
  run(fds, gates);
  for (size_t i = 0; i < opens.size(); ++i) {
    if (fds[i] < 0) continue;  // /dev/ptmx may be missing
    BOOST_TEST(gates[i] == opens[i].gate, opens[i].path);
  }
  // The records say so too, for replay.
  uint32_t offset = first;
  for (size_t i = 0; i < opens.size(); ++i) {
    const bs_record* rec = b.record_at(offset);
    BOOST_TEST(rec->nr == SYS_openat);
    BOOST_TEST(rec->check == (fds[i] >= 0 ? uint64_t(gates[i]) : 0u), opens[i].path);
    offset += rec->size;
  }
  // A buffered close takes a gated descriptor out.
  BOOST_TEST(hook(SYS_close, {uint64_t(fds[0])}).result == 0);
  BOOST_TEST(gate(fds[0]) == 0);
  for (size_t i = 1; i < opens.size(); ++i) {
    if (fds[i] >= 0) close(static_cast<int>(fds[i]));
  }

  // Replay: nothing is opened, and the library no longer has the rules;
  // the records alone put the same descriptors into the same gates.
  close(proc_dir);
  if (b.header->desched_fd >= 0) close(b.header->desched_fd);
  std::memset(b.header->fd_allowed, 0, sizeof(b.header->fd_allowed));
  std::memset(b.header->fd_blocking, 0, sizeof(b.header->fd_blocking));
  b.header->gate_opens = 0;
  b.header->gate_pid = 0;
  std::memset(b.header->kept_out, 0, sizeof(b.header->kept_out));
  replay_from_start(b);
  std::vector<int64_t> replayed_fds;
  std::vector<int> replayed_gates;
  run(replayed_fds, replayed_gates);
  run(replayed_fds, replayed_gates);
  BOOST_TEST(replayed_fds == plain_fds, boost::test_tools::per_element());
  for (size_t i = 0; i < plain_fds.size(); ++i) BOOST_TEST(replayed_gates[i] == (plain_fds[i] >= 0 ? 0 : -1));
  replayed_fds.clear();
  replayed_gates.clear();
  run(replayed_fds, replayed_gates);
  BOOST_TEST(replayed_fds == fds, boost::test_tools::per_element());
  BOOST_TEST(replayed_gates == gates, boost::test_tools::per_element());
  BOOST_TEST(fcntl(static_cast<int>(fds[0]), F_GETFD) == -1);  // not opened again
  BOOST_TEST(hook(SYS_close, {uint64_t(fds[0])}).result == 0);
  BOOST_TEST(gate(fds[0]) == 0);
  BOOST_TEST(b.header->cursor == b.header->used);
}
