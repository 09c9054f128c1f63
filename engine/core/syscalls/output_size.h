// How many bytes a traced call wrote through one of its outputs (the spec's
// argN:SIZE). The rule itself is the preload library's too
// (bs_output_size, preload/preload_interface.h), so that a buffered call
// records the same bytes as a traced one.
#pragma once

#include <cstdint>

#include "engine/core/syscalls/syscall_table.h"

namespace backstep::sys {

// `args` and `result` are the call's. `pointed` is, for a DerefArg output,
// the uint32 its size argument points at after the call (0 when that
// pointer is null or cannot be read). A failed call counts only its Fixed
// outputs, which the recorder records whatever the result: a failed select
// still writes the time left, and rewriting unchanged bytes is harmless.
uint64_t output_size(const OutParam& out, const uint64_t (&args)[6], int64_t result, uint32_t pointed);

}  // namespace backstep::sys
