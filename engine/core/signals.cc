#include "engine/core/signals.h"

#include <cstring>
#include <fstream>
#include <string>

namespace backstep {

bool is_synchronous_fault(const siginfo_t& info) {
  switch (info.si_signo) {
    case SIGSEGV:
    case SIGBUS:
    case SIGILL:
    case SIGFPE:
    case SIGTRAP:
      return info.si_code > 0;  // raised by the kernel for the faulting instruction
    default:
      return false;
  }
}

uint64_t proc_status_mask(pid_t pid, const std::string& key) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stoull(line.substr(key.size() + 1), nullptr, 16);
  }
  return 0;
}

namespace {

SignalAction default_action(int sig) {
  switch (sig) {
    case SIGCHLD:
    case SIGURG:
    case SIGWINCH:
    case SIGCONT:
      return SignalAction::Ignore;
    case SIGSTOP:
    case SIGTSTP:
    case SIGTTIN:
    case SIGTTOU:
      return SignalAction::Stop;
    default:
      return SignalAction::Terminate;
  }
}

}  // namespace

SignalAction signal_action(pid_t pid, int sig) {
  uint64_t bit = uint64_t{1} << (sig - 1);
  if (proc_status_mask(pid, "SigCgt") & bit) return SignalAction::Handler;
  if (proc_status_mask(pid, "SigIgn") & bit) return SignalAction::Ignore;
  return default_action(sig);
}

bool signal_ignored(pid_t pid, int sig) {
  return (proc_status_mask(pid, "SigIgn") & (uint64_t{1} << (sig - 1))) != 0;
}

uint64_t deliverable_signals(pid_t tid) {
  // One read of the status file for its three masks.
  std::ifstream f("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  uint64_t pending = 0, blocked = 0;
  while (std::getline(f, line)) {
    std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    if (key != "SigPnd" && key != "ShdPnd" && key != "SigBlk") continue;
    uint64_t mask = std::stoull(line.substr(colon + 1), nullptr, 16);
    (key == "SigBlk" ? blocked : pending) |= mask;
  }
  return pending & ~blocked;
}

std::vector<uint8_t> siginfo_bytes(const siginfo_t& info) {
  std::vector<uint8_t> out(sizeof(info));
  std::memcpy(out.data(), &info, sizeof(info));
  return out;
}

siginfo_t siginfo_from_bytes(const std::vector<uint8_t>& bytes) {
  siginfo_t info{};
  std::memcpy(&info, bytes.data(), std::min(bytes.size(), sizeof(info)));
  return info;
}

}  // namespace backstep
