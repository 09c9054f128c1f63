// Administrative calls whose output depends on an operation argument: the
// kernel log, filesystem-type names, the retired _sysctl and the key
// management calls (bpf: bpf_syscalls.cc). Each writes only where its
// operation says.
#include <cstddef>  // size_t, which <linux/sysctl.h> uses without including

#include <linux/keyctl.h>
#include <linux/sysctl.h>
#include <sys/syscall.h>

#include <algorithm>
#include <set>
#include <string>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

// syslog(2) actions that copy log text into the buffer (the return value
// is the number of bytes copied).
constexpr int kSyslogRead = 2, kSyslogReadAll = 3, kSyslogReadClear = 4;
// sysfs(2) option 2 copies one filesystem-type name, NUL included.
constexpr int kSysfsName = 2;
constexpr uint64_t kMaxFsName = 256;

void exit_syslog(SyscallContext& ctx) {
  int action = static_cast<int>(ctx.arg(0));
  if (ctx.failed() || (action != kSyslogRead && action != kSyslogReadAll && action != kSyslogReadClear)) return;
  ctx.record_memory(ctx.arg(1), static_cast<uint64_t>(ctx.result()));
}

void exit_sysfs(SyscallContext& ctx) {
  if (ctx.failed() || static_cast<int>(ctx.arg(0)) != kSysfsName) return;
  char name[kMaxFsName] = {};
  std::size_t got = ctx.task.read_some(remote_ptr<void>(ctx.arg(2)), name, sizeof(name));
  std::size_t len = std::find(name, name + got, '\0') - name;
  ctx.record_memory(ctx.arg(2), std::min<uint64_t>(len + 1, got));
}

// _sysctl is gone from kernels since 5.5 (-ENOSYS); older ones copy the old
// value and its length through pointers inside the argument struct.
void exit_sysctl(SyscallContext& ctx) {
  if (ctx.failed()) return;
  __sysctl_args args{};
  if (ctx.task.read_some(remote_ptr<void>(ctx.arg(0)), &args, sizeof(args)) != sizeof(args)) return;
  uint64_t oldlenp = reinterpret_cast<uint64_t>(args.oldlenp);
  uint64_t old_len = 0;
  if (oldlenp == 0 || ctx.task.read_some(remote_ptr<void>(oldlenp), &old_len, sizeof(old_len)) != sizeof(old_len)) {
    return;
  }
  ctx.record_memory(oldlenp, sizeof(old_len));
  ctx.record_memory(reinterpret_cast<uint64_t>(args.oldval), std::min<uint64_t>(old_len, 1u << 20));
}

// keyctl operations by what they write: a (buffer, length) pair whose copy
// is the return value's bytes, or nothing. Any operation not listed (a newer
// kernel's) is refused: it may write where this code does not look.
const std::set<int> kKeyctlNoWrites = {
    KEYCTL_GET_KEYRING_ID,  KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_UPDATE,      KEYCTL_REVOKE,
    KEYCTL_CHOWN,           KEYCTL_SETPERM,              KEYCTL_CLEAR,       KEYCTL_LINK,
    KEYCTL_UNLINK,          KEYCTL_SEARCH,               KEYCTL_INSTANTIATE, KEYCTL_NEGATE,
    KEYCTL_SET_REQKEY_KEYRING, KEYCTL_SET_TIMEOUT,       KEYCTL_ASSUME_AUTHORITY,
    KEYCTL_SESSION_TO_PARENT, KEYCTL_REJECT,             KEYCTL_INSTANTIATE_IOV,
    KEYCTL_INVALIDATE,      KEYCTL_GET_PERSISTENT,       KEYCTL_PKEY_VERIFY, KEYCTL_RESTRICT_KEYRING,
    KEYCTL_MOVE,            KEYCTL_WATCH_KEY,
};

void enter_keyctl(SyscallContext& ctx) {
  int op = static_cast<int>(ctx.arg(0));
  switch (op) {
    case KEYCTL_DESCRIBE: case KEYCTL_READ: case KEYCTL_GET_SECURITY: case KEYCTL_DH_COMPUTE:
    case KEYCTL_CAPABILITIES: case KEYCTL_PKEY_QUERY: case KEYCTL_PKEY_ENCRYPT: case KEYCTL_PKEY_DECRYPT:
    case KEYCTL_PKEY_SIGN:
      return;
    default:
      if (!kKeyctlNoWrites.count(op)) ctx.refuse("unsupported keyctl operation " + std::to_string(op));
  }
}

// Records the copy of a (buffer, length) result: the kernel returns the full
// length and copies at most the buffer's size (nothing when it is too small;
// re-recording the unchanged buffer then is harmless).
void record_sized_copy(SyscallContext& ctx, int buf_arg, uint64_t buf_len) {
  ctx.record_memory(ctx.arg(buf_arg), std::min<uint64_t>(static_cast<uint64_t>(ctx.result()), buf_len));
}

void exit_keyctl(SyscallContext& ctx) {
  if (ctx.failed()) return;
  switch (static_cast<int>(ctx.arg(0))) {
    case KEYCTL_DESCRIBE: case KEYCTL_READ: case KEYCTL_GET_SECURITY: case KEYCTL_DH_COMPUTE:
      record_sized_copy(ctx, 2, ctx.arg(3));
      break;
    // Copies what fits and clears the rest of the buffer.
    case KEYCTL_CAPABILITIES:
      if (ctx.arg(2) > (1u << 30)) ctx.refuse("implausible keyctl buffer size");
      ctx.record_memory(ctx.arg(1), ctx.arg(2));
      break;
    case KEYCTL_PKEY_QUERY: ctx.record_memory(ctx.arg(4), sizeof(keyctl_pkey_query)); break;
    case KEYCTL_PKEY_ENCRYPT: case KEYCTL_PKEY_DECRYPT: case KEYCTL_PKEY_SIGN: {
      keyctl_pkey_params params{};
      if (ctx.task.read_some(remote_ptr<void>(ctx.arg(1)), &params, sizeof(params)) != sizeof(params)) break;
      ctx.record_memory(ctx.arg(4), std::min<uint64_t>(static_cast<uint64_t>(ctx.result()), params.out_len));
      break;
    }
    default: break;
  }
}

}  // namespace

namespace recorders {
extern const SyscallRecorder syslog{nullptr, exit_syslog};
extern const SyscallRecorder sysfs{nullptr, exit_sysfs};
extern const SyscallRecorder sysctl{nullptr, exit_sysctl};
extern const SyscallRecorder keyctl{enter_keyctl, exit_keyctl};
}  // namespace recorders

}  // namespace backstep
