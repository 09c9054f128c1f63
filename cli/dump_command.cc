#include <sys/wait.h>

#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "engine/core/compat_syscalls.h"
#include "engine/core/registers.h"
#include "engine/core/syscalls/syscall_table.h"
#include "engine/trace/reader.h"
#include "engine/trace/trace_error.h"
#include "preload/preload_interface.h"

namespace backstep::cli {
namespace {

std::string describe_syscall(const trace::Event& e) {
  Registers exit = Registers::from_block(*e.regs);
  exit.apply(e.reg_changes);
  // A 32-bit call (int 0x80) is shown as the 64-bit call it was recorded as.
  std::optional<Registers> call = native_call_of(e.regs, e.status);
  if (!call) return "system call of unknown ABI " + std::to_string(e.status);
  const Registers& entry = *call;
  long nr = static_cast<long>(entry.syscallno());
  const sys::SyscallInfo* info = sys::lookup(nr);
  char buf[256];
  std::snprintf(buf, sizeof(buf), "%s%s(0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ")",
                e.status == kAuditArchI386 ? "int 0x80 " : "",
                info ? info->name : ("syscall_" + std::to_string(nr)).c_str(), entry.arg(0),
                entry.arg(1), entry.arg(2));
  std::string out = buf;
  if (e.kind == trace::EventKind::SyscallEntered) return out;  // the results come with its Syscall event
  if (e.reg_changes.empty() && (nr == 60 || nr == 231)) return out;
  out += " = " + std::to_string(exit.syscall_result());
  return out;
}

// How many buffered calls a BufferFlush event holds: the records that tile
// its first memory write (the buffer's data area, see
// engine/record/record_buffers.cc). nullopt when they do not tile it.
std::optional<std::size_t> buffered_calls(const trace::Event& e) {
  if (e.writes.empty()) return std::nullopt;
  const std::vector<uint8_t>& data = e.writes[0].data;
  std::size_t calls = 0;
  for (std::size_t at = 0; at < data.size(); ++calls) {
    bs_record r;
    if (data.size() - at < sizeof(r)) return std::nullopt;
    std::memcpy(&r, data.data() + at, sizeof(r));
    if (r.size < sizeof(r) || r.size % 8 != 0 || r.size > data.size() - at) return std::nullopt;
    at += r.size;
  }
  return calls;
}

std::string describe(const trace::Event& e) {
  std::string text = trace::to_string(e.kind);
  switch (e.kind) {
    case trace::EventKind::Exec:
      text += " rip=0x" + [&] { char b[32]; std::snprintf(b, sizeof b, "%llx", Registers::from_block(*e.regs).raw().rip); return std::string(b); }();
      text += " mappings=" + std::to_string(e.mappings.size());
      break;
    case trace::EventKind::Syscall:
    case trace::EventKind::SyscallEntered:
      text += " " + describe_syscall(e);
      break;
    case trace::EventKind::Signal:
    case trace::EventKind::FatalSignal:
      text += std::string(" ") + sigabbrev_np(static_cast<int>(e.status));
      break;
    case trace::EventKind::Exit: {
      int status = static_cast<int>(e.status);
      text += WIFEXITED(status) ? " status " + std::to_string(WEXITSTATUS(status))
                                : std::string(" killed by SIG") + sigabbrev_np(WTERMSIG(status));
      break;
    }
    case trace::EventKind::Abort:
      text += " " + e.message;
      break;
    case trace::EventKind::BufferFlush: {
      std::optional<std::size_t> calls = buffered_calls(e);
      text += calls ? " " + std::to_string(*calls) + (*calls == 1 ? " call" : " calls")
                    : std::string(" malformed records");
      break;
    }
    case trace::EventKind::Position: {
      char b[96];
      std::snprintf(b, sizeof b, " rip=0x%llx digest=%016" PRIx64 "%s",
                    Registers::from_block(*e.regs).raw().rip, e.position->digest,
                    e.position->fixpoint ? " fixpoint" : "");
      text += b;
      break;
    }
    default:
      break;
  }
  std::size_t bytes = 0;
  for (const auto& w : e.writes) bytes += w.data.size();
  if (bytes) text += " [" + std::to_string(bytes) + " bytes written]";
  for (const auto& echo : e.echoes) text += " [" + std::to_string(echo.data.size()) + " bytes to fd " + std::to_string(echo.fd) + "]";
  for (const auto& m : e.mappings) {
    if (m.kind == trace::MappingKind::ForkWiped || m.kind == trace::MappingKind::ForkDropped) {
      char b[96];
      std::snprintf(b, sizeof b, " [%s 0x%llx-0x%llx]", m.kind == trace::MappingKind::ForkWiped ? "zeroed" : "not copied",
                    static_cast<unsigned long long>(m.start), static_cast<unsigned long long>(m.end));
      text += b;
      continue;
    }
    if (e.kind != trace::EventKind::Syscall) continue;
    if (m.kind == trace::MappingKind::FileSize) {
      text += " [shared file " + std::to_string(m.shared_object) + " now " + std::to_string(m.file_size) + " bytes]";
    } else {
      text += " [maps " + (m.name.empty() ? std::string("anonymous") : m.name) + "]";
    }
  }
  return text;
}

}  // namespace

int dump_command(const Args& args) {
  if (args.size() > 1) {
    error("dump takes one trace");
    return kExitUsage;
  }
  std::signal(SIGPIPE, SIG_DFL);
  std::string dir = resolve_trace(args.empty() ? "" : args[0]);
  try {
    trace::TraceReader reader(dir);
    const trace::Header& h = reader.header();
    std::string cmd;
    for (const auto& a : h.argv) cmd += (cmd.empty() ? "" : " ") + a;
    std::printf("# trace %s: format %u, backstep %s, codec %s, counter %s\n# command: %s\n# cwd: %s\n",
                dir.c_str(), h.format_version, h.backstep_version.c_str(), trace::to_string(h.codec),
                h.counter_mode.c_str(), cmd.c_str(), h.cwd.c_str());
    for (;;) {
      uint64_t n = reader.next_event_number();
      auto event = reader.next();
      if (!event) break;
      std::printf("%" PRIu64 " tid %u %s\n", n, event->tid, describe(*event).c_str());
    }
    if (reader.truncated()) {
      std::printf("# the trace ends at event %" PRIu64 " (cut short)\n", reader.next_event_number());
    }
  } catch (const trace::TraceError& e) {
    std::fflush(stdout);
    error(e.what());
    return kExitFailure;
  }
  return 0;
}

int ls_command(const Args& args) {
  if (!args.empty()) {
    error("ls takes no arguments");
    return kExitUsage;
  }
  std::string latest;
  try {
    latest = resolve_trace("");
  } catch (...) {
  }
  for (const std::string& name : list_traces()) {
    bool is_latest = !latest.empty() && latest.size() >= name.size() &&
                     latest.compare(latest.size() - name.size(), name.size(), name) == 0 &&
                     (latest.size() == name.size() || latest[latest.size() - name.size() - 1] == '/');
    std::printf("%s%s\n", name.c_str(), is_latest ? "  (latest)" : "");
  }
  return 0;
}

}  // namespace backstep::cli
