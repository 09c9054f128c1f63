// Files and descriptors: scatter reads, echoed writes, fcntl commands.
#include <errno.h>
#include <fcntl.h>

#include <cstring>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/written_bytes.h"
#include "engine/record/record_session.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

constexpr uint64_t kFlockSize = 32;  // struct flock on x86-64

// The file position of the tracee's `fd` (from /proc/PID/fdinfo).
std::optional<uint64_t> file_position(pid_t pid, int fd) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/fdinfo/" + std::to_string(fd));
  std::string key;
  uint64_t value;
  while (f >> key >> value) {
    if (key == "pos:") return value;
  }
  return std::nullopt;
}

// copy_file_range, sendfile and splice move data inside the kernel. When
// they write to stdout/stderr, read back what they copied from the input file
// (which ends at the input's offset now) so that replay can re-emit it. A
// pipe cannot be read back: what splice or tee take from one is not echoed.
void echo_kernel_copy(SyscallContext& ctx, int out_fd, int in_fd, uint64_t in_offset_ptr) {
  int64_t ret = ctx.result();
  if (ret <= 0 || !ctx.session.stdio_stream(ctx.task, out_fd)) return;
  std::optional<uint64_t> end;
  if (in_offset_ptr) {
    uint64_t off = 0;
    if (ctx.task.read_some(remote_ptr<void>(in_offset_ptr), &off, sizeof(off)) == sizeof(off)) end = off;
  } else {
    end = file_position(ctx.task.tid(), in_fd);
  }
  if (!end || *end < static_cast<uint64_t>(ret)) return;
  std::string path = "/proc/" + std::to_string(ctx.task.tid()) + "/fd/" + std::to_string(in_fd);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  std::vector<uint8_t> data(static_cast<size_t>(ret));
  ssize_t n = pread(fd, data.data(), data.size(), static_cast<off_t>(*end - static_cast<uint64_t>(ret)));
  close(fd);
  if (n == ret) ctx.echo_if_stdio(out_fd, std::move(data));
}

// A successful write of [offset, offset+len) into the file of `file`
// changed the memory of the writer's own mappings of that file that share
// its pages, private ones too where they have not copied a page: record
// it. (Mappings in other processes get the object write below.)
void record_shared_mapping_changes(SyscallContext& ctx, const DescriptorCache::File& file, uint64_t offset,
                                   uint64_t len) {
  for (const auto& m : ctx.session.shared_mappings(ctx.task)) {
    if (m.dev != file.dev || m.ino != file.ino) continue;
    uint64_t map_end_off = m.offset + (m.end - m.start);
    uint64_t lo = std::max(offset, m.offset), hi = std::min(offset + len, map_end_off);
    if (lo < hi) ctx.record_memory(m.start + (lo - m.offset), hi - lo);
  }
}

// The same write, for shared object `object` (the file, which some process
// of the tree maps shared or past its end): every mapping of it, in any
// process, changed. Record the bytes the file now holds there; replay
// writes them into the memory standing for the file, which all those
// mappings share.
void record_object_write(SyscallContext& ctx, int fd, uint64_t object, uint64_t offset, uint64_t len) {
  if (len > (uint64_t{1} << 30)) ctx.refuse_after_call("a write of more than 1 GiB into a mapped file");
  std::string path = "/proc/" + std::to_string(ctx.task.tid()) + "/fd/" + std::to_string(fd);
  int in = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) ctx.refuse_after_call("cannot read back a write into a mapped file: " + std::string(strerror(errno)));
  trace::ObjectWrite w;
  w.object = object;
  w.offset = offset;
  w.data.resize(len);
  ssize_t n = pread(in, w.data.data(), len, static_cast<off_t>(offset));
  close(in);
  w.data.resize(n > 0 ? static_cast<size_t>(n) : 0);
  if (!w.data.empty()) ctx.event.object_writes.push_back(std::move(w));
}

// A write to /proc/PID/mem of the program itself is a store into its memory
// (debuggers, JITs and self-patching code do it): record the bytes now there.
// One into another recorded process is recorded for that process.
void record_proc_mem_write(SyscallContext& ctx, int fd, std::optional<uint64_t> offset, uint64_t len) {
  std::string link = "/proc/" + std::to_string(ctx.task.tid()) + "/fd/" + std::to_string(fd);
  char target[64];
  ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
  if (n <= 0) return;
  std::string path(target, static_cast<size_t>(n));
  // /proc/PID/mem, or a thread's /proc/PID/task/TID/mem (gdb's).
  unsigned pid = 0, tid = 0;
  int end = 0;
  auto whole = [&](int matched, int wanted) { return matched == wanted && end > 0 && std::size_t(end) == path.size(); };
  bool mem = whole(std::sscanf(path.c_str(), "/proc/%u/mem%n", &pid, &end), 1);
  if (!mem) {
    end = 0;
    mem = whole(std::sscanf(path.c_str(), "/proc/%u/task/%u/mem%n", &pid, &tid, &end), 2);
  }
  if (!mem) return;
  RecordTask* writer = ctx.session.record_task(ctx.task.tid());
  RecordTask* owner = ctx.session.record_task(static_cast<pid_t>(pid));
  if (!owner || !writer) return;  // memory outside the recording
  if (!offset) {
    std::optional<uint64_t> pos = file_position(ctx.task.tid(), fd);
    if (!pos || *pos < len) return;
    offset = *pos - len;  // the write ended at the new file position
  }
  if (owner->process == writer->process) {
    ctx.record_memory(*offset, len);
  } else {
    // Another recorded process's memory (a debugger's breakpoints).
    ctx.session.record_write_into(ctx, static_cast<pid_t>(pid), {{*offset, len}});
  }
}

// What a write into file `fd` changed besides the file: mappings of it, or
// (/proc/PID/mem) the program's memory. What the descriptor is comes from
// the recorder's cache: no system call for a write to anything else.
void record_write_effects(SyscallContext& ctx, int fd, std::optional<uint64_t> offset, uint64_t len) {
  if (len == 0) return;
  std::optional<DescriptorCache::File> file = ctx.session.descriptors().file(ctx.task.tid(), fd);
  if (!file) return;
  if (file->proc) {
    record_proc_mem_write(ctx, fd, offset, len);
  } else if (file->regular()) {
    // Only a file some process maps has memory to change (the writer's own
    // mappings of it count among them).
    std::optional<uint64_t> object = ctx.session.mapped_object(file->dev, file->ino);
    if (!object) return;
    if (!offset) {
      // Where the write ended: the descriptor's position now.
      std::optional<uint64_t> pos = file_position(ctx.task.tid(), fd);
      if (!pos || *pos < len) return;
      offset = *pos - len;
    }
    record_shared_mapping_changes(ctx, *file, *offset, len);
    record_object_write(ctx, fd, *object, *offset, len);
  }
}

// A read that fails with EFAULT may have filled part of the buffer first (a
// pipe read stops at the first page it cannot write, and returns EFAULT if
// that was in its first chunk): record what the buffer holds, up to the
// first unreadable byte.
constexpr uint64_t kMaxFaultedRead = uint64_t{1} << 26;

void exit_read(SyscallContext& ctx) {
  if (ctx.result() == -EFAULT) ctx.record_memory(ctx.arg(1), std::min(ctx.arg(2), kMaxFaultedRead));
}

// readv, preadv, preadv2 and vmsplice scatter what they read over an iovec array.
void exit_scatter_read(SyscallContext& ctx) {
  int64_t ret = ctx.result();
  if (ret > 0) ctx.record_iovecs(ctx.arg(1), ctx.arg(2), static_cast<uint64_t>(ret));
  if (ret == -EFAULT) ctx.record_iovecs(ctx.arg(1), ctx.arg(2), kMaxFaultedRead);
}

// vmsplice reads from a pipe into memory (as readv), or writes memory into
// one: into our stdout or stderr, that is output to re-emit.
void exit_vmsplice(SyscallContext& ctx) {
  exit_scatter_read(ctx);
  int64_t ret = ctx.result();
  if (ret > 0 && ctx.session.stdio_stream(ctx.task, static_cast<int>(ctx.arg(0)))) {
    ctx.echo_if_stdio(static_cast<int>(ctx.arg(0)),
                      gather_iovecs(ctx.task, ctx.arg(1), ctx.arg(2), static_cast<uint64_t>(ret)));
  }
}

void exit_write(SyscallContext& ctx) {
  int64_t ret = ctx.result();
  if (ret <= 0) return;
  if (ctx.written) ctx.echo_if_stdio(static_cast<int>(ctx.arg(0)), *ctx.written);
  std::optional<uint64_t> offset =
      ctx.info.nr == SYS_pwrite64 ? std::optional<uint64_t>(ctx.arg(3)) : std::nullopt;
  record_write_effects(ctx, static_cast<int>(ctx.arg(0)), offset, static_cast<uint64_t>(ret));
}

// writev, pwritev and pwritev2.
void exit_gather_write(SyscallContext& ctx) {
  int64_t ret = ctx.result();
  if (ret <= 0) return;
  if (ctx.written) ctx.echo_if_stdio(static_cast<int>(ctx.arg(0)), *ctx.written);
  bool positioned = ctx.info.nr != SYS_writev && static_cast<int64_t>(ctx.arg(3)) != -1;
  std::optional<uint64_t> offset = positioned ? std::optional<uint64_t>(ctx.arg(3)) : std::nullopt;
  record_write_effects(ctx, static_cast<int>(ctx.arg(0)), offset, static_cast<uint64_t>(ret));
}

// fcntl commands (<linux/fcntl.h>, Linux 6.18) by what they write through
// arg3: a struct flock (F_GETLK, F_OFD_GETLK), a struct f_owner_ex
// (F_GETOWN_EX), two uid_t (F_GETOWNER_UIDS), a u64 write-life hint
// (F_GET_RW_HINT, F_GET_FILE_RW_HINT). Every other command answers in the
// return value or only reads its argument. A command not listed here is newer
// than this table: if the kernel refused it (EINVAL) nothing happened; if it
// succeeded, the recording stops rather than miss what it wrote.
constexpr int kFGetOwnerUids = 17;
constexpr int kFDupfdQuery = 1027, kFCreatedQuery = 1028, kFCancelLk = 1029;
constexpr int kFGetFileRwHint = 1037, kFSetFileRwHint = 1038;

void exit_fcntl(SyscallContext& ctx) {
  int cmd = static_cast<int>(ctx.arg(1));
  if (ctx.failed()) return;
  switch (cmd) {
    case F_GETLK:
    case F_OFD_GETLK: ctx.record_memory(ctx.arg(2), kFlockSize); break;
    case F_GETOWN_EX: ctx.record_memory(ctx.arg(2), sizeof(f_owner_ex)); break;
    case kFGetOwnerUids: ctx.record_memory(ctx.arg(2), 2 * sizeof(uid_t)); break;
    case F_GET_RW_HINT:
    case kFGetFileRwHint: ctx.record_memory(ctx.arg(2), sizeof(uint64_t)); break;
    case F_DUPFD: case F_DUPFD_CLOEXEC: case F_GETFD: case F_SETFD: case F_GETFL: case F_SETFL:
    case F_SETLK: case F_SETLKW: case F_OFD_SETLK: case F_OFD_SETLKW: case F_SETOWN: case F_GETOWN:
    case F_SETSIG: case F_GETSIG: case F_SETOWN_EX: case F_SETLEASE: case F_GETLEASE: case F_NOTIFY:
    case kFDupfdQuery: case kFCreatedQuery: case kFCancelLk: case F_SETPIPE_SZ: case F_GETPIPE_SZ:
    case F_ADD_SEALS: case F_GET_SEALS: case F_SET_RW_HINT: case kFSetFileRwHint: break;
    default:
      ctx.refuse_after_call("fcntl command " + std::to_string(cmd) +
                            " succeeded, but backstep does not know what it writes");
  }
}

void exit_copy_file_range(SyscallContext& ctx) {
  int64_t ret = ctx.result();
  ctx.record_memory(ctx.arg(1), sizeof(loff_t));
  ctx.record_memory(ctx.arg(3), sizeof(loff_t));
  echo_kernel_copy(ctx, static_cast<int>(ctx.arg(2)), static_cast<int>(ctx.arg(0)), ctx.arg(1));
  if (ret > 0 && ctx.arg(3) == 0) {
    record_write_effects(ctx, static_cast<int>(ctx.arg(2)), std::nullopt, static_cast<uint64_t>(ret));
  }
}

void exit_sendfile(SyscallContext& ctx) {
  echo_kernel_copy(ctx, static_cast<int>(ctx.arg(0)), static_cast<int>(ctx.arg(1)), ctx.arg(2));
}

void exit_splice(SyscallContext& ctx) {
  echo_kernel_copy(ctx, static_cast<int>(ctx.arg(2)), static_cast<int>(ctx.arg(0)), ctx.arg(1));
}

}  // namespace

namespace recorders {
extern const SyscallRecorder read{nullptr, exit_read};
extern const SyscallRecorder scatter_read{nullptr, exit_scatter_read};
extern const SyscallRecorder write{nullptr, exit_write};
extern const SyscallRecorder gather_write{nullptr, exit_gather_write};
extern const SyscallRecorder fcntl{nullptr, exit_fcntl};
extern const SyscallRecorder copy_file_range{nullptr, exit_copy_file_range};
extern const SyscallRecorder sendfile{nullptr, exit_sendfile};
extern const SyscallRecorder splice{nullptr, exit_splice};
extern const SyscallRecorder vmsplice{nullptr, exit_vmsplice};
}  // namespace recorders

}  // namespace backstep
