// The loader's cpuid answered in the program (engine/core/cpuid_table.h):
// a function with a cpuid site is written into executable memory, patched
// into a jump to a stub that calls cpuid_routine() with a table, and run:
// a leaf in the table gets the table's answer (never the CPU's), with the
// other registers and the flags kept; one that is not gets the CPU's own,
// through the stub's traced path.
#define BOOST_TEST_MODULE cpuid_table
#include <boost/test/unit_test.hpp>

#include <cpuid.h>
#include <sys/mman.h>

#include <array>
#include <cstring>
#include <ostream>
#include <vector>

#include "engine/core/cpuid_table.h"
#include "engine/core/syscall_stub.h"

namespace bs = backstep;

namespace {

struct Answer {
  uint32_t eax, ebx, ecx, edx;
  bool operator==(const Answer& o) const { return eax == o.eax && ebx == o.ebx && ecx == o.ecx && edx == o.edx; }
};
std::ostream& operator<<(std::ostream& os, const Answer& a) {
  return os << std::hex << a.eax << " " << a.ebx << " " << a.ecx << " " << a.edx;
}

// void site(Answer* out = rdi, uint32_t leaf = esi, uint32_t subleaf = edx)
const uint8_t kSiteFunction[] = {
    0x53,              // push %rbx
    0x89, 0xf0,        // mov %esi,%eax
    0x89, 0xd1,        // mov %edx,%ecx
    0x0f, 0xa2,        // cpuid                 (the site, at 5)
    0x89, 0x07,        // mov %eax,(%rdi)       displaced
    0x89, 0x5f, 0x04,  // mov %ebx,4(%rdi)      displaced
    0x89, 0x4f, 0x08,  // mov %ecx,8(%rdi)
    0x89, 0x57, 0x0c,  // mov %edx,12(%rdi)
    0x5b,              // pop %rbx
    0xc3,              // ret
};
constexpr std::size_t kSiteOffset = 5;

// The site's function at kSite, the routine at kRoutine, its table at
// kTable, the stub at kStub.
class Region {
 public:
  static constexpr std::size_t kSize = 1 << 16;
  static constexpr std::size_t kSite = 0x100, kRoutine = 0x400, kTable = 0x800, kStub = 0x2000;

  explicit Region(const std::vector<uint8_t>& table) {
    mem_ = static_cast<uint8_t*>(
        mmap(nullptr, kSize, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    BOOST_REQUIRE(mem_ != MAP_FAILED);
    std::memcpy(mem_ + kSite, kSiteFunction, sizeof(kSiteFunction));
    std::vector<uint8_t> routine = bs::cpuid_routine(addr(kRoutine), addr(kTable));
    std::memcpy(mem_ + kRoutine, routine.data(), routine.size());
    BOOST_REQUIRE(table.size() <= kStub - kTable);
    std::memcpy(mem_ + kTable, table.data(), table.size());
  }
  ~Region() { munmap(mem_, kSize); }
  uint64_t addr(std::size_t off) const { return reinterpret_cast<uint64_t>(mem_) + off; }

  void patch() {
    uint64_t site = addr(kSite + kSiteOffset);
    auto plan = bs::syscall_stub::plan_cpuid(site, mem_ + kSite + kSiteOffset, sizeof(kSiteFunction) - kSiteOffset);
    BOOST_REQUIRE(plan);
    BOOST_CHECK_EQUAL(plan->info.count, 2);  // the two stores after it
    BOOST_REQUIRE(bs::syscall_stub::reachable(*plan, addr(kStub), addr(kRoutine)));
    std::vector<uint8_t> stub = bs::syscall_stub::stub_code(*plan, addr(kStub), addr(kRoutine));
    std::memcpy(mem_ + kStub, stub.data(), stub.size());
    std::vector<uint8_t> jump = bs::syscall_stub::site_code(*plan, addr(kStub));
    std::memcpy(mem_ + kSite + kSiteOffset, jump.data(), jump.size());
  }

  Answer run(uint32_t leaf, uint32_t subleaf) {
    Answer a{};
    reinterpret_cast<void (*)(Answer*, uint32_t, uint32_t)>(mem_ + kSite)(&a, leaf, subleaf);
    return a;
  }

 private:
  uint8_t* mem_;
};

std::vector<uint8_t> table_of(std::initializer_list<std::array<uint32_t, 8>> entries) {
  std::vector<uint8_t> t;
  for (const auto& e : entries) {
    const auto* b = reinterpret_cast<const uint8_t*>(e.data());
    t.insert(t.end(), b, b + bs::kCpuidEntrySize);
  }
  t.resize(t.size() + bs::kCpuidEntrySize, 0);
  return t;
}

Answer cpu(uint32_t leaf, uint32_t subleaf) {
  Answer a{};
  __cpuid_count(leaf, subleaf, a.eax, a.ebx, a.ecx, a.edx);
  return a;
}

}  // namespace

BOOST_AUTO_TEST_CASE(leaves_in_the_table_are_answered_from_it) {
  Region r(table_of({
      {0x1, 0, bs::kCpuidMatchLeaf, 0, 0x11, 0x12, 0x13, 0x14},
      {0x4, 2, bs::kCpuidMatchSubleaf, 0, 0x21, 0x22, 0x23, 0x24},
      {0x4, 3, bs::kCpuidMatchSubleaf, 0, 0x31, 0x32, 0x33, 0x34},
  }));
  BOOST_CHECK_EQUAL(r.run(0x1, 0), cpu(0x1, 0));  // unpatched: the CPU
  r.patch();
  BOOST_CHECK_EQUAL(r.run(0x1, 0), (Answer{0x11, 0x12, 0x13, 0x14}));
  BOOST_CHECK_EQUAL(r.run(0x1, 0x12345), (Answer{0x11, 0x12, 0x13, 0x14}));  // any subleaf
  BOOST_CHECK_EQUAL(r.run(0x4, 2), (Answer{0x21, 0x22, 0x23, 0x24}));
  BOOST_CHECK_EQUAL(r.run(0x4, 3), (Answer{0x31, 0x32, 0x33, 0x34}));
}

BOOST_AUTO_TEST_CASE(other_leaves_take_the_traced_path) {
  Region r(table_of({{0x4, 2, bs::kCpuidMatchSubleaf, 0, 0x21, 0x22, 0x23, 0x24}}));
  r.patch();
  BOOST_CHECK_EQUAL(r.run(0x4, 1), cpu(0x4, 1));  // another subleaf
  BOOST_CHECK_EQUAL(r.run(0x0, 0), cpu(0x0, 0));
  BOOST_CHECK_EQUAL(r.run(0x80000000, 0), cpu(0x80000000, 0));
  Region empty(table_of({}));
  empty.patch();
  BOOST_CHECK_EQUAL(empty.run(0x0, 0), cpu(0x0, 0));
}

BOOST_AUTO_TEST_CASE(registers_and_flags_are_kept) {
  // The site's function is called with the carry flag set and a marker in
  // r8, which neither it nor cpuid touches: both must come back, whether
  // the table answers (leaf 7) or the traced path does (leaf 0).
  Region r(table_of({{0x7, 0, bs::kCpuidMatchSubleaf, 0, 1, 2, 3, 4}}));
  r.patch();
  for (uint32_t leaf : {0x7u, 0x0u}) {
    Answer a{};
    uint64_t flags = 0, r8 = 0;
    asm volatile(
        "mov %[out], %%rdi\n\t"
        "mov %[leaf], %%esi\n\t"
        "xor %%edx, %%edx\n\t"
        "mov $0x8888, %%r8\n\t"
        "stc\n\t"
        "call *%[fn]\n\t"
        "pushfq\n\t"
        "pop %[flags]\n\t"
        "mov %%r8, %[r8]\n\t"
        : [flags] "=&r"(flags), [r8] "=&r"(r8)
        : [out] "r"(&a), [leaf] "r"(leaf), [fn] "r"(r.addr(Region::kSite))
        : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "memory", "cc");
    BOOST_CHECK(flags & 1);
    BOOST_CHECK_EQUAL(r8, 0x8888u);
    BOOST_CHECK_EQUAL(a, leaf == 7 ? (Answer{1, 2, 3, 4}) : cpu(0x0, 0));
  }
}

BOOST_AUTO_TEST_CASE(which_leaves_have_subleaves) {
  BOOST_CHECK(!bs::cpuid_subleaf_matters(0x1));
  BOOST_CHECK(!bs::cpuid_subleaf_matters(0x80000006));
  BOOST_CHECK(bs::cpuid_subleaf_matters(0x4));
  BOOST_CHECK(bs::cpuid_subleaf_matters(0x7));
  BOOST_CHECK(bs::cpuid_subleaf_matters(0xd));
  BOOST_CHECK(bs::cpuid_subleaf_matters(0x8000001d));
  BOOST_CHECK(bs::cpuid_subleaf_matters(0x12345));  // unknown: exact
}
