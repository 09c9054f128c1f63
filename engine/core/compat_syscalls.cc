#include "engine/core/compat_syscalls.h"

#include <sys/syscall.h>

#include <string>

#include "values/log.h"

namespace backstep {
namespace {

struct Twin {
  uint32_t nr32;
  const char* name;
  long nr64;
};

// 32-bit calls whose arguments are plain integers, or pointers to bytes
// whose layout is the same in both ABIs (read/write buffers). Calls taking
// structures (iovec, stat, timespec, sigaction...) differ in layout and are
// not here. Numbers from arch/x86/entry/syscalls/syscall_32.tbl.
constexpr Twin kTwins[] = {
    {1, "exit", SYS_exit},          {3, "read", SYS_read},           {4, "write", SYS_write},
    {6, "close", SYS_close},        {20, "getpid", SYS_getpid},      {64, "getppid", SYS_getppid},
    {158, "sched_yield", SYS_sched_yield}, {199, "getuid32", SYS_getuid}, {200, "getgid32", SYS_getgid},
    {201, "geteuid32", SYS_geteuid}, {202, "getegid32", SYS_getegid}, {224, "gettid", SYS_gettid},
    {252, "exit_group", SYS_exit_group},
};

// A few well-known 32-bit calls without a twin, named in refusals.
constexpr Twin kNamedOnly[] = {
    {2, "fork", 0},         {5, "open", 0},          {10, "unlink", 0},         {11, "execve", 0},
    {13, "time", 0},        {33, "access", 0},       {39, "mkdir", 0},          {40, "rmdir", 0},
    {45, "brk", 0},         {54, "ioctl", 0},        {55, "fcntl", 0},          {78, "gettimeofday", 0},
    {90, "mmap", 0},        {91, "munmap", 0},       {102, "socketcall", 0},    {106, "stat", 0},
    {119, "sigreturn", 0},  {120, "clone", 0},       {122, "uname", 0},         {125, "mprotect", 0},
    {146, "writev", 0},     {162, "nanosleep", 0},   {173, "rt_sigreturn", 0},  {174, "rt_sigaction", 0},
    {175, "rt_sigprocmask", 0}, {183, "getcwd", 0},  {192, "mmap2", 0},         {195, "stat64", 0},
    {240, "futex", 0},      {243, "set_thread_area", 0}, {265, "clock_gettime", 0}, {295, "openat", 0},
    {8, "creat", 0},        {9, "link", 0},          {12, "chdir", 0},          {14, "mknod", 0},
    {15, "chmod", 0},       {16, "lchown", 0},       {37, "kill", 0},           {38, "rename", 0},
    {83, "symlink", 0},     {212, "chown32", 0},
};

const Twin* find(const Twin* begin, const Twin* end, uint64_t nr32) {
  for (const Twin* t = begin; t != end; ++t) {
    if (t->nr32 == nr32) return t;
  }
  return nullptr;
}

}  // namespace

std::optional<long> native_twin(uint64_t nr32) {
  nr32 = static_cast<uint32_t>(nr32);  // the kernel reads eax only
  const Twin* t = find(std::begin(kTwins), std::end(kTwins), nr32);
  if (!t) return std::nullopt;
  return t->nr64;
}

const char* compat_syscall_name(uint64_t nr32) {
  nr32 = static_cast<uint32_t>(nr32);
  const Twin* t = find(std::begin(kTwins), std::end(kTwins), nr32);
  if (!t) t = find(std::begin(kNamedOnly), std::end(kNamedOnly), nr32);
  return t ? t->name : nullptr;
}

std::string compat_calls_with_twins() {
  std::string out;
  for (const Twin& t : kTwins) out += (out.empty() ? "" : ", ") + std::string(t.name);
  return out;
}

Registers as_native_call(const Registers& regs) {
  const user_regs_struct& r = regs.raw();
  std::optional<long> twin = native_twin(r.orig_rax);
  BS_ASSERT(twin, "32-bit system call " << r.orig_rax << " has no 64-bit twin");
  Registers out = regs;
  out.set_syscallno(static_cast<uint64_t>(*twin));
  const uint64_t args32[6] = {r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp};
  for (int i = 0; i < 6; ++i) out.set_arg(i, args32[i] & 0xffffffffu);
  return out;
}

std::optional<Registers> native_call_of(const std::optional<RegBlock>& regs, int64_t status) {
  if (!regs) return std::nullopt;
  Registers entry = Registers::from_block(*regs);
  if (status == 0) return entry;
  if (status != kAuditArchI386 || !native_twin(entry.syscallno())) return std::nullopt;
  return as_native_call(entry);
}

}  // namespace backstep
