// The replayed process's mappings (lldb's qMemoryRegionInfo), read from the
// live replay's /proc/PID/maps. Replay maps the trace's copies of the
// recorded files, so their names are translated back to the paths they had
// on the recording host: the client must see the program it recorded, not
// the trace's files/ directory. The debugger's own memory (_M) is added.
#include <sys/mman.h>

#include <filesystem>
#include <map>

#include "engine/core/proc_maps.h"
#include "engine/timeline/replay_timeline.h"

namespace backstep {

std::vector<MemoryMapping> ReplayTimeline::memory_map() {
  // Read again only once the replay ran (gdb inserts its breakpoints one
  // by one before every resume, each asking where code is).
  const pid_t tid = current_->task().tid();
  const MapsKey key{tid, current_->moves()};
  if (maps_cache_ && maps_cache_->first == key) return with_client_memory(maps_cache_->second);
  std::vector<MapsEntry> maps = read_proc_maps(tid);
  // The trace's copy (as the kernel names it) -> the recorded path; the
  // recorded files do not change during a session.
  if (!recorded_names_) {
    recorded_names_.emplace();
    for (const auto& [host_path, copy] : recorded_files_) {
      std::error_code ec;
      std::string live = std::filesystem::weakly_canonical(lookup_->file_path(copy), ec).string();
      if (!ec) recorded_names_->emplace(live, host_path);
    }
  }
  const std::map<std::string, std::string>& recorded_name = *recorded_names_;
  std::vector<MemoryMapping> out;
  out.reserve(maps.size());
  for (const MapsEntry& e : maps) {
    MemoryMapping m;
    m.start = e.start;
    m.end = e.end;
    m.readable = (e.prot & PROT_READ) != 0;
    m.writable = (e.prot & PROT_WRITE) != 0;
    m.executable = (e.prot & PROT_EXEC) != 0;
    auto it = recorded_name.find(e.name);
    m.name = it != recorded_name.end() ? it->second : e.name;
    out.push_back(std::move(m));
  }
  maps_cache_.emplace(key, out);
  return with_client_memory(std::move(out));
}

std::vector<MemoryMapping> ReplayTimeline::with_client_memory(std::vector<MemoryMapping> maps) const {
  client_memory_.add_to(maps);  // lldb's _M memory, at every position
  return maps;
}

}  // namespace backstep
