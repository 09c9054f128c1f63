// Where the recorder may name a forced position (forced_position.cc) and
// where it may single-step on the way to a better one
// (count_site_search.cc).
#pragma once

#include <cstdint>

#include "values/registers.h"

namespace backstep {

class Task;

// Whether replay can find the instruction at `ip` with a breakpoint or a
// stub placed before it and reach the same state: not in the middle of a
// string instruction with a REP prefix (its breakpoint fires once, before
// the first round), and not at an instruction that enters the kernel (the
// next event is right there anyway).
bool good_position(Task& task, uint64_t ip);

// Whether one single step may take the thread over the instruction at `ip`
// and leave what replay sees when it runs there: a good position, and not
// pushf or popf, which would see the trap flag the step sets.
bool steppable(Task& task, uint64_t ip);

}  // namespace backstep
