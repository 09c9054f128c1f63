// Names for the syscall table's enums (the table itself is generated from
// syscalls.spec).
#include "engine/core/syscalls/syscall_table.h"

namespace backstep::sys {

// The same spelling as the spec's FAMILY column.
const char* to_string(Family family) {
  switch (family) {
    case Family::Fs: return "fs";
    case Family::Mm: return "mm";
    case Family::Time: return "time";
    case Family::Identity: return "identity";
    case Family::Net: return "net";
    case Family::Poll: return "poll";
    case Family::Signal: return "signal";
    case Family::Process: return "process";
    case Family::Thread: return "thread";
    case Family::Ioctl: return "ioctl";
    case Family::Misc: return "misc";
  }
  return "unknown";
}

}  // namespace backstep::sys
