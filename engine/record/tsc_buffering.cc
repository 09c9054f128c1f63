// rdtsc and rdtscp read by the preload library. Where the recorder patches
// rdtsc into a trapping `int 0x2e` and rdtscp into `int 0x2f; nop`
// (site_patching.h), each trap is a ptrace stop and an Rdtsc event, about
// 25-40 us. At a site's first trap, once the process has the library, the
// site becomes a jump to a stub (syscall_stub.h) that enters the library's
// trampoline as the pseudo call BS_CALL_RDTSC or BS_CALL_RDTSCP
// (preload/tsc_call.c): from then on the library reads the counter (and
// rdtscp's auxiliary value) and logs it in the thread's buffer, and the
// stub's traced path traps the old way only when the library cannot (no
// room, a switch point asked for).
#include <cstring>

#include "values/log.h"
#include "engine/core/syscall_stub.h"
#include "engine/core/tool_page.h"
#include "engine/record/record_session.h"
#include "preload/preload_interface.h"

namespace backstep {

bool RecordSession::buffer_tsc_site(RecordTask& t, Registers& after, trace::Event& event) {
  // Only where rdtsc sites are patched (the kernel cannot make rdtsc fault,
  // or BACKSTEP_PATCH_RDTSC=1): the recorder then leaves the kernel's trap
  // off, which would make the library's own rdtsc fault (inside its hook).
  if (!buffering() || !t.process || !t.process->trampoline || !site_patcher_.enabled()) {
    return false;
  }
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
