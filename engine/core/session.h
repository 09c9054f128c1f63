// A session owns tracees. RecordSession and ReplaySession derive from it;
// several sessions can live in one process (checkpoints are sessions). The
// base never knows its subclasses.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>

#include "engine/core/task.h"

namespace backstep {

class Session {
 public:
  virtual ~Session() = default;

  Task* find_task(pid_t tid) {
    auto it = tasks_.find(tid);
    return it == tasks_.end() ? nullptr : it->second.get();
  }

 protected:
  Task& add_task(pid_t tid) {
    auto& slot = tasks_[tid];
    slot = std::make_unique<Task>(tid);
    return *slot;
  }

  // Keyed by the live thread id: every thread of every process the session
  // traces (threads and process trees each add theirs).
  std::map<pid_t, std::unique_ptr<Task>> tasks_;
};

}  // namespace backstep
