// bpf(2) by command: what each one writes into the program's memory.
//
// Most commands write only the attr union (ids, a log's true size), which
// is recorded whole; program and BTF loads also fill a log buffer. Element
// reads write through pointers in attr whose sizes are the map's: the
// recorder reads the map's key and value sizes from /proc/PID/fdinfo.
// Other commands (object info of programs, links and BTF, batch
// operations, test runs, queries) write through pointers of their own and
// stop the recording until they are handled.
#include <linux/bpf.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <optional>
#include <set>
#include <string>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

const std::set<int> kBpfAttrOnly = {
    BPF_MAP_CREATE,        BPF_MAP_UPDATE_ELEM, BPF_MAP_DELETE_ELEM, BPF_OBJ_PIN,
    BPF_OBJ_GET,           BPF_PROG_ATTACH,     BPF_PROG_DETACH,     BPF_PROG_GET_NEXT_ID,
    BPF_MAP_GET_NEXT_ID,   BPF_PROG_GET_FD_BY_ID, BPF_MAP_GET_FD_BY_ID, BPF_BTF_GET_FD_BY_ID,
    BPF_MAP_FREEZE,        BPF_BTF_GET_NEXT_ID, BPF_LINK_GET_FD_BY_ID, BPF_LINK_GET_NEXT_ID,
    BPF_LINK_DETACH,       BPF_PROG_BIND_MAP,   BPF_PROG_LOAD,       BPF_BTF_LOAD,
};
// Commands that read elements of a map (or the info of a map): handled
// below with the map's own sizes.
const std::set<int> kBpfMapReads = {BPF_MAP_LOOKUP_ELEM, BPF_MAP_LOOKUP_AND_DELETE_ELEM, BPF_MAP_GET_NEXT_KEY,
                                    BPF_OBJ_GET_INFO_BY_FD};
constexpr uint64_t kMaxBpfAttr = 4096;  // the kernel refuses larger (E2BIG)

// What /proc/PID/fdinfo says of a BPF map descriptor.
struct MapShape {
  uint32_t type = 0, key_size = 0, value_size = 0;
};

std::optional<MapShape> map_shape(pid_t pid, uint32_t fd) {
  std::ifstream info("/proc/" + std::to_string(pid) + "/fdinfo/" + std::to_string(fd));
  std::string key;
  MapShape shape;
  bool is_map = false;
  while (info >> key) {
    uint64_t value = 0;
    if (key == "map_type:") is_map = static_cast<bool>(info >> shape.type);
    else if (key == "key_size:") info >> shape.key_size;
    else if (key == "value_size:") info >> shape.value_size;
    else info >> value;  // other fields are single numbers too, or skipped below
    info.clear();
    info.ignore(1 << 20, '\n');
  }
  if (!is_map) return std::nullopt;
  return shape;
}

// Per-CPU maps answer one value per possible CPU, each rounded up to 8.
uint64_t possible_cpus() {
  std::ifstream f("/sys/devices/system/cpu/possible");
  std::string ranges;
  f >> ranges;
  uint64_t count = 0;
  size_t at = 0;
  while (at < ranges.size()) {
    size_t comma = ranges.find(',', at);
    std::string part = ranges.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    size_t dash = part.find('-');
    uint64_t lo = std::stoull(part.substr(0, dash));
    uint64_t hi = dash == std::string::npos ? lo : std::stoull(part.substr(dash + 1));
    count += hi - lo + 1;
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return std::max<uint64_t>(count, 1);
}

uint64_t value_bytes(const MapShape& m) {
  switch (m.type) {
    case BPF_MAP_TYPE_PERCPU_HASH:
    case BPF_MAP_TYPE_PERCPU_ARRAY:
    case BPF_MAP_TYPE_LRU_PERCPU_HASH:
    case BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE:
      return ((uint64_t{m.value_size} + 7) & ~uint64_t{7}) * possible_cpus();
    default:
      return m.value_size;
  }
}

bpf_attr read_attr(SyscallContext& ctx) {
  bpf_attr attr{};
  ctx.task.read_some(remote_ptr<void>(ctx.arg(1)), &attr, std::min<uint64_t>(ctx.arg(2), sizeof(attr)));
  return attr;
}

void enter_bpf(SyscallContext& ctx) {
  int cmd = static_cast<int>(ctx.arg(0));
  if (kBpfAttrOnly.count(cmd)) return;
  if (!kBpfMapReads.count(cmd)) ctx.refuse("unsupported bpf command " + std::to_string(cmd));
  bpf_attr attr = read_attr(ctx);
  uint32_t fd = cmd == BPF_OBJ_GET_INFO_BY_FD ? attr.info.bpf_fd : attr.map_fd;
  if (!map_shape(ctx.task.tid(), fd) && cmd == BPF_OBJ_GET_INFO_BY_FD) {
    ctx.refuse("bpf(BPF_OBJ_GET_INFO_BY_FD) of a program, link or BTF object (pointers inside its info)");
  }
}

// The verifier writes its log even when the load fails.
void record_bpf_log(SyscallContext& ctx, uint64_t buf, uint32_t size, uint32_t level) {
  if (level != 0) ctx.record_memory(buf, size);
}

void record_map_read(SyscallContext& ctx, int cmd, const bpf_attr& attr) {
  uint32_t fd = cmd == BPF_OBJ_GET_INFO_BY_FD ? attr.info.bpf_fd : attr.map_fd;
  std::optional<MapShape> shape = map_shape(ctx.task.tid(), fd);
  if (!shape) return;  // not a map: the kernel refused the call
  switch (cmd) {
    case BPF_MAP_LOOKUP_ELEM:
    case BPF_MAP_LOOKUP_AND_DELETE_ELEM: ctx.record_memory(attr.value, value_bytes(*shape)); break;
    case BPF_MAP_GET_NEXT_KEY: ctx.record_memory(attr.next_key, shape->key_size); break;
    case BPF_OBJ_GET_INFO_BY_FD: ctx.record_memory(attr.info.info, attr.info.info_len); break;  // the new length
    default: break;
  }
}

void exit_bpf(SyscallContext& ctx) {
  int cmd = static_cast<int>(ctx.arg(0));
  uint64_t size = std::min<uint64_t>(ctx.arg(2), kMaxBpfAttr);
  ctx.record_memory(ctx.arg(1), size);
  bpf_attr attr{};
  std::size_t got = ctx.task.read_some(remote_ptr<void>(ctx.arg(1)), &attr, std::min<uint64_t>(size, sizeof(attr)));
  if (cmd == BPF_PROG_LOAD && got >= offsetof(bpf_attr, log_buf) + sizeof(attr.log_buf)) {
    record_bpf_log(ctx, attr.log_buf, attr.log_size, attr.log_level);
  } else if (cmd == BPF_BTF_LOAD && got >= offsetof(bpf_attr, btf_log_level) + sizeof(attr.btf_log_level)) {
    record_bpf_log(ctx, attr.btf_log_buf, attr.btf_log_size, attr.btf_log_level);
  } else if (kBpfMapReads.count(cmd) && !ctx.failed()) {
    record_map_read(ctx, cmd, attr);
  }
}

}  // namespace

namespace recorders {
extern const SyscallRecorder bpf{enter_bpf, exit_bpf};
}  // namespace recorders

}  // namespace backstep
