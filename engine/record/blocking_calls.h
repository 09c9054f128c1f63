// Which system calls may wait for another thread (or for the outside world)
// before they return. With more than one thread, the recorder lets other
// threads run while a thread sits in such a call (record_threads.cc); any
// other call is run to its end while the rest of the program stays stopped,
// so it must never wait for one of them.
#pragma once

#include "values/registers.h"

namespace backstep {

bool may_block(const Registers& entry);
// futex LOCK_PI/LOCK_PI2: a wait that writes the futex word as it starts.
bool blocks_on_pi_futex(const Registers& entry);

}  // namespace backstep
