#include "cli/event_text.h"

#include <sys/wait.h>

#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/compat_syscalls.h"
#include "values/registers.h"
#include "engine/core/syscalls/syscall_table.h"
#include "engine/trace/printable.h"
#include "preload/preload_interface.h"

namespace backstep::cli {
namespace {

static_assert(trace::kSyscallAbiI386 == kAuditArchI386, "the trace and core name the same i386 ABI");

// "SEGV", or the number for one the C library has no name for (the decoder
// refuses those; this never hands a null pointer on).
std::string signal_abbrev(int sig) {
  const char* abbrev = sig > 0 ? sigabbrev_np(sig) : nullptr;
  return abbrev ? abbrev : std::to_string(sig);
}

std::string describe_syscall(const trace::Event& e) {
  if (!e.regs) return "without registers";
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

// " rip=0x401000", or nothing for an event without registers.
std::string rip_text(const trace::Event& e) {
  if (!e.regs) return "";
  char b[32];
  std::snprintf(b, sizeof b, " rip=0x%llx", Registers::from_block(*e.regs).raw().rip);
  return b;
}

std::string describe(const trace::Event& e) {
  std::string text = trace::to_string(e.kind);
  switch (e.kind) {
    case trace::EventKind::Rdtsc:  // and cpuid, RDRAND: where it trapped
    case trace::EventKind::Exec:
      text += rip_text(e);
      if (e.kind == trace::EventKind::Rdtsc) break;
      text += " mappings=" + std::to_string(e.mappings.size());
      break;
    case trace::EventKind::Syscall:
    case trace::EventKind::SyscallEntered:
      text += " " + describe_syscall(e);
      break;
    case trace::EventKind::Signal:
    case trace::EventKind::FatalSignal:
      text += " " + signal_abbrev(static_cast<int>(e.status));
      break;
    case trace::EventKind::Exit: {
      int status = static_cast<int>(e.status);
      text += WIFEXITED(status) ? " status " + std::to_string(WEXITSTATUS(status))
                                : " killed by SIG" + signal_abbrev(WTERMSIG(status));
      break;
    }
    case trace::EventKind::Abort:
      text += " " + trace::printable(e.message);
      break;
    case trace::EventKind::BufferFlush: {
      std::optional<std::size_t> calls = buffered_calls(e);
      text += calls ? " " + std::to_string(*calls) + (*calls == 1 ? " call" : " calls")
                    : std::string(" malformed records");
      break;
    }
    case trace::EventKind::TraceeChange:
      if (e.regs) text += " registers set," + rip_text(e);
      if (!e.xstate.empty()) text += " XSAVE area set (" + std::to_string(e.xstate.size()) + " bytes)";
      break;
    case trace::EventKind::Position: {
      text += rip_text(e);
      if (!e.position) break;
      char b[64];
      if (e.position->counted()) {
        std::snprintf(b, sizeof b, " arrivals=%" PRIu64, e.position->arrivals);
      } else {
        std::snprintf(b, sizeof b, " digest=%016" PRIx64 "%s", e.position->digest,
                      e.position->fixpoint ? " fixpoint" : "");
      }
      text += b;
      break;
    }
    default:
      break;
  }
  std::size_t bytes = 0;
  for (const auto& w : e.writes) bytes += w.data.size();
  if (e.stored_state) {
    // A position's stored state (docs/trace-format.md): its memory is no write.
    const trace::StoredState& s = *e.stored_state;
    text += std::string(" [stored state: ") + trace::to_string(s.kind);
    if (s.kind == trace::StoredState::Kind::Incremental) text += " on event " + std::to_string(s.base);
    text += ", " + std::to_string(bytes) + " bytes of memory";
    if (!s.zeroed.empty()) text += ", " + std::to_string(s.zeroed.size()) + " zeroed runs";
    text += "]";
  } else if (bytes) {
    text += " [" + std::to_string(bytes) + " bytes written]";
  }
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
      text += " [maps " + (m.name.empty() ? std::string("anonymous") : trace::printable(m.name)) + "]";
    }
  }
  return text;
}

}  // namespace

std::string event_text(const trace::Event& event) { return describe(event); }

std::string header_text(const std::string& dir, const trace::Header& h) {
  std::string cmd;
  for (const auto& a : h.argv) cmd += (cmd.empty() ? "" : " ") + a;
  char format[160];
  std::snprintf(format, sizeof format, "format %u, backstep ", h.format_version);
  return "# trace " + trace::printable(dir) + ": " + format + trace::printable(h.backstep_version, 64) +
         ", codec " + trace::to_string(h.codec) + ", counter " + trace::printable(h.counter_mode, 64) +
         "\n# command: " + trace::printable(cmd) + "\n# cwd: " + trace::printable(h.cwd) + "\n" +
         (h.chaos_seed ? "# chaos: seed " + std::to_string(*h.chaos_seed) + "\n" : std::string());
}

}  // namespace backstep::cli
