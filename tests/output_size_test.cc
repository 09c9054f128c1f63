// One output-size rule (the spec's OUTPUTS): what the recorder counts for a
// traced call (engine/core/syscalls/output_size.h) and what the preload
// library copies for a buffered one (bs_out_len, preload/buffer_layout.h)
// agree for every output of the spec, over a grid of arguments and results,
// wherever the library would buffer the call.
#define BOOST_TEST_MODULE output_size
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <initializer_list>

#include "engine/core/syscalls/output_size.h"
#include "engine/core/syscalls/syscall_table.h"
#include "preload/preload_interface.h"

// support/buffered_calls.c: the preload library's generated table, and its
// size rules compiled as the library compiles them (C).
extern "C" const bs_buffered_call* bs_test_buffered_calls(unsigned* count);
extern "C" uint64_t bs_test_out_bound(const bs_out_param* out, const uint64_t* args);
extern "C" uint64_t bs_test_out_len(const bs_out_param* out, const uint64_t* args, int64_t ret);
extern "C" uint64_t bs_test_records_capacity(void);

namespace sys = backstep::sys;

namespace {

constexpr uint64_t kPointer = 0x7000'1000;  // any non-null output pointer

// The preload table's form of a spec output, as the generator writes it:
// a ret-sized output is bounded by the argument after its pointer.
bs_out_param library_form(const sys::OutParam& out) {
  bool by_ret = out.size_kind == sys::SizeKind::Ret || out.size_kind == sys::SizeKind::RetTimes;
  return bs_out_param{.arg = out.arg,
                      .kind = static_cast<uint8_t>(out.size_kind),
                      .size_arg = static_cast<uint8_t>(by_ret ? out.arg + 1 : out.size_arg),
                      .flags = 0,
                      .size = out.size};
}

bool failed(int64_t ret) { return ret < 0 && ret > -4096; }

const std::initializer_list<uint64_t> kValues = {0, 1, 2, 7, 8, 12, 63, 64, 65, 100, 1023, 1024, 1025, 4096,
                                                 65535, 65536, 65537, uint64_t{1} << 20, uint64_t{1} << 31,
                                                 0xffffffff, (uint64_t{1} << 32) | 5, ~uint64_t{0}};
const std::initializer_list<int64_t> kResults = {0, 1, 3, 12, 100, 4096, 1 << 20, -1, -14, -4095, -4096,
                                                 int64_t{1} << 40};

}  // namespace

BOOST_AUTO_TEST_CASE(recorder_and_library_count_the_same_bytes) {
  const uint64_t capacity = bs_test_records_capacity();
  int compared = 0;
  for (const sys::SyscallInfo& info : sys::all_syscalls()) {
    for (uint8_t i = 0; i < info.out_count; ++i) {
      const sys::OutParam& out = info.outs[i];
      const bs_out_param lib = library_form(out);
      for (uint64_t value : kValues) {
        for (int64_t ret : kResults) {
          uint64_t args[6] = {};
          args[out.arg] = kPointer;
          if (lib.kind != BS_SIZE_FIXED) args[lib.size_arg] = value;
          // The kernel never returns more bytes than a ret-sized output's
          // bound argument allows, nor more items (the library caps them).
          if (lib.kind == BS_SIZE_RET && ret > 0 && static_cast<uint64_t>(ret) > value) continue;
          if (lib.kind == BS_SIZE_RET_TIMES && ret > 0 && static_cast<uint64_t>(ret) > value) continue;
          // A DerefArg output's length is read from memory by the recorder;
          // the library buffers it only with a null pointer, below.
          uint32_t pointed = static_cast<uint32_t>(value);
          uint64_t recorded = sys::output_size(out, args, ret, pointed);
          BOOST_TEST_CONTEXT(info.name << " arg" << int{out.arg} << " value " << value << " result " << ret) {
            if (failed(ret)) {
              // A failed call: the recorder still counts a Fixed output
              // (rewriting unchanged bytes is harmless); the library copies
              // none but those marked BS_OUT_ALWAYS, elsewhere.
              BOOST_TEST(recorded == (out.size_kind == sys::SizeKind::Fixed ? out.size : 0u));
              BOOST_TEST(bs_test_out_len(&lib, args, ret) == 0u);
              continue;
            }
            if (lib.kind == BS_SIZE_DEREF_ARG) {
              BOOST_TEST(bs_test_out_bound(&lib, args) > capacity);  // traced
              args[out.arg] = 0;
              BOOST_TEST(bs_test_out_bound(&lib, args) == 0u);
              BOOST_TEST(bs_test_out_len(&lib, args, ret) == 0u);
              continue;
            }
            if (bs_test_out_bound(&lib, args) > capacity) continue;  // traced: the library reserves no room
            BOOST_TEST(recorded == bs_test_out_len(&lib, args, ret));
            ++compared;
          }
        }
      }
    }
  }
  BOOST_TEST(compared > 1000);
}

// The preload table's outputs are the spec's, in the same order, with the
// same sizes: sizeof(TYPE) gives the same number in the C table as in the
// C++ one.
BOOST_AUTO_TEST_CASE(preload_table_outputs_are_the_spec_outputs) {
  unsigned count = 0;
  const bs_buffered_call* calls = bs_test_buffered_calls(&count);
  int checked = 0;
  for (unsigned c = 0; c < count; ++c) {
    const bs_buffered_call& call = calls[c];
    if (call.flags & BS_CALL_OP_EXACT) continue;  // ioctl's requests: unit.ioctl_table_test
    const sys::SyscallInfo* info = sys::lookup(call.nr);
    BOOST_TEST_REQUIRE(info != nullptr);
    BOOST_TEST_CONTEXT(info->name) {
      BOOST_TEST(call.out_count >= info->out_count);  // scattering calls add theirs after the spec's
      for (uint8_t i = 0; i < info->out_count; ++i) {
        const bs_out_param want = library_form(info->outs[i]);
        BOOST_TEST(call.outs[i].arg == want.arg);
        BOOST_TEST(call.outs[i].kind == want.kind);
        BOOST_TEST(call.outs[i].size_arg == want.size_arg);
        BOOST_TEST(call.outs[i].size == want.size);
        ++checked;
      }
    }
  }
  BOOST_TEST(checked > 30);
}
