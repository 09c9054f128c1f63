// The processes of a recording, from its events alone (no replay): what
// `backstep ps` prints. Fed the events in order, it keeps one entry per
// process in order of creation.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/trace/event.h"

namespace backstep::trace {

struct ProcessInfo {
  uint32_t pid = 0;                   // the recorded pid
  std::optional<uint32_t> ppid;       // the process whose thread created it; none for the first
  std::optional<int> status;          // the wait(2) status of its Exit event; none if it never came
  std::optional<std::string> command; // the argv of its last exec, joined by spaces; none if it never exec'd
};

class ProcessList {
 public:
  explicit ProcessList(const Header& header) : header_(header) {}

  // Takes in event number n. The first event must be the Exec that starts
  // the recording. Throws TraceError for an event that contradicts the ones
  // before it (a creator or a process that was never started).
  void add(uint64_t n, const Event& e);

  const std::vector<ProcessInfo>& processes() const { return processes_; }

 private:
  [[noreturn]] static void fail(uint64_t n, const std::string& what);
  void start(uint64_t n, uint32_t pid, std::optional<uint32_t> ppid);
  uint32_t process_of(uint64_t n, uint32_t tid) const;
  std::string command_of(const Event& e, bool first) const;

  const Header& header_;
  std::vector<ProcessInfo> processes_;
  std::map<uint32_t, std::size_t> index_;        // pid -> its newest entry
  std::map<uint32_t, uint32_t> thread_process_;  // tid -> pid
};

}  // namespace backstep::trace
