// rdtsc and rdtscp read by the preload library. Where the kernel makes them
// fault (PR_TSC_SIGSEGV), or where the recorder patches rdtsc into a
// trapping `int 0x2e` and rdtscp into `int 0x2f; nop` (site_patching.h),
// each trap is a ptrace stop and an Rdtsc event, about 25-40 us. At a
// site's first trap, once the process has the library, the
// site becomes a jump to a stub (syscall_stub.h) that enters the library's
// trampoline as the pseudo call BS_CALL_RDTSC or BS_CALL_RDTSCP
// (preload/tsc_call.c): from then on the library reads the counter (and
// rdtscp's auxiliary value) and logs it in the thread's buffer, and the
// stub's traced path traps the old way only when the library cannot (no
// room, a switch point asked for).
#include <cstddef>
#include <cstring>

#include "values/log.h"
#include "engine/core/syscall_stub.h"
#include "engine/core/tool_page.h"
#include "engine/core/tsc_clock.h"
#include "engine/record/record_session.h"
#include "preload/preload_interface.h"

namespace backstep {

void RecordSession::publish_tsc_rules(RecordTask& t) {
  if (!t.buffer) return;
  // Where the kernel makes rdtsc fault, the library's counter is the
  // clock's (tsc_clock.h); elsewhere tsc_mult stays 0 and it reads the
  // counter itself. Not recorded: each value is in its record, and a read
  // the program makes fault is a traced one.
  bs_buffer_header rules{};
  if (!site_patcher_.enabled()) {
    const TscClock& clock = TscClock::recording();
    rules.tsc_base = clock.base;
    rules.tsc_base_ns = clock.base_ns;
    rules.tsc_mult = clock.mult;
  }
  rules.tsc_faults = t.tsc_faults ? 1 : 0;
  constexpr std::size_t from = offsetof(bs_buffer_header, tsc_base);
  constexpr std::size_t to = offsetof(bs_buffer_header, tsc_reserved);
  t.task.write_bytes(remote_ptr<void>(t.buffer + from), reinterpret_cast<const uint8_t*>(&rules) + from, to - from);
}

bool RecordSession::buffer_tsc_site(RecordTask& t, Registers& after, trace::Event& event) {
  // Where the kernel makes rdtsc fault, the library's values come from the
  // clock, as the recorder's do (tsc_clock.h; register_buffer).
  if (!buffering() || !t.process || !t.process->trampoline) return false;
  RecordProcess& p = *t.process;
  Task& task = t.task;
  uint64_t site = Registers::from_block(*event.regs).ip();
  if (p.in_stub_area(site)) return false;  // a stub's own trap
  if (site >= kToolPageAddr && site < kToolPageAddr + kToolPageSize) return false;
  uint8_t code[syscall_stub::kSiteReadLength];
  std::size_t got = task.read_some(remote_ptr<void>(site), code, sizeof(code));
  std::optional<syscall_stub::StubEntry> entry = syscall_stub::site_entry(code, got);
  if (entry != syscall_stub::StubEntry::Rdtsc && entry != syscall_stub::StubEntry::Rdtscp) return false;
  std::optional<syscall_stub::Plan> plan = syscall_stub::plan(site, code, got);
  if (!plan) return false;
  std::vector<std::pair<uint64_t, std::size_t>> written;
  std::optional<uint64_t> stub = install_stub(t, *plan, *entry, written);
  if (!stub) return false;
  for (const auto& [addr, len] : written) {
    trace::MemoryWrite w{addr, std::vector<uint8_t>(len)};
    if (task.read_some(remote_ptr<void>(addr), w.data.data(), len) != len) {
      throw std::runtime_error("cannot read back the rdtsc stub the recorder wrote");
    }
    event.writes.push_back(std::move(w));
  }
  // The thread stands after the trap, now inside the jump: it goes on in
  // the stub's traced path, right after its own trap.
  after.set_ip(syscall_stub::layout(*stub).after_traced_syscall);
  BS_LOG(Record, "rdtsc at 0x" << std::hex << site << " now read by the preload library (stub 0x" << *stub << ")");
  return true;
}

}  // namespace backstep
