// Patched syscall sites (engine/core/syscall_stub.h): which sites are
// patched and how many instructions move, and stubs that run. Each site is
// written into executable memory as a small function, called once as it is
// and once patched, with a trampoline that takes the traced path (the real
// `syscall` in the stub) or the handled one (rax = kHandledResult): both
// must return what the unpatched code returns.
#define BOOST_TEST_MODULE syscall_stub
#include <boost/test/unit_test.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "engine/core/syscall_stub.h"

namespace bs = backstep::syscall_stub;

namespace {

constexpr uint8_t kSyscall[] = {0x0f, 0x05};
constexpr uint64_t kHandledResult = 42;

std::vector<uint8_t> bytes(std::initializer_list<uint8_t> b) { return b; }

std::optional<bs::Plan> plan_of(const std::vector<uint8_t>& code, uint64_t at = 0x400000) {
  return bs::plan(at, code.data(), code.size());
}

// One executable region: the site's function at kSite, data at kData, its
// stub at kStub, the trampoline at kTrampoline.
class Region {
 public:
  static constexpr std::size_t kSize = 1 << 16;
  static constexpr std::size_t kSite = 0x100, kData = 0x800, kStub = 0x1000, kTrampoline = 0x2000;

  Region() {
    mem_ = static_cast<uint8_t*>(
        mmap(nullptr, kSize, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    BOOST_REQUIRE(mem_ != MAP_FAILED);
  }
  ~Region() { munmap(mem_, kSize); }
  uint64_t addr(std::size_t off) const { return reinterpret_cast<uint64_t>(mem_) + off; }
  void put(std::size_t off, const std::vector<uint8_t>& code) { std::memcpy(mem_ + off, code.data(), code.size()); }
  uint64_t call() const { return reinterpret_cast<uint64_t (*)()>(mem_ + kSite)(); }
  bs::ReadMemory reader() const {
    // Only the region's own bytes, as /proc/PID/mem reads only what is mapped.
    uint64_t start = addr(0), end = addr(kSize);
    return [start, end](uint64_t at, void* buf, std::size_t len) -> std::size_t {
      if (at < start || at >= end) return 0;
      len = std::min<std::size_t>(len, end - at);
      std::memcpy(buf, reinterpret_cast<const void*>(at), len);
      return len;
    };
  }

 private:
  uint8_t* mem_ = nullptr;
};

enum class Path { Traced, Handled };

// The unpatched result of `function`, and the patched one on `path`; the
// site is the function's first `syscall`.
std::pair<uint64_t, uint64_t> run_both(const std::vector<uint8_t>& function, Path path, uint64_t data = 0x1234) {
  Region r;
  r.put(Region::kSite, function);
  r.put(Region::kData, std::vector<uint8_t>(reinterpret_cast<uint8_t*>(&data), reinterpret_cast<uint8_t*>(&data) + 8));
  uint64_t unpatched = r.call();
  std::size_t at = 0;
  while (std::memcmp(function.data() + at, kSyscall, 2) != 0) ++at;
  uint64_t site = r.addr(Region::kSite + at);
  std::optional<bs::Plan> p = bs::plan(site, function.data() + at, function.size() - at);
  BOOST_REQUIRE(p);
  uint64_t stub = r.addr(Region::kStub);
  BOOST_REQUIRE(bs::reachable(*p, stub, r.addr(Region::kTrampoline)));
  // The trampoline: traced, add BS_STUB_TRACED_DELTA to the return address;
  // handled, set rax.
  if (path == Path::Traced) {
    r.put(Region::kTrampoline, {0x48, 0x83, 0x04, 0x24, BS_STUB_TRACED_DELTA, 0xc3});  // addq $DELTA,(%rsp); ret
  } else {
    r.put(Region::kTrampoline, {0xb8, kHandledResult, 0, 0, 0, 0xc3});  // mov $42,%eax; ret
  }
  r.put(Region::kStub, bs::stub_code(*p, stub, r.addr(Region::kTrampoline)));
  r.put(Region::kSite + at, bs::site_code(*p, stub));
  BOOST_CHECK_EQUAL(*bs::patched_site_stub(site, bs::site_code(*p, stub), r.reader()), stub);
  return {unpatched, r.call()};
}

// mov $39,%eax (getpid)
std::vector<uint8_t> getpid_then(std::vector<uint8_t> tail) {
  std::vector<uint8_t> f = {0xb8, 39, 0, 0, 0, 0x0f, 0x05};
  f.insert(f.end(), tail.begin(), tail.end());
  return f;
}

}  // namespace

BOOST_AUTO_TEST_CASE(glibc_error_checks_move_one_instruction) {
  auto p = plan_of(bytes({0x0f, 0x05, 0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff, 0x77, 0x10}));
  BOOST_REQUIRE(p);
  BOOST_CHECK_EQUAL(p->info.site_length, 8);
  BOOST_CHECK_EQUAL(p->info.count, 1);
  p = plan_of(bytes({0x0f, 0x05, 0x3d, 0x00, 0xf0, 0xff, 0xff, 0x77, 0x10}));  // cmp $0xfffff000,%eax
  BOOST_REQUIRE(p);
  BOOST_CHECK_EQUAL(p->info.site_length, 7);
}

BOOST_AUTO_TEST_CASE(a_short_instruction_moves_with_the_next) {
  // mov %eax,%edx; cmp $-4096,%edx
  auto p = plan_of(bytes({0x0f, 0x05, 0x89, 0xc2, 0x81, 0xfa, 0x00, 0xf0, 0xff, 0xff}));
  BOOST_REQUIRE(p);
  BOOST_CHECK_EQUAL(p->info.count, 2);
  BOOST_CHECK_EQUAL(p->info.site_length, 10);
  BOOST_CHECK_EQUAL(p->info.original[1], 4);
}

BOOST_AUTO_TEST_CASE(what_cannot_move_is_left_alone) {
  BOOST_CHECK(!plan_of(bytes({0x90, 0x0f, 0x05, 0x48, 0x3d, 0, 0xf0, 0xff, 0xff})));  // not a syscall
  BOOST_CHECK(!plan_of(bytes({0x0f, 0x05, 0xc3, 0x55, 0x48, 0x89, 0xe5})));  // ret, then the next function
  BOOST_CHECK(!plan_of(bytes({0x0f, 0x05, 0xe8, 0, 0, 0, 0})));  // call
  BOOST_CHECK(!plan_of(bytes({0x0f, 0x05, 0xff, 0xe0, 0x90, 0x90})));  // jmp *%rax
  BOOST_CHECK(!plan_of(bytes({0x0f, 0x05, 0x0f, 0x05, 0x90})));  // another syscall
  BOOST_CHECK(!plan_of(bytes({0x0f, 0x05, 0x85, 0xc0, 0x75, 0xfd})));  // a jcc back into the patch
  BOOST_CHECK(!plan_of(bytes({0x0f, 0x05, 0x48})));  // cut short
}

BOOST_AUTO_TEST_CASE(patched_time_stamp_reads_are_sites_of_their_own_entry) {
  // A patched rdtsc (`int 0x2e`) and rdtscp (`int 0x2f; nop`, tsc_sites.h),
  // each followed by `shl $32,%rdx; or %rdx,%rax`.
  std::vector<uint8_t> rdtsc = {0xcd, 0x2e, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0};
  std::vector<uint8_t> rdtscp = {0xcd, 0x2f, 0x90, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0};
  BOOST_CHECK(bs::site_entry(kSyscall, 2) == bs::StubEntry::Syscall);
  BOOST_CHECK(bs::site_entry(rdtsc.data(), rdtsc.size()) == bs::StubEntry::Rdtsc);
  BOOST_CHECK(bs::site_entry(rdtscp.data(), rdtscp.size()) == bs::StubEntry::Rdtscp);
  // `int 0x2f` without the nop is not what the recorder writes.
  std::vector<uint8_t> bare = {0xcd, 0x2f, 0x48, 0xc1, 0xe2, 0x20};
  BOOST_CHECK(!bs::site_entry(bare.data(), bare.size()));
  BOOST_CHECK(!plan_of(bare));
  // The rdtscp's nop moves like any instruction after the trap: the traced
  // path traps with `int 0x2f` followed by the nop's copy, as the site did.
  auto p = plan_of(rdtscp);
  BOOST_REQUIRE(p);
  BOOST_CHECK_EQUAL(p->info.count, 2);
  BOOST_CHECK_EQUAL(p->info.site_length, 7);
  BOOST_CHECK_EQUAL(p->info.copy_length, 5);
  uint64_t stub = 0x10000 * BS_STUB_SIZE;
  std::vector<uint8_t> code = bs::stub_code(*p, stub, stub + 4096);
  uint64_t traced = bs::layout(stub).traced - stub + bs::kLeaUpLength;
  BOOST_CHECK(std::equal(rdtscp.begin(), rdtscp.begin() + 3, code.begin() + static_cast<long>(traced)));
  p = plan_of(rdtsc);
  BOOST_REQUIRE(p);
  BOOST_CHECK_EQUAL(p->info.site_length, 6);
}

BOOST_AUTO_TEST_CASE(time_stamp_reads_the_kernel_makes_fault_are_sites_too) {
  // Where PR_TSC_SIGSEGV works the instructions themselves trap: rdtsc's
  // traced path keeps the rdtsc, rdtscp's becomes `int 0x2f` and a nop (the
  // stub has room for one two-byte trap), planned as a patched one.
  std::vector<uint8_t> rdtsc = {0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0};
  std::vector<uint8_t> rdtscp = {0x0f, 0x01, 0xf9, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0};
  BOOST_CHECK(bs::site_entry(rdtsc.data(), rdtsc.size()) == bs::StubEntry::Rdtsc);
  BOOST_CHECK(bs::site_entry(rdtscp.data(), rdtscp.size()) == bs::StubEntry::Rdtscp);
  BOOST_CHECK(!bs::site_entry(rdtscp.data(), 2));  // cut short
  auto p = plan_of(rdtsc);
  BOOST_REQUIRE(p);
  BOOST_CHECK_EQUAL(p->info.site_length, 6);
  uint64_t stub = 0x10000 * BS_STUB_SIZE;
  uint64_t traced = bs::layout(stub).traced - stub + bs::kLeaUpLength;
  std::vector<uint8_t> code = bs::stub_code(*p, stub, stub + 4096);
  BOOST_CHECK(std::equal(rdtsc.begin(), rdtsc.begin() + 2, code.begin() + static_cast<long>(traced)));
  p = plan_of(rdtscp);
  BOOST_REQUIRE(p);
  BOOST_CHECK_EQUAL(p->info.count, 2);
  BOOST_CHECK_EQUAL(p->info.site_length, 7);
  BOOST_CHECK_EQUAL(p->info.copy_length, 5);
  code = bs::stub_code(*p, stub, stub + 4096);
  const uint8_t as_patched[] = {0xcd, 0x2f, 0x90};
  BOOST_CHECK(std::equal(as_patched, as_patched + 3, code.begin() + static_cast<long>(traced)));
}

BOOST_AUTO_TEST_CASE(a_ret_takes_the_padding_after_it) {
  auto p = plan_of(bytes({0x0f, 0x05, 0xc3, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}));
  BOOST_REQUIRE(p);
  BOOST_CHECK_EQUAL(p->info.count, 2);
  BOOST_CHECK_EQUAL(p->info.site_length, 13);
  BOOST_CHECK_EQUAL(p->info.copy_length, 1);
}

BOOST_AUTO_TEST_CASE(patched_sites_return_what_the_original_returns) {
  const pid_t pid = getpid();
  struct Case {
    const char* name;
    std::vector<uint8_t> function;
    uint64_t traced, handled;  // expected results
  };
  uint64_t data = 0x1234;
  // Region layout: the site's `syscall` is at kSite + 5; the data word at
  // kData. rip-relative displacements below are computed from there.
  auto rip_to_data = [](std::size_t insn_end) {
    int32_t d = static_cast<int32_t>(Region::kData - (Region::kSite + insn_end));
    std::vector<uint8_t> b(4);
    std::memcpy(b.data(), &d, 4);
    return b;
  };
  std::vector<uint8_t> load = {0x48, 0x8b, 0x05};  // mov disp32(%rip),%rax
  std::vector<uint8_t> disp = rip_to_data(7 + 7);
  load.insert(load.end(), disp.begin(), disp.end());
  load.push_back(0xc3);
  std::vector<Case> cases = {
      {"cmp $-4096,%rax; ret", getpid_then({0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff, 0xc3}), uint64_t(pid), kHandledResult},
      {"cmp $0xfffff000,%eax; ja; ret",
       getpid_then({0x3d, 0x00, 0xf0, 0xff, 0xff, 0x77, 0x01, 0xc3, 0xb8, 0xff, 0xff, 0xff, 0xff, 0xc3}),
       uint64_t(pid), kHandledResult},
      {"ret; padding", getpid_then({0xc3, 0x0f, 0x1f, 0x40, 0x00}), uint64_t(pid), kHandledResult},
      {"mov disp(%rip),%rax", getpid_then(load), data, data},
      // test %eax,%eax; jne +6; xor %eax,%eax; ret; [+6:] mov $7,%eax; ret
      {"test; jne (taken)", getpid_then({0x85, 0xc0, 0x75, 0x03, 0x31, 0xc0, 0xc3, 0xb8, 7, 0, 0, 0, 0xc3}), 7, 7},
      // mov %eax,%edx; xor %eax,%eax; add %edx,%eax; ret
      {"mov %eax,%edx; xor; add", getpid_then({0x89, 0xc2, 0x31, 0xc0, 0x01, 0xd0, 0xc3}), uint64_t(pid),
       kHandledResult},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto [unpatched, traced] = run_both(c.function, Path::Traced, data);
      BOOST_CHECK_EQUAL(unpatched, c.traced);
      BOOST_CHECK_EQUAL(traced, c.traced);
      auto [unpatched2, handled] = run_both(c.function, Path::Handled, data);
      BOOST_CHECK_EQUAL(handled, c.handled);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_thread_in_the_stub_shows_at_its_original_place) {
  // mov %eax,%edx; cmp $-4096,%edx; ret
  std::vector<uint8_t> f = getpid_then({0x89, 0xc2, 0x81, 0xfa, 0x00, 0xf0, 0xff, 0xff, 0xc3});
  Region r;
  r.put(Region::kSite, f);
  uint64_t site = r.addr(Region::kSite + 5);
  auto p = bs::plan(site, f.data() + 5, f.size() - 5);
  BOOST_REQUIRE(p);
  uint64_t stub = r.addr(Region::kStub), trampoline = r.addr(Region::kTrampoline);
  r.put(Region::kStub, bs::stub_code(*p, stub, trampoline));
  r.put(Region::kSite + 5, bs::site_code(*p, stub));
  bs::Layout l = bs::layout(stub);
  auto read = r.reader();
  // Traced path: after its syscall, at the cmp, at the jump back.
  BOOST_CHECK_EQUAL(*bs::original_pc(l.after_traced_syscall, read), site + 2);
  BOOST_CHECK_EQUAL(*bs::original_pc(l.after_traced_syscall + 2, read), site + 4);
  BOOST_CHECK_EQUAL(*bs::original_pc(l.after_traced_syscall + 8, read), site + 10);
  // Handled path, after the red-zone step.
  BOOST_CHECK_EQUAL(*bs::original_pc(l.handled + bs::kLeaUpLength, read), site + 2);
  BOOST_CHECK(!bs::original_pc(l.handled, read));
  BOOST_CHECK(!bs::original_pc(l.after_traced_syscall + 1, read));
  // A thread inside the old site resumes at the same place of the copy.
  BOOST_CHECK_EQUAL(*bs::traced_equivalent(p->info, stub, site + 4), l.after_traced_syscall + 2);
  BOOST_CHECK(!bs::traced_equivalent(p->info, stub, site + 3));
}

namespace {

// The site's bytes at kSite+0x60 in a region of nops: whether the plan of
// its patch may be jumped into before, and after a `jmp rel8` at
// kSite+0x20 to kSite+0x60+`landing` is written. `displaced`: how many
// instructions the plan must move.
void check_jump_into(const std::vector<uint8_t>& site, uint8_t landing, uint8_t displaced) {
  std::vector<uint8_t> f(0x80, 0x90);
  std::copy(site.begin(), site.end(), f.begin() + 0x60);
  Region r;
  r.put(Region::kSite, f);
  auto p = bs::plan(r.addr(Region::kSite + 0x60), site.data(), site.size());
  BOOST_REQUIRE(p);
  BOOST_REQUIRE_EQUAL(p->info.count, displaced);
  BOOST_CHECK(!bs::may_be_jumped_into(*p, r.reader()));
  r.put(Region::kSite + 0x20, {0xeb, static_cast<uint8_t>(0x60 + landing - 0x22)});
  BOOST_CHECK(bs::may_be_jumped_into(*p, r.reader()));
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_jump_nearby_into_the_patch_keeps_it_unpatched) {
  // syscall; mov %eax,%edx; cmp $-4096,%edx; ret: a `jmp` lands on the cmp.
  check_jump_into({0x0f, 0x05, 0x89, 0xc2, 0x81, 0xfa, 0x00, 0xf0, 0xff, 0xff, 0xc3}, 4, 2);
}

BOOST_AUTO_TEST_CASE(a_jump_right_after_the_call_keeps_it_unpatched) {
  // syscall; mov 0x0(%rip),%eax (6 bytes, the only instruction displaced),
  // as glibc's posix_spawn child has it, with a `jmp` to that mov: it
  // would land inside the patch's jump.
  check_jump_into({0x0f, 0x05, 0x8b, 0x05, 0x00, 0x00, 0x00, 0x00, 0xc3}, 2, 1);
}

BOOST_AUTO_TEST_CASE(a_stub_of_the_executable_area_enters_the_library_through_its_veneer) {
  // The executable's stub area (tool_page.h): slot 1 holds the veneers, and
  // a stub calls the one for its entry, which jumps on to the library
  // wherever it is. Here the "library" is a mapping of its own, at an
  // address the kernel picks; the handled path must come back with its
  // result.
  std::vector<uint8_t> f = getpid_then({0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff, 0xc3});  // cmp $-4096,%rax; ret
  Region r;
  r.put(Region::kSite, f);
  uint64_t site = r.addr(Region::kSite + 5);
  auto p = bs::plan(site, f.data() + 5, f.size() - 5);
  BOOST_REQUIRE(p);
  void* lib = mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  BOOST_REQUIRE(lib != MAP_FAILED);
  const uint8_t handled[] = {0xb8, kHandledResult, 0, 0, 0, 0xc3};  // mov $42,%eax; ret
  std::memcpy(lib, handled, sizeof(handled));
  uint64_t trampoline = reinterpret_cast<uint64_t>(lib);
  bs::EntryAddresses entries = bs::EntryAddresses::of_trampoline(trampoline);
  BOOST_CHECK_EQUAL(entries.of(bs::StubEntry::Rdtsc), trampoline - BS_TSC_ENTRY_BEFORE_TRAMPOLINE);
  BOOST_CHECK_EQUAL(entries.of(bs::StubEntry::Rdtscp), trampoline - BS_TSCP_ENTRY_BEFORE_TRAMPOLINE);
  // The area starts one slot before the veneers, which go at kTrampoline.
  uint64_t area = r.addr(Region::kTrampoline - BS_STUB_SIZE);
  r.put(Region::kTrampoline, bs::veneer_slot(entries));
  BOOST_CHECK_EQUAL(bs::veneer(area, bs::StubEntry::Syscall), r.addr(Region::kTrampoline));
  // Each veneer is `jmp *0(%rip)` followed by its entry's address.
  for (bs::StubEntry entry : {bs::StubEntry::Syscall, bs::StubEntry::Rdtsc, bs::StubEntry::Rdtscp}) {
    uint64_t target = entries.of(entry);
    const auto* v = reinterpret_cast<const uint8_t*>(bs::veneer(area, entry));
    BOOST_CHECK(std::memcmp(v, "\xff\x25\x00\x00\x00\x00", 6) == 0);
    uint64_t to = 0;
    std::memcpy(&to, v + 6, sizeof(to));
    BOOST_CHECK_EQUAL(to, target);
  }
  uint64_t stub = r.addr(Region::kStub);
  uint64_t through = bs::veneer(area, bs::StubEntry::Syscall);
  BOOST_REQUIRE(bs::reachable(*p, stub, through));
  r.put(Region::kStub, bs::stub_code(*p, stub, through));
  r.put(Region::kSite + 5, bs::site_code(*p, stub));
  BOOST_CHECK_EQUAL(r.call(), kHandledResult);
  munmap(lib, 4096);
}
