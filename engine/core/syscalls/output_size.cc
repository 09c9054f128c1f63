#include "engine/core/syscalls/output_size.h"

#include "preload/preload_interface.h"

namespace backstep::sys {

// SizeKind and the library's enum bs_size_kind number the spec's forms alike.
static_assert(static_cast<int>(SizeKind::Fixed) == BS_SIZE_FIXED);
static_assert(static_cast<int>(SizeKind::Ret) == BS_SIZE_RET);
static_assert(static_cast<int>(SizeKind::RetTimes) == BS_SIZE_RET_TIMES);
static_assert(static_cast<int>(SizeKind::Arg) == BS_SIZE_ARG);
static_assert(static_cast<int>(SizeKind::ArgTimes) == BS_SIZE_ARG_TIMES);
static_assert(static_cast<int>(SizeKind::DerefArg) == BS_SIZE_DEREF_ARG);
static_assert(static_cast<int>(SizeKind::FdSet) == BS_SIZE_FDSET);

uint64_t output_size(const OutParam& out, const uint64_t (&args)[6], int64_t result, uint32_t pointed) {
  bool failed = result < 0 && result > -4096;
  if (failed) return out.size_kind == SizeKind::Fixed ? out.size : 0;
  uint64_t value = out.size_kind == SizeKind::DerefArg ? pointed : args[out.size_arg];
  return bs_output_size(static_cast<uint8_t>(out.size_kind), out.size, value, result);
}

}  // namespace backstep::sys
