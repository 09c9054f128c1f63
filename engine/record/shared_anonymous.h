// A MAP_SHARED anonymous mapping as the trace describes it, from its line
// in /proc/PID/maps (SysV shared memory attachments, AIO rings).
#pragma once

#include <sys/mman.h>

#include "engine/core/proc_maps.h"
#include "engine/trace/event.h"

namespace backstep {

inline trace::Mapping shared_anonymous_mapping(const MapsEntry& e) {
  trace::Mapping m;
  m.start = e.start;
  m.end = e.end;
  m.prot = e.prot;
  m.flags = MAP_SHARED | MAP_ANONYMOUS;
  m.kind = trace::MappingKind::Anonymous;
  m.name = e.name;
  return m;
}

}  // namespace backstep
