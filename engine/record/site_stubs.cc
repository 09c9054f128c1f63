// Writing a stub into the preload library's stub area and the jump to it
// over a site (syscall_stub.h has the layouts): shared by patched system
// call sites (record_buffers.cc) and patched rdtsc sites (tsc_buffering.cc).
#include <sys/mman.h>

#include <algorithm>

#include "values/log.h"
#include "engine/core/proc_maps.h"
#include "engine/record/record_session.h"
#include "preload/preload_interface.h"

namespace backstep {

std::optional<uint64_t> RecordSession::install_stub(RecordTask& t, const syscall_stub::Plan& plan, uint64_t entry,
                                                    std::vector<std::pair<uint64_t, std::size_t>>& written) {
  Task& task = t.task;
  RecordProcess& p = *t.process;
  uint64_t site = plan.info.site;
  uint64_t site_end = site + plan.info.site_length;
  // Only code of a file mapped privately (a library or the executable): a
  // write there is the process's own copy, never the file.
  if (!p.patchable_code_known) {
    p.patchable_code.clear();
    for (const MapsEntry& m : read_proc_maps(task.tid())) {
      if (m.is_file() && !m.shared && (m.prot & PROT_EXEC)) p.patchable_code.push_back({m.start, m.end});
    }
    p.patchable_code_known = true;
  }
  bool private_file = false;
  for (const RecordProcess::CodeRange& r : p.patchable_code) {
    if (site >= r.start && site_end <= r.end) private_file = true;
  }
  if (!private_file) return std::nullopt;
  auto read = [&](uint64_t addr, void* buf, std::size_t len) {
    return task.read_some(remote_ptr<void>(addr), buf, len);
  };
  if (syscall_stub::may_be_jumped_into(plan, read)) {
    BS_LOG(Record, "left the site at 0x" << std::hex << site << " as it is: a jump may land inside its patch");
    return std::nullopt;
  }
  if (!site_idle(t, plan)) return std::nullopt;
  uint64_t slots = 0;
  if (task.read_some(remote_ptr<void>(p.stub_area), &slots, sizeof(slots)) != sizeof(slots)) return std::nullopt;
  slots = std::max<uint64_t>(slots, 1);  // slot 0 holds the count
  if (slots >= p.stub_area_size / BS_STUB_SIZE) return std::nullopt;
  uint64_t stub = p.stub_area + slots * BS_STUB_SIZE;
  if (!syscall_stub::reachable(plan, stub, entry)) return std::nullopt;
  std::vector<uint8_t> s = syscall_stub::stub_code(plan, stub, entry);
  task.write_bytes(remote_ptr<void>(stub), s.data(), s.size());
  ++slots;
  task.write_bytes(remote_ptr<void>(p.stub_area), &slots, sizeof(slots));
  std::vector<uint8_t> jump = syscall_stub::site_code(plan, stub);
  task.write_bytes(remote_ptr<void>(site), jump.data(), jump.size());
  written = {{stub, s.size()}, {p.stub_area, sizeof(slots)}, {site, jump.size()}};
  move_out_of_site(t, plan.info, stub);
  return stub;
}

}  // namespace backstep
