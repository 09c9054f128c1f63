// bs_syscall_trampoline (preload/trampoline.S) entered from a stub laid out
// as the recorder writes it (tests/support/stub_harness.S): it returns to
// the handled path with only rax changed, or to the traced path with every
// register and rflags as at the site, whatever the stack's alignment.
#define BOOST_TEST_MODULE preload_trampoline
#include <boost/test/unit_test.hpp>

#include <sys/mman.h>
#include <sys/syscall.h>

#include <cstdint>
#include <cstring>

#include "preload/preload_internal.h"

extern "C" {
extern uint64_t bs_stub_in[17];
extern uint64_t bs_stub_out[17];
extern uint64_t bs_stub_path;
extern uint64_t bs_stub_site_rsp;
void bs_run_stub(uint64_t misalign);
}

namespace {

const char* const kNames[17] = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9",
                                "r10", "r11", "r12", "r13", "r14", "r15", "rflags", "rsp"};
constexpr int kRax = 0, kRflags = 15, kRsp = 16;
constexpr uint64_t kHandled = 1, kTraced = 2;

// CF PF AF ZF SF DF OF, with the always-set bit 1 and IF: a value the C code
// the trampoline calls would change (it needs DF clear; its compares set the
// others). User code cannot change IF, and AC would fault unaligned accesses.
constexpr uint64_t kFlags = 0x1 | 0x2 | 0x4 | 0x10 | 0x40 | 0x80 | 0x200 | 0x400 | 0x800;

// Distinct values in every register; rax the system call number.
void load_site_registers(long nr, uint64_t flags) {
  for (int i = 0; i < 15; ++i) bs_stub_in[i] = 0x1111111111111111ull * static_cast<uint64_t>(i + 1) + 0x0123;
  bs_stub_in[kRax] = static_cast<uint64_t>(nr);
  bs_stub_in[kRflags] = flags;
}

void check_registers(uint64_t expected_rax) {
  for (int i = 0; i < 15; ++i) {
    uint64_t want = i == kRax ? expected_rax : bs_stub_in[i];
    BOOST_TEST(bs_stub_out[i] == want, kNames[i] << ": " << std::hex << bs_stub_out[i] << " != " << want);
  }
  BOOST_TEST(bs_stub_out[kRflags] == bs_stub_in[kRflags], std::hex << "rflags " << bs_stub_out[kRflags]
                                                                   << " != " << bs_stub_in[kRflags]);
  BOOST_TEST(bs_stub_out[kRsp] == bs_stub_site_rsp);
}

// A replay buffer holding one getpid record that returns `ret`: handled
// without the kernel or the tool page.
// A whole buffer: the hook runs on the stack at its end.
struct ReplayBuffer {
  void* memory = mmap(nullptr, BS_BUFFER_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  bs_buffer_header* header = static_cast<bs_buffer_header*>(memory);
  explicit ReplayBuffer(int64_t ret) {
    BOOST_REQUIRE(memory != MAP_FAILED);
    header->mode = BS_MODE_REPLAY;
    header->used = sizeof(bs_record);
    auto* rec = reinterpret_cast<bs_record*>(header + 1);
    rec->size = sizeof(bs_record);
    rec->nr = SYS_getpid;
    rec->ret = ret;
    bs_thread.buffer = header;
    bs_thread.status = BS_THREAD_READY;
  }
  ~ReplayBuffer() {
    bs_thread.buffer = nullptr;
    bs_thread.status = BS_THREAD_REFUSED;
    munmap(memory, BS_BUFFER_SIZE);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(handled_call_changes_only_rax) {
  for (uint64_t misalign : {0, 8}) {
    for (uint64_t flags : {kFlags, uint64_t{0x202}}) {
      BOOST_TEST_CONTEXT("misalign " << misalign << " flags " << std::hex << flags) {
        ReplayBuffer buffer(-0x123456789ll);
        load_site_registers(SYS_getpid, flags);
        bs_run_stub(misalign);
        BOOST_TEST(bs_stub_path == kHandled);
        check_registers(static_cast<uint64_t>(-0x123456789ll));
        BOOST_TEST(buffer.header->cursor == sizeof(bs_record));
        BOOST_TEST(buffer.header->calls == 1u);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(call_not_handled_keeps_every_register) {
  for (uint64_t misalign : {0, 8}) {
    BOOST_TEST_CONTEXT("misalign " << misalign) {
      // Not in the table.
      ReplayBuffer buffer(7);
      load_site_registers(SYS_openat2, kFlags);
      bs_run_stub(misalign);
      BOOST_TEST(bs_stub_path == kTraced);
      check_registers(SYS_openat2);
      // In the table, but no record is left for it.
      buffer.header->cursor = buffer.header->used;
      load_site_registers(SYS_getpid, kFlags);
      bs_run_stub(misalign);
      BOOST_TEST(bs_stub_path == kTraced);
      check_registers(SYS_getpid);
      BOOST_TEST(buffer.header->calls == 0u);
    }
  }
}
