// Choosing where a hand-over's digest position goes (forced_position.cc),
// so that replay finds it at native speed and the thread's next hand-overs
// are counted (counted_handover.cc).
//
// Replay finds a digest position with a stub at its instruction that stops
// only at arrivals whose general-purpose registers are the recorded ones,
// and digests the state there (engine/replay/replay_position.cc). That is
// fast only where the registers tell the passes round the loop apart: in
//
//   11fc: mov -0x8(%rsp),%rax   ; rax = the flag read last pass: 0 each time
//   1201: add $0x1,%rax         ; rax = x, different each pass
//
// a position at 0x11fc matches at every pass, and replay digests the whole
// memory at each (hours for a 100 ms slice), while one at 0x1201 matches
// once. So the recorder, at the end of a slice (never for a signal, which
// is delivered where it came):
//
//  1. single-steps to the next instruction a counting stub fits (a short
//     jump may land inside the 5 bytes the stub's jump takes), at most
//     kStepsToCountSite steps;
//  2. single-steps once round the loop back to it, noting the registers at
//     each instruction, and stops at the first instruction of the second
//     pass, a count site, whose registers differ from those it had in the
//     first: there the registers tell the last two passes apart (an
//     induction variable, as a rule). A site it does not come back to
//     within kStepsPerPass steps was off the loop's usual path (a thread
//     stopped in a call's tail or a rare branch): it starts again from
//     the next count site, up to kAnchors sites in all.
//
// Found: the position stores no state. Not found (no site came back
// within kStepsPerPass steps, an instruction a step may not cross,
// registers that never change): the position stores the state, and replay
// takes it when its search goes on too long. Each step is a ptrace stop (about 3 us here),
// made once per slice of a thread that is not counted yet.
#include <sys/ptrace.h>

#include <cstddef>
#include <map>

#include "values/log.h"
#include "engine/core/proc_maps.h"
#include "engine/core/signals.h"
#include "engine/record/position_site.h"
#include "engine/record/record_session.h"

namespace backstep {
namespace {

constexpr int kStepsToCountSite = 32;
constexpr int kStepsPerPass = 512;
constexpr int kAnchors = 3;

bool is_prefix(uint8_t b) {
  return b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x36 || b == 0x3e ||
         b == 0x26 || b == 0x64 || b == 0x65 || (b >= 0x40 && b <= 0x4f);
}

}  // namespace

bool good_position(Task& task, uint64_t ip) {
  uint8_t insn[16] = {};
  std::size_t n = task.read_some(remote_ptr<void>(ip), insn, sizeof(insn));
  std::size_t i = 0;
  bool rep = false;
  for (; i < n && is_prefix(insn[i]); ++i) {
    if (insn[i] == 0xf2 || insn[i] == 0xf3) rep = true;
  }
  if (i >= n) return false;
  uint8_t op = insn[i];
  uint8_t next = i + 1 < n ? insn[i + 1] : 0;
  bool string_op = (op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) || (op >= 0x6c && op <= 0x6f);
  if (rep && string_op) return false;
  if (op == 0x0f && (next == 0x05 || next == 0x34)) return false;  // syscall, sysenter
  if (op == 0xcd || op == 0xcc) return false;                       // int N, int3
  return true;
}

bool steppable(Task& task, uint64_t ip) {
  if (!good_position(task, ip)) return false;
  uint8_t code[16] = {};
  std::size_t n = task.read_some(remote_ptr<void>(ip), code, sizeof(code));
  std::size_t i = 0;
  while (i < n && is_prefix(code[i])) ++i;
  return i < n && code[i] != 0x9c && code[i] != 0x9d;  // pushf, popf
}

std::optional<bool> RecordSession::step_for_position(RecordTask& t) {
  Task& task = t.task;
  task.resume(ResumeHow::SingleStep);
  WaitStatus ws = task.wait();
  // A signal that comes meanwhile is held back like the one that asked for
  // the position; the step is made again.
  while (ws.is_signal() && ws.signal != SIGTRAP) {
    siginfo_t info = task.siginfo();
    if (is_synchronous_fault(info)) return handle_stop(t, ws);
    hold_back_signal(t, info);
    task.resume(ResumeHow::SingleStep);
    ws = task.wait();
  }
  if (!ws.is_signal()) return handle_stop(t, ws);
  if (in_buffered_call(t)) {
    // Stepped into the preload library's handling of a call, where replay
    // runs other code: the thread yields at the call instead.
    request_yield(t);
    t.since_ns = 0;
    task.resume(ResumeHow::Syscall);
    return false;
  }
  return std::nullopt;
}

RecordSession::SiteSearch RecordSession::search_count_site(RecordTask& t) {
  Task& task = t.task;
  SiteSearch result;
  if (!counting_enabled() || !t.process || t.process->own_filter) return result;
  const std::vector<MapsEntry> maps = read_proc_maps(t.tid());
  int steps = 0;
  // 1. To a count site.
  for (;; ++steps) {
    uint64_t ip = task.regs().ip();
    if (count_site_possible(t, ip, maps)) break;
    if (steps == kStepsToCountSite || !steppable(task, ip)) return result;
    if (std::optional<bool> stopped = step_for_position(t)) {
      result.stopped = stopped;
      return result;
    }
  }
  // 2. Once round the loop, then on to an instruction whose registers
  // differ from the previous pass's. A site not come back to within
  // kStepsPerPass steps lies off the loop's usual path (the tail of a
  // call, a rare branch): the search starts again from the next count
  // site it passes, at most kAnchors times.
  uint64_t site = task.regs().ip();
  std::map<uint64_t, Registers> first_pass;
  int arrivals = 0;
  int anchors = 1;
  int anchored_at = 0;
  bool reanchor = false;
  for (int i = 0; i < (kAnchors + 1) * kStepsPerPass; ++i, ++steps) {
    Registers now = without_trap_flags(task.regs());
    if (reanchor && count_site_possible(t, now.ip(), maps)) {
      site = now.ip();
      first_pass.clear();
      arrivals = 0;
      anchored_at = i;
      reanchor = false;
      ++anchors;
    }
    if (now.ip() == site) ++arrivals;
    if (arrivals == 1) {
      first_pass.emplace(now.ip(), now);
    } else if (arrivals == 2) {
      auto seen = first_pass.find(now.ip());
      if (seen != first_pass.end() && !seen->second.same_gprs(now) &&
          (now.ip() == site || count_site_possible(t, now.ip(), maps))) {
        BS_LOG(Record, "thread " << t.tid() << ": position at 0x" << std::hex << now.ip() << std::dec << " after "
                                 << steps << " steps, its registers differ from the previous pass's");
        result.distinct = true;
        return result;
      }
    } else if (arrivals > 2) {
      break;  // a pass where no register changed
    }
    if (arrivals == 1 && !reanchor && i - anchored_at >= kStepsPerPass) {
      if (anchors == kAnchors) break;
      reanchor = true;
    }
    if (!steppable(task, now.ip())) break;
    if (std::optional<bool> stopped = step_for_position(t)) {
      result.stopped = stopped;
      return result;
    }
  }
  BS_LOG(Record, "thread " << t.tid() << ": no count site with changing registers after " << steps << " steps");
  return result;
}

}  // namespace backstep
