// The Exec event: after the initial execve, the address space and registers
// replay starts from. Replay rebuilds every mapping from this list (files
// from their trace copies, memory contents from the writes), so it does not
// depend on the host's copy of the program, its libraries or its layout.
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "engine/core/proc_maps.h"
#include "engine/core/cpuid_trap.h"
#include "engine/core/tool_page.h"
#include "engine/core/vdso.h"
#include "engine/record/record_session.h"

namespace backstep {
namespace {

trace::MappingKind kind_of(const MapsEntry& m, uint64_t exe_stub_area) {
  if (m.start == kToolPageAddr || (exe_stub_area && m.start == exe_stub_area)) return trace::MappingKind::Tool;
  if (m.name == "[vdso]") return trace::MappingKind::Vdso;
  if (m.name.rfind("[vvar", 0) == 0) return trace::MappingKind::Vvar;
  if (m.name == "[stack]") return trace::MappingKind::Stack;
  if (m.name == "[heap]") return trace::MappingKind::Heap;
  if (m.is_file()) return trace::MappingKind::File;
  return trace::MappingKind::Anonymous;
}

void patch_vdso(Task& task) {
  for (const MapsEntry& m : read_proc_maps(task.tid())) {
    if (m.name != "[vdso]") continue;
    std::vector<uint8_t> image = task.read_bytes(remote_ptr<void>(m.start), m.end - m.start);
    for (const VdsoPatch& p : vdso_syscall_patches(image)) {
      task.write_bytes(remote_ptr<void>(m.start + p.offset), p.code.data(), p.code.size());
    }
  }
}

// The initial program break (start_brk, field 47 of /proc/PID/stat): replay
// grows its heap from here as recorded brk calls move it.
uint64_t program_break_start(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto paren = text.rfind(')');
  if (paren == std::string::npos) throw std::runtime_error("cannot parse /proc/PID/stat");
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  for (int index = 3; fields >> field; ++index) {  // field 3 follows "(comm) "
    if (index == 47) return std::stoull(field);
  }
  throw std::runtime_error("no start_brk in /proc/PID/stat");
}

// The lowest address the stack may grow to: its RLIMIT_STACK below its
// top (at most 1 GiB), and no closer than the kernel's guard gap to the
// mapping below. The Stack mapping's start in the trace is that address, so
// that replay reserves the room the recording had (a program run under
// `ulimit -s unlimited` may recurse deeper than the usual 8 MiB).
uint64_t stack_reserve(Task& task, const std::vector<MapsEntry>& maps, const MapsEntry& stack) {
  constexpr uint64_t kGuardGap = 256 * 4096, kMaxRoom = uint64_t{1} << 30;
  struct rlimit rl {};
  if (prlimit(task.tid(), RLIMIT_STACK, nullptr, &rl) != 0) return stack.start;
  uint64_t below = 0;
  for (const MapsEntry& m : maps) {
    if (m.end <= stack.start) below = std::max(below, m.end);
  }
  uint64_t room = std::min<uint64_t>(rl.rlim_cur, kMaxRoom);
  uint64_t low = stack.end > room ? stack.end - room : 0;
  return std::max(low, below + kGuardGap) & ~uint64_t{4095};
}

}  // namespace

RecordSession::ExecSetup RecordSession::record_exec(Task& task, const std::string& path, const std::vector<std::string>& argv,
                                uint32_t caller) {
  task.open_memory();  // the exec replaced the address space
  // The program's timers run on across exec: a signal that stops the
  // thread during the recorder's own calls is delivered at its first
  // boundary instead.
  std::vector<siginfo_t> held;
  install_tool_page(task, &held);
  uint64_t exe_stub_area = install_executable_stub_area(task, read_proc_maps(task.tid()), &held);
  patch_vdso(task);
  // cpuid traps from here on where the CPU can make it (replay turns it on
  // the same way: replay/address_space.cc); exec turns it off again.
  disguise_.cpuid_faulting = false;
  if (options_.cpuid_faulting) {
    disguise_.cpuid_faulting = enable_cpuid_faulting(task, &held);
    if (!disguise_.cpuid_faulting) {
      throw RecordingRefused("--cpuid-faulting: this CPU or kernel cannot make cpuid trap (arch_prctl "
                             "ARCH_SET_CPUID failed); record without it");
    }
  }
  disguise_.program_cpuid_faulting = false;  // exec turns it off
  if (RecordTask* t = record_task(task.tid())) {
    for (const siginfo_t& s : held) hold_back_signal(*t, s);
  } else if (!held.empty()) {
    throw RecordingRefused("a signal came while the recorder set up the first program");
  }

  trace::Event event;
  event.kind = trace::EventKind::Exec;
  event.tid = caller != 0 ? caller : static_cast<uint32_t>(task.tid());
  event.regs = task.regs().to_block();
  event.xstate = task.xstate();
  std::vector<MapsEntry> maps = read_proc_maps(task.tid());
  for (const MapsEntry& m : maps) {
    if (m.name == "[vsyscall]") continue;  // fixed by the kernel, same everywhere
    trace::Mapping rec;
    rec.start = m.start;
    rec.end = m.end;
    rec.prot = m.prot;
    rec.flags = m.shared ? MAP_SHARED : MAP_PRIVATE;
    rec.offset = m.offset;
    rec.kind = kind_of(m, exe_stub_area);
    rec.name = m.name;
    bool contents = false;
    switch (rec.kind) {
      case trace::MappingKind::File: {
        char range[64];
        snprintf(range, sizeof(range), "%lx-%lx", m.start, m.end);
        std::string source = "/proc/" + std::to_string(task.tid()) + "/map_files/" + range;
        trace::StoredFile stored = writer_->add_file(source, m.name);
        rec.file = stored.path;
        rec.file_size = stored.size;
        rec.file_hash = stored.hash;
        // The kernel may have zeroed the tail of a data segment already.
        contents = (m.prot & PROT_WRITE) != 0;
        break;
      }
      case trace::MappingKind::Tool:
      case trace::MappingKind::Vvar:
        break;
      default:
        contents = (m.prot & PROT_READ) != 0;
        break;
    }
    if (rec.kind == trace::MappingKind::File) {
      char range[64];
      snprintf(range, sizeof(range), "%lx-%lx", m.start, m.end);
      site_patcher_.patch(task, "/proc/" + std::to_string(task.tid()) + "/map_files/" + range, rec.file_hash, rec,
                         event.writes);
    }
    if (contents) {
      trace::MemoryWrite w;
      w.addr = m.start;
      w.data.resize(m.end - m.start);
      w.data.resize(task.read_some(remote_ptr<void>(m.start), w.data.data(), w.data.size()));
      event.writes.push_back(std::move(w));
    }
    if (rec.kind == trace::MappingKind::Stack) rec.start = std::min(rec.start, stack_reserve(task, maps, m));
    event.mappings.push_back(std::move(rec));
  }
  ExecSetup setup;
  setup.exe_stub_area = exe_stub_area;
  answer_loader_cpuid(task, event, setup.patched_sites);
  event.status = static_cast<int64_t>(program_break_start(task.tid()));
  event.message = path;
  event.argv = argv;
  write_event(event);
  return setup;
}

}  // namespace backstep
