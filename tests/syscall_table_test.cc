// The syscall table generated from engine/core/syscalls/syscalls.spec.
#define BOOST_TEST_MODULE syscall_table
#include <boost/test/unit_test.hpp>

#include <sys/syscall.h>

#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/syscalls/syscall_table.h"
#include "syscall_table_test_cases.generated.h"

// Boost.Test finds these by argument-dependent lookup to print failed checks.
namespace backstep::sys {

std::ostream& boost_test_print_type(std::ostream& out, Family family) {
  return out << to_string(family);
}

std::ostream& boost_test_print_type(std::ostream& out, SizeKind kind) {
  switch (kind) {
    case SizeKind::Fixed: return out << "Fixed";
    case SizeKind::Ret: return out << "Ret";
    case SizeKind::RetTimes: return out << "RetTimes";
    case SizeKind::Arg: return out << "Arg";
    case SizeKind::ArgTimes: return out << "ArgTimes";
    case SizeKind::DerefArg: return out << "DerefArg";
    case SizeKind::FdSet: return out << "FdSet";
  }
  return out << "SizeKind(" << static_cast<int>(kind) << ")";
}

}  // namespace backstep::sys

namespace sys = backstep::sys;
using sys::SizeKind;
using sys::testing::kSpecEntries;

namespace {

constexpr int kArgCount = 6;
constexpr int kMaxOuts = 4;
// x86-64 never used these numbers (between rseq and pidfd_send_signal).
constexpr long kFirstHole = 335;
constexpr long kLastHole = 423;

const sys::SyscallInfo& must_lookup(std::string_view name, long nr) {
  const sys::SyscallInfo* info = sys::lookup(nr);
  BOOST_TEST_REQUIRE(info != nullptr, "no entry for " << name << " (" << nr << ")");
  BOOST_TEST_REQUIRE(std::string_view(info->name) == name);
  return *info;
}

bool uses_size_arg(SizeKind kind) {
  return kind == SizeKind::Arg || kind == SizeKind::ArgTimes || kind == SizeKind::DerefArg || kind == SizeKind::FdSet;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_header_number_matches_the_table) {
  int known_to_headers = 0;
  for (const auto& entry : kSpecEntries) {
    BOOST_TEST_CONTEXT("spec entry " << entry.name << " = " << entry.nr) {
      if (entry.sys_value != -1) {
        ++known_to_headers;
        BOOST_TEST(entry.sys_value == entry.nr);
      }
      const sys::SyscallInfo* info = sys::lookup(entry.nr);
      BOOST_TEST_REQUIRE(info != nullptr);
      BOOST_TEST(std::string_view(info->name) == std::string_view(entry.name));
      BOOST_TEST(info->nr == entry.nr);
    }
  }
  // Debian 12's headers (Linux 6.1) know 362 calls; newer ones know more.
  BOOST_TEST(known_to_headers >= 362);
  BOOST_TEST(std::size(kSpecEntries) == sys::all_syscalls().size());
}

BOOST_AUTO_TEST_CASE(well_known_header_constants) {
  BOOST_TEST(must_lookup("read", SYS_read).nr == 0);
  BOOST_TEST(must_lookup("exit_group", SYS_exit_group).nr == 231);
  BOOST_TEST(must_lookup("rseq", SYS_rseq).nr == 334);
  BOOST_TEST(must_lookup("clone3", SYS_clone3).nr == 435);
  BOOST_TEST(must_lookup("epoll_pwait2", SYS_epoll_pwait2).nr == 441);
}

// x86-64 numbers are dense apart from one hole, so a call missing from the
// spec shows up here even when the test-case list cannot name it.
BOOST_AUTO_TEST_CASE(table_has_no_holes_but_the_unused_range) {
  const long last = sys::all_syscalls().back().nr;
  for (long nr = 0; nr <= last; ++nr) {
    const bool in_hole = nr >= kFirstHole && nr <= kLastHole;
    BOOST_TEST((sys::lookup(nr) == nullptr) == in_hole, "number " << nr);
  }
}

BOOST_AUTO_TEST_CASE(unknown_numbers_are_null) {
  BOOST_TEST(sys::lookup(-1) == nullptr);
  BOOST_TEST(sys::lookup(100000) == nullptr);
  BOOST_TEST(sys::lookup(kFirstHole) == nullptr);
  BOOST_TEST(sys::lookup(512) == nullptr);  // x32 numbering
  BOOST_TEST(sys::lookup(sys::all_syscalls().back().nr + 1) == nullptr);
}

BOOST_AUTO_TEST_CASE(entries_are_in_increasing_order_with_unique_names) {
  long previous = -1;
  std::set<std::string> names;
  for (const auto& info : sys::all_syscalls()) {
    BOOST_TEST(info.nr > previous, info.name << " follows " << previous);
    previous = info.nr;
    BOOST_TEST(names.insert(info.name).second, "duplicate " << info.name);
    BOOST_TEST(sys::lookup(info.nr) == &info);
  }
}

BOOST_AUTO_TEST_CASE(outputs_are_well_formed) {
  for (const auto& info : sys::all_syscalls()) {
    BOOST_TEST_CONTEXT(info.name) {
      BOOST_TEST(info.out_count <= kMaxOuts);
      if (!info.supported) {
        BOOST_TEST(!info.custom);
        BOOST_TEST(info.out_count == 0);
      }
      for (int i = 0; i < info.out_count; ++i) {
        const sys::OutParam& out = info.outs[i];
        BOOST_TEST(out.arg < kArgCount);
        if (uses_size_arg(out.size_kind)) {
          BOOST_TEST(out.size_arg < kArgCount);
          BOOST_TEST(out.size_arg != out.arg);
        }
        if (out.size_kind == SizeKind::Fixed || out.size_kind == SizeKind::RetTimes ||
            out.size_kind == SizeKind::ArgTimes) {
          BOOST_TEST(out.size > 0u);
        }
        for (int j = 0; j < i; ++j) BOOST_TEST(info.outs[j].arg != out.arg);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(spot_checks) {
  const auto& read = must_lookup("read", SYS_read);
  BOOST_TEST(read.supported);
  BOOST_TEST(!read.custom);
  BOOST_TEST(read.family == sys::Family::Fs);
  BOOST_TEST_REQUIRE(read.out_count == 1);
  BOOST_TEST(read.outs[0].arg == 1);
  BOOST_TEST(read.outs[0].size_kind == SizeKind::Ret);

  const auto& stat = must_lookup("stat", SYS_stat);
  BOOST_TEST_REQUIRE(stat.out_count == 1);
  BOOST_TEST(stat.outs[0].arg == 1);
  BOOST_TEST(stat.outs[0].size_kind == SizeKind::Fixed);
  BOOST_TEST(stat.outs[0].size == 144u);  // struct stat

  const auto& poll = must_lookup("poll", SYS_poll);
  BOOST_TEST(poll.family == sys::Family::Poll);
  BOOST_TEST_REQUIRE(poll.out_count == 1);
  BOOST_TEST(poll.outs[0].arg == 0);
  BOOST_TEST(poll.outs[0].size_kind == SizeKind::ArgTimes);
  BOOST_TEST(poll.outs[0].size_arg == 1);
  BOOST_TEST(poll.outs[0].size == 8u);  // struct pollfd

  const auto& accept4 = must_lookup("accept4", SYS_accept4);
  BOOST_TEST(accept4.family == sys::Family::Net);
  BOOST_TEST_REQUIRE(accept4.out_count == 2);
  BOOST_TEST(accept4.outs[0].arg == 1);
  BOOST_TEST(accept4.outs[0].size_kind == SizeKind::DerefArg);
  BOOST_TEST(accept4.outs[0].size_arg == 2);
  BOOST_TEST(accept4.outs[1].arg == 2);
  BOOST_TEST(accept4.outs[1].size_kind == SizeKind::Fixed);
  BOOST_TEST(accept4.outs[1].size == 4u);  // socklen_t

  const auto& epoll_wait = must_lookup("epoll_wait", SYS_epoll_wait);
  BOOST_TEST_REQUIRE(epoll_wait.out_count == 1);
  BOOST_TEST(epoll_wait.outs[0].size_kind == SizeKind::RetTimes);
  BOOST_TEST(epoll_wait.outs[0].size == 12u);  // packed struct epoll_event

  const auto& rt_sigpending = must_lookup("rt_sigpending", SYS_rt_sigpending);
  BOOST_TEST_REQUIRE(rt_sigpending.out_count == 1);
  BOOST_TEST(rt_sigpending.outs[0].size_kind == SizeKind::Arg);
  BOOST_TEST(rt_sigpending.outs[0].size_arg == 1);

  const auto& statx = must_lookup("statx", SYS_statx);
  BOOST_TEST_REQUIRE(statx.out_count == 1);
  BOOST_TEST(statx.outs[0].arg == 4);
  BOOST_TEST(statx.outs[0].size == 256u);

  BOOST_TEST(must_lookup("getrandom", SYS_getrandom).family == sys::Family::Misc);
  BOOST_TEST(must_lookup("uname", SYS_uname).outs[0].size == 390u);
}

BOOST_AUTO_TEST_CASE(statuses) {
  struct Named {
    const char* name;
    long nr;
  };
  const Named custom[] = {{"mmap", SYS_mmap},         {"ioctl", SYS_ioctl},
                          {"execve", SYS_execve},     {"rt_sigaction", SYS_rt_sigaction},
                          {"write", SYS_write},       {"exit_group", SYS_exit_group}};
  for (const auto& [name, nr] : custom) {
    const auto& info = must_lookup(name, nr);
    BOOST_TEST((info.supported && info.custom), name << " should be custom");
  }
  // Threads and processes: clone, clone3, fork and vfork make threads or
  // processes of the tree, futex records what the PI and wake-op forms write.
  for (const auto& [name, nr] : std::initializer_list<Named>{{"clone", SYS_clone}, {"clone3", SYS_clone3},
                                                            {"fork", SYS_fork}, {"vfork", SYS_vfork},
                                                            {"futex", SYS_futex}, {"set_tid_address", SYS_set_tid_address}}) {
    const auto& info = must_lookup(name, nr);
    BOOST_TEST((info.supported && info.custom && info.family == sys::Family::Thread), name << " should be a custom thread call");
  }
}

// `buffer` in the spec: descriptor calls are gated on their descriptor,
// queries are always bufferable, and calls that change the process never are.
BOOST_AUTO_TEST_CASE(bufferable_calls) {
  for (long nr : {SYS_read, SYS_write, SYS_pread64, SYS_pwrite64, SYS_lseek, SYS_fstat, SYS_getdents64, SYS_close,
                  SYS_writev, SYS_readv, SYS_preadv, SYS_preadv2, SYS_sendmsg, SYS_recvmsg}) {
    const sys::SyscallInfo* info = sys::lookup(nr);
    BOOST_REQUIRE(info);
    BOOST_TEST((info->bufferable && info->buffer_fd_arg == 0), info->name << " should be gated on arg0");
  }
  for (long nr : {SYS_getpid, SYS_gettid, SYS_clock_gettime, SYS_stat, SYS_newfstatat, SYS_getrandom, SYS_statx}) {
    const sys::SyscallInfo* info = sys::lookup(nr);
    BOOST_REQUIRE(info);
    BOOST_TEST((info->bufferable && info->buffer_fd_arg == -1), info->name << " should be ungated");
  }
  BOOST_TEST(sys::lookup(SYS_close)->buffer_closes);
  BOOST_TEST(!sys::lookup(SYS_read)->buffer_closes);
  for (long nr : {SYS_read, SYS_write, SYS_sendto, SYS_recvfrom, SYS_poll, SYS_epoll_wait, SYS_futex, SYS_readv,
                  SYS_writev, SYS_sendmsg, SYS_recvmsg, SYS_select, SYS_pselect6, SYS_ppoll, SYS_epoll_pwait,
                  SYS_epoll_pwait2}) {
    BOOST_TEST(sys::lookup(nr)->buffer_block, sys::lookup(nr)->name << " may block");
  }
  for (long nr : {SYS_pread64, SYS_fstat, SYS_getpid, SYS_close, SYS_fcntl, SYS_preadv, SYS_preadv2}) {
    BOOST_TEST(!sys::lookup(nr)->buffer_block, sys::lookup(nr)->name << " does not block");
  }
  // openat creates descriptors the library gates itself; ioctl is buffered
  // for a few requests whatever the descriptor (the preload table has them).
  BOOST_TEST(sys::lookup(SYS_openat)->buffer_opens);
  BOOST_TEST(!sys::lookup(SYS_read)->buffer_opens);
  BOOST_TEST((sys::lookup(SYS_ioctl)->bufferable && sys::lookup(SYS_ioctl)->buffer_fd_arg == -1));
  for (long nr : {SYS_open, SYS_openat2, SYS_mmap, SYS_munmap, SYS_accept, SYS_clone}) {
    const sys::SyscallInfo* info = sys::lookup(nr);
    BOOST_REQUIRE(info);
    BOOST_TEST((!info->bufferable && info->buffer_fd_arg == -1), info->name << " should not be bufferable");
  }
  for (const sys::SyscallInfo& info : sys::all_syscalls()) {
    if (!info.bufferable) continue;
    BOOST_TEST(info.supported, info.name);
    // A DerefArg output (buffered only when its pointer is null) only where
    // the call says so: recvfrom's source address.
    for (uint8_t i = 0; i < info.out_count; ++i) {
      if (info.outs[i].size_kind == sys::SizeKind::DerefArg) BOOST_TEST(info.nr == SYS_recvfrom, info.name);
    }
  }
}

// select and pselect6 record their fd_sets by nfds (FdSet) and the time
// left as a fixed output, which the recorder records even when they fail.
BOOST_AUTO_TEST_CASE(select_outputs) {
  for (long nr : {SYS_select, SYS_pselect6}) {
    const sys::SyscallInfo* info = sys::lookup(nr);
    BOOST_REQUIRE(info);
    BOOST_TEST(!info->custom);
    BOOST_REQUIRE(info->out_count == 4);
    for (int i = 0; i < 3; ++i) {
      BOOST_TEST(info->outs[i].arg == i + 1);
      BOOST_TEST(info->outs[i].size_kind == SizeKind::FdSet);
      BOOST_TEST(info->outs[i].size_arg == 0);
    }
    BOOST_TEST(info->outs[3].arg == 4);
    BOOST_TEST(info->outs[3].size_kind == SizeKind::Fixed);
    BOOST_TEST(info->outs[3].size == 16u);
  }
}

BOOST_AUTO_TEST_CASE(family_names_match_the_spec) {
  BOOST_TEST(std::string_view(sys::to_string(sys::Family::Fs)) == "fs");
  BOOST_TEST(std::string_view(sys::to_string(sys::Family::Identity)) == "identity");
  BOOST_TEST(std::string_view(sys::to_string(sys::Family::Misc)) == "misc");
  BOOST_TEST(std::string_view(sys::to_string(must_lookup("ioctl", SYS_ioctl).family)) ==
             "ioctl");
}

// Every call the recorder refuses, grouped by why. A call that becomes
// unsupported must be added here with its reason, and to the user guide's
// "What cannot be recorded yet, and why"; one that becomes supported must
// leave both. So no call is refused silently.
namespace {

struct UnsupportedGroup {
  const char* reason;
  std::vector<std::string_view> names;
};

// Empty today: every call of the table is recorded (some only when they do
// what replay can rebuild: see the user guide).
const std::vector<UnsupportedGroup> kUnsupported = {};

}  // namespace

BOOST_AUTO_TEST_CASE(every_unsupported_call_has_a_documented_reason) {
  std::map<std::string, const char*> reason_of;
  for (const UnsupportedGroup& group : kUnsupported) {
    for (std::string_view name : group.names) {
      BOOST_TEST(reason_of.emplace(std::string(name), group.reason).second, name << " is listed twice");
    }
  }
  std::map<std::string, const sys::SyscallInfo*> by_name;
  for (const auto& info : sys::all_syscalls()) {
    by_name[info.name] = &info;
    if (!info.supported) {
      BOOST_TEST(reason_of.count(info.name) == 1u,
                 info.name << " is unsupported in the spec but has no documented reason here");
    }
  }
  for (const auto& [name, reason] : reason_of) {
    auto it = by_name.find(name);
    const bool in_spec = it != by_name.end();
    BOOST_TEST_REQUIRE(in_spec, name << " is not in the spec");
    BOOST_TEST(!it->second->supported, name << " is supported now: take it off the list (" << reason << ")");
  }
}

// The user guide's section names every refused call.
BOOST_AUTO_TEST_CASE(user_guide_lists_every_unsupported_call) {
  std::ifstream in(USER_GUIDE);
  BOOST_TEST_REQUIRE(in.good(), "cannot read " << USER_GUIDE);
  std::stringstream text;
  text << in.rdbuf();
  const std::string guide = text.str();
  const std::string heading = "## What cannot be recorded yet, and why";
  const std::size_t start = guide.find(heading);
  BOOST_TEST_REQUIRE(start != std::string::npos, "no section '" << heading << "'");
  const std::size_t end = guide.find("\n## ", start + heading.size());
  const std::string section = guide.substr(start, end == std::string::npos ? std::string::npos : end - start);
  for (const UnsupportedGroup& group : kUnsupported) {
    for (std::string_view name : group.names) {
      BOOST_TEST(section.find("`" + std::string(name) + "`") != std::string::npos,
                 name << " is not named in the user guide's section");
    }
  }
}

// Calls the kernel answers -ENOSYS on every x86-64 kernel are recorded as
// such rather than refused; so are the calls this milestone made recordable.
BOOST_AUTO_TEST_CASE(recordable_administrative_calls) {
  for (const char* name : {"tuxcall", "create_module", "set_thread_area", "epoll_wait_old", "unshare", "kcmp",
                           "acct", "clock_settime", "settimeofday", "add_key", "mbind", "perf_event_open",
                           "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"}) {
    const sys::SyscallInfo* found = nullptr;
    for (const auto& info : sys::all_syscalls()) {
      if (std::string_view(info.name) == name) found = &info;
    }
    BOOST_TEST_REQUIRE(found != nullptr, name);
    BOOST_TEST((found->supported && !found->custom), name << " should be supported from the spec's outputs");
  }
  for (const char* name : {"keyctl", "seccomp", "bpf", "syslog", "sysfs", "quotactl", "get_mempolicy",
                           "process_vm_readv", "process_vm_writev"}) {
    for (const auto& info : sys::all_syscalls()) {
      if (std::string_view(info.name) == name) BOOST_TEST((info.supported && info.custom), name);
    }
  }
  const auto& adjtimex = must_lookup("adjtimex", SYS_adjtimex);
  BOOST_TEST_REQUIRE(adjtimex.out_count == 1);
  BOOST_TEST(adjtimex.outs[0].size == 208u);  // struct timex
  const auto& sched_getattr = must_lookup("sched_getattr", SYS_sched_getattr);
  BOOST_TEST_REQUIRE(sched_getattr.out_count == 1);
  BOOST_TEST(sched_getattr.outs[0].size_kind == SizeKind::Arg);
  BOOST_TEST(sched_getattr.outs[0].size_arg == 2);
}

// System V and POSIX IPC, pidfds, the futex2 calls and file handles are
// recorded; the calls replay could not reproduce are answered -ENOSYS (one
// handler for all of them).
BOOST_AUTO_TEST_CASE(ipc_pidfd_and_absent_calls) {
  for (const char* name : {"shmget", "semget", "semop", "semtimedop", "msgget", "msgsnd", "mq_open", "mq_unlink",
                           "mq_timedsend", "mq_notify", "pidfd_open", "pidfd_getfd", "futex_wait", "futex_wake",
                           "futex_waitv", "futex_requeue", "fanotify_init", "fanotify_mark", "open_by_handle_at",
                           "pkey_free", "pkey_alloc"}) {
    const sys::SyscallInfo* found = nullptr;
    for (const auto& info : sys::all_syscalls()) {
      if (std::string_view(info.name) == name) found = &info;
    }
    BOOST_TEST_REQUIRE(found != nullptr, name);
    BOOST_TEST((found->supported && !found->custom), name << " should be supported from the spec's outputs");
  }
  for (const char* name : {"shmat", "shmdt", "shmctl", "semctl", "msgctl", "msgrcv", "name_to_handle_at",
                           "pidfd_send_signal", "personality", "pkey_mprotect"}) {
    for (const auto& info : sys::all_syscalls()) {
      if (std::string_view(info.name) == name) BOOST_TEST((info.supported && info.custom), name);
    }
  }
  const auto& receive = must_lookup("mq_timedreceive", SYS_mq_timedreceive);
  BOOST_TEST_REQUIRE(receive.out_count == 2);
  BOOST_TEST(receive.outs[0].size_kind == SizeKind::Ret);
  BOOST_TEST(receive.outs[1].size == 4u);  // unsigned priority
  BOOST_TEST(must_lookup("mq_getsetattr", SYS_mq_getsetattr).outs[0].size == 64u);  // struct mq_attr
  BOOST_TEST(must_lookup("ustat", SYS_ustat).outs[0].size == 32u);                  // struct ustat
  for (long nr : {long{SYS_userfaultfd}, long{SYS_io_uring_setup}, long{SYS_memfd_secret}, long{SYS_io_setup},
                  long{SYS_io_submit}, long{SYS_io_getevents}, long{SYS_io_pgetevents}}) {
    const sys::SyscallInfo* info = sys::lookup(nr);
    BOOST_TEST_REQUIRE(info != nullptr);
    BOOST_TEST((info->supported && info->custom), info->name);
  }
}

// Administrative calls and the newer file, mount and LSM calls record what
// the kernel answered; the recorder reads files through /proc/PID/fd, so a
// chroot or a mount does not change what it copies.
BOOST_AUTO_TEST_CASE(administrative_and_newer_calls) {
  for (const char* name : {"mount", "umount2", "chroot", "pivot_root", "setns", "sethostname", "setdomainname",
                           "open_tree", "fsopen", "fsmount", "mseal", "setxattrat", "removexattrat",
                           "lsm_set_self_attr", "file_setattr"}) {
    const sys::SyscallInfo* found = nullptr;
    for (const auto& info : sys::all_syscalls()) {
      if (std::string_view(info.name) == name) found = &info;
    }
    BOOST_TEST_REQUIRE(found != nullptr, name);
    BOOST_TEST((found->supported && !found->custom && found->out_count == 0), name);
  }
  for (const char* name : {"lsm_get_self_attr", "lsm_list_modules", "getxattrat", "modify_ldt", "process_madvise",
                           "map_shadow_stack", "ptrace", "iopl", "ioperm", "remap_file_pages"}) {
    for (const auto& info : sys::all_syscalls()) {
      if (std::string_view(info.name) == name) BOOST_TEST((info.supported && info.custom), name);
    }
  }
  for (const auto& info : sys::all_syscalls()) {
    std::string_view name = info.name;
    if (name == "cachestat") BOOST_TEST((info.out_count == 1 && info.outs[0].size == 40u));
    if (name == "listmount" || name == "listns") {
      BOOST_TEST((info.out_count == 1 && info.outs[0].size_kind == SizeKind::RetTimes && info.outs[0].size == 8u));
    }
    if (name == "file_getattr" || name == "statmount") {
      BOOST_TEST((info.out_count == 1 && info.outs[0].size_kind == SizeKind::Arg));
    }
  }
}
