#include "gdbserver/rsp/thread_id.h"

#include "gdbserver/rsp/hex.h"

namespace backstep::rsp {

namespace {

// "-1", or hex up to INT64_MAX.
std::optional<std::int64_t> parse_id_value(std::string_view text) {
  if (text == "-1") return ThreadId::kAll;
  auto value = parse_hex_u64(text);
  if (!value || *value > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(*value);
}

ThreadId::Kind kind_of(std::int64_t value) {
  if (value == ThreadId::kAny) return ThreadId::Kind::Any;
  if (value == ThreadId::kAll) return ThreadId::Kind::All;
  return ThreadId::Kind::Specific;
}

}  // namespace

ThreadId ThreadId::in_process(std::int64_t pid, std::int64_t tid) {
  return {kind_of(tid), tid, pid};
}

std::optional<ThreadId> parse_thread_id(std::string_view text) {
  if (text.empty() || text.front() != 'p') {
    auto tid = parse_id_value(text);
    if (!tid) return std::nullopt;
    return ThreadId{kind_of(*tid), *tid, std::nullopt};
  }
  text.remove_prefix(1);
  std::string_view pid_text = text;
  std::string_view tid_text = "-1";  // "p<pid>" is "p<pid>.-1"
  if (auto dot = text.find('.'); dot != std::string_view::npos) {
    pid_text = text.substr(0, dot);
    tid_text = text.substr(dot + 1);
  }
  auto pid = parse_id_value(pid_text);
  auto tid = parse_id_value(tid_text);
  if (!pid || !tid) return std::nullopt;
  if (*pid == ThreadId::kAll && *tid != ThreadId::kAll) return std::nullopt;
  return ThreadId::in_process(*pid, *tid);
}

std::string to_string(const ThreadId& id) {
  std::string tid = hex_signed(id.tid);
  if (!id.pid) return tid;
  return "p" + hex_signed(*id.pid) + "." + tid;
}

}  // namespace backstep::rsp
