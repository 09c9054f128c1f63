#include "gdbserver/rsp/reply.h"

namespace backstep::rsp {

namespace {

// Exit statuses and signals travel as one byte in two hex digits.
std::string byte_hex(int value) { return hex_le(static_cast<std::uint8_t>(value), 1); }

std::string with_process(char kind, int value, std::optional<std::int64_t> pid) {
  std::string out(1, kind);
  out += byte_hex(value);
  if (pid) out += ";process:" + hex_signed(*pid);
  return out;
}

struct ReasonWriter {
  std::string& out;

  void operator()(std::monostate) const {}
  void operator()(const SoftwareBreak&) const { out += "swbreak:;"; }
  void operator()(const HardwareBreak&) const { out += "hwbreak:;"; }
  void operator()(const Watchpoint& w) const {
    switch (w.access) {
      case Watchpoint::Access::Write:
        out += "watch:";
        break;
      case Watchpoint::Access::Read:
        out += "rwatch:";
        break;
      case Watchpoint::Access::ReadWrite:
        out += "awatch:";
        break;
    }
    out += hex_number(w.addr) + ";";
  }
  void operator()(const HistoryBoundary& b) const {
    out += b.edge == HistoryBoundary::Edge::Begin ? "replaylog:begin;" : "replaylog:end;";
  }
  void operator()(const SyscallEntry& s) const {
    out += "syscall_entry:" + hex_number(s.number) + ";";
  }
  void operator()(const SyscallReturn& s) const {
    out += "syscall_return:" + hex_number(s.number) + ";";
  }
  void operator()(const Exec& e) const { out += e.lldb ? "reason:exec;" : "exec:" + hex_encode(e.path) + ";"; }
  void operator()(const Fork& f) const { out += (f.vfork ? "vfork:" : "fork:") + to_string(f.child) + ";"; }
  void operator()(const VforkDone&) const { out += "vforkdone:;"; }
};

template <typename T, typename Format>
std::string joined(std::span<const T> items, Format format) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i != 0) out += ',';
    out += format(items[i]);
  }
  return out;
}

// "p1.2,p1.3": qfThreadInfo and lldb's "threads:" stop key.
std::string thread_ids(std::span<const ThreadId> ids) {
  return joined(ids, [](const ThreadId& t) { return to_string(t); });
}

}  // namespace

std::string ok() { return "OK"; }
std::string empty() { return {}; }

std::string error(ErrorCode code) { return "E" + byte_hex(static_cast<int>(code)); }

std::string error(ErrorCode code, std::string_view message) {
  return error(code) + ";" + hex_encode(message);
}

std::string stop_reply(const StopReply& stop) {
  std::string out = "T" + byte_hex(stop.signal);
  if (stop.thread) out += "thread:" + to_string(*stop.thread) + ";";
  std::visit(ReasonWriter{out}, stop.reason);
  for (const auto& reg : stop.registers) {
    // At least two digits, as gdbserver writes them: "06:", "10:".
    std::string regnum = hex_number(reg.regnum);
    if (regnum.size() < 2) regnum.insert(0, "0");
    out += regnum + ":" + reg.value + ";";
  }
  if (stop.core) out += "core:" + hex_number(static_cast<std::uint64_t>(*stop.core)) + ";";
  if (!stop.threads.empty()) {
    out += "threads:" + thread_ids(stop.threads) + ";";
  }
  if (!stop.thread_pcs.empty()) {
    out += "thread-pcs:" +
           joined(std::span<const std::uint64_t>(stop.thread_pcs),
                  [](std::uint64_t pc) { return hex_number(pc); }) +
           ";";
  }
  return out;
}

std::string exited(int status, std::optional<std::int64_t> pid) {
  return with_process('W', status, pid);
}

std::string terminated(int signal, std::optional<std::int64_t> pid) {
  return with_process('X', signal, pid);
}

std::string thread_list(std::span<const ThreadId> threads) {
  if (threads.empty()) return "l";
  return "m" + thread_ids(threads);
}

std::string current_thread(const ThreadId& thread) { return "QC" + to_string(thread); }

std::string register_value(std::uint64_t value, std::size_t size) { return hex_le(value, size); }

std::string register_bytes(std::span<const std::uint8_t> bytes) { return hex_encode(bytes); }

std::string unavailable_register(std::size_t size) { return std::string(size * 2, 'x'); }

std::string memory_hex(std::span<const std::uint8_t> bytes) { return hex_encode(bytes); }

std::string memory_binary(std::span<const std::uint8_t> bytes, BinaryMemoryStyle style) {
  std::string out;
  out.reserve(bytes.size() + 1);
  if (style == BinaryMemoryStyle::GdbPrefixed) out.push_back('b');
  out.append(bytes.begin(), bytes.end());
  return out;
}

std::string console_output(std::string_view text) { return "O" + hex_encode(text); }

std::string xfer_chunk(std::string_view object, std::uint64_t offset, std::uint64_t length) {
  if (offset >= object.size()) return "l";
  std::string_view chunk = object.substr(offset, length);
  bool more = offset + chunk.size() < object.size();
  return (more ? "m" : "l") + std::string(chunk);
}

std::string file_result(std::int64_t result) { return "F" + hex_signed(result); }

std::string file_error(int gdb_errno) { return "F-1," + hex_signed(gdb_errno); }

std::string file_data(std::string_view bytes) {
  return "F" + hex_number(bytes.size()) + ";" + std::string(bytes);
}

std::string supported_features(std::span<const SupportedFeature> features) {
  std::string out;
  for (const auto& feature : features) {
    if (!out.empty()) out += ';';
    out += feature.name;
    switch (feature.state) {
      case SupportedFeature::State::Supported:
        out += '+';
        break;
      case SupportedFeature::State::Unsupported:
        out += '-';
        break;
      case SupportedFeature::State::Query:
        out += '?';
        break;
      case SupportedFeature::State::Value:
        out += "=" + feature.value;
        break;
    }
  }
  return out;
}

std::string key_values(std::span<const std::pair<std::string_view, std::string>> pairs) {
  std::string out;
  for (const auto& [key, value] : pairs) {
    out += key;
    out += ':';
    out += value;
    out += ';';
  }
  return out;
}

std::string memory_region(const MemoryRegion& region) {
  std::string out = "start:" + hex_number(region.start) + ";size:" + hex_number(region.size) + ";";
  if (!region.permissions.empty()) out += "permissions:" + region.permissions + ";";
  if (region.name) out += "name:" + hex_encode(*region.name) + ";";
  return out;
}

}  // namespace backstep::rsp
