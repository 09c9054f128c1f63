// A call through the vsyscall page (engine/core/vsyscall.h): gettimeofday,
// time or getcpu, which the kernel would emulate without a system call.
// The recorder answers it at the seccomp stop: it reads the clock (or its
// CPU, which is the program's: both are pinned to one) itself, writes the
// answer where the program asked, and records a Syscall event whose entry
// registers are those of the stop and whose changes are those of the
// return to the caller. Replay writes the same bytes and result and
// returns the same way.
#include <sched.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

#include <cstring>
#include <sstream>

#include "engine/core/vsyscall.h"
#include "engine/record/record_session.h"

namespace backstep {

namespace {

template <typename T>
void answer(Task& task, uint64_t addr, const T& value, trace::Event& event, const char* what) {
  if (addr == 0) return;  // NULL: nothing asked
  std::vector<uint8_t> bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  try {
    task.write_bytes(remote_ptr<void>(addr), bytes.data(), bytes.size());
  } catch (const std::exception&) {
    std::ostringstream os;
    os << "a vsyscall " << what << " with an address the kernel would fault on (0x" << std::hex << addr
       << "): the kernel kills such a program with SIGSEGV";
    throw RecordingRefused(os.str());
  }
  event.writes.push_back({addr, std::move(bytes)});
}

}  // namespace

void RecordSession::on_vsyscall(RecordTask& t, const Registers& regs) {
  Task& task = t.task;
  trace::Event event;
  event.kind = trace::EventKind::Syscall;
  event.tid = static_cast<uint32_t>(task.tid());
  event.regs = regs.to_block();
  int64_t result = 0;
  switch (static_cast<long>(regs.syscallno())) {
    case SYS_gettimeofday: {
      struct timeval tv{};
      struct timezone tz{};
      ::gettimeofday(&tv, &tz);
      answer(task, regs.arg(0), tv, event, "gettimeofday");
      answer(task, regs.arg(1), tz, event, "gettimeofday");
      break;
    }
    case SYS_time: {
      time_t now = ::time(nullptr);
      answer(task, regs.arg(0), now, event, "time");
      result = now;
      break;
    }
    case SYS_getcpu: {
      unsigned cpu = 0, node = 0;
      if (::getcpu(&cpu, &node) != 0) cpu = node = 0;
      answer(task, regs.arg(0), cpu, event, "getcpu");
      answer(task, regs.arg(1), node, event, "getcpu");
      break;
    }
    default: {
      std::ostringstream os;
      os << "a call through the vsyscall page at 0x" << std::hex << regs.ip() << " with number " << std::dec
         << regs.syscallno() << ", which the kernel does not emulate";
      throw RecordingRefused(os.str());
    }
  }
  std::vector<siginfo_t> held;
  Registers back = finish_vsyscall(task, result, &held);
  event.reg_changes = back.changes_since(regs);
  write_event(event);
  // The thread stands at the caller, right after the call: an event
  // boundary like a syscall's exit.
  t.reached_boundary(back);
  for (const siginfo_t& info : held) hold_back_signal(t, info);
  redeliver_deferred(t);
  task.resume(ResumeHow::Syscall);
}

}  // namespace backstep
