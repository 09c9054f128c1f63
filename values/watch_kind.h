// What a watchpoint watches: writes, reads or both (gdb's Z2, Z3, Z4). One
// type from the server's requests through the timeline to the replay's
// debug registers and its emulation by steps.
#pragma once

namespace backstep {

enum class WatchKind { Write, Read, Access };

}  // namespace backstep
