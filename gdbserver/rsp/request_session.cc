// Parsers for connection set-up, queries, threads and the settings gdb sends
// before vRun.
#include "gdbserver/rsp/request_parsers.h"

namespace backstep::rsp {

bool QuerySupported::supports(std::string_view name) const {
  for (const auto& feature : features) {
    if (feature.name == name) return feature.state == SupportedFeature::State::Supported;
  }
  return false;
}

std::optional<std::string_view> QuerySupported::value_of(std::string_view name) const {
  for (const auto& feature : features) {
    if (feature.name == name && feature.state == SupportedFeature::State::Value) {
      return feature.value;
    }
  }
  return std::nullopt;
}

namespace detail {

namespace {

std::optional<SupportedFeature> parse_feature(std::string_view item) {
  using State = SupportedFeature::State;
  if (auto eq = item.find('='); eq != std::string_view::npos) {
    if (eq == 0) return std::nullopt;
    return SupportedFeature{std::string(item.substr(0, eq)), State::Value,
                            std::string(item.substr(eq + 1))};
  }
  if (item.size() < 2) return std::nullopt;
  std::string name(item.substr(0, item.size() - 1));
  switch (item.back()) {
    case '+':
      return SupportedFeature{name, State::Supported, {}};
    case '-':
      return SupportedFeature{name, State::Unsupported, {}};
    case '?':
      return SupportedFeature{name, State::Query, {}};
    default:
      return std::nullopt;
  }
}

}  // namespace

ParseResult parse_query_supported(std::string_view args) {
  Scanner s(args);
  QuerySupported request;
  if (s.consume(':')) {
    for (std::string_view item : split(s.rest(), ';')) {
      auto feature = parse_feature(item);
      if (!feature) {
        s.fail("bad feature '" + std::string(item) + "'");
        break;
      }
      request.features.push_back(std::move(*feature));
    }
  }
  return s.finish(std::move(request));
}

ParseResult parse_set_non_stop(std::string_view args) {
  Scanner s(args);
  SetNonStop request;
  request.enabled = s.colon_flag("mode");
  return s.finish(request);
}

ParseResult parse_query_attached(std::string_view args) {
  Scanner s(args);
  QueryAttached request;
  if (s.consume(':')) request.pid = s.hex_id("pid");
  return s.finish(request);
}

ParseResult parse_query_memory_region(std::string_view args) {
  Scanner s(args);
  QueryMemoryRegion request;
  s.expect(':', "before the address");
  request.addr = s.hex("address");
  return s.finish(request);
}

ParseResult parse_query_watchpoint_support(std::string_view args) {
  Scanner s(args);
  s.consume(':');  // lldb sends "qWatchpointSupportInfo:"
  return s.finish(QueryWatchpointSupport{});
}

ParseResult parse_query_register_info(std::string_view args) {
  Scanner s(args);
  QueryRegisterInfo request;
  request.regnum = static_cast<std::uint32_t>(s.hex("register number", UINT32_MAX));
  return s.finish(request);
}

ParseResult parse_query_symbol(std::string_view args) {
  Scanner s(args);
  QuerySymbol request;
  s.expect(':', "before the symbol value");
  if (!s.consume(':')) {
    request.value = s.hex("symbol value");
    s.expect(':', "before the symbol name");
  }
  request.name = s.decode_text(s.rest(), "symbol name");
  return s.finish(std::move(request));
}

ParseResult parse_monitor_command(std::string_view args) {
  Scanner s(args);
  MonitorCommand request;
  s.expect(',', "before the command");
  request.command = s.decode_text(s.rest(), "command");
  return s.finish(std::move(request));
}

ParseResult parse_thread_alive(std::string_view args) {
  Scanner s(args);
  ThreadAlive request;
  request.thread = s.thread_id();
  return s.finish(request);
}

ParseResult parse_thread_extra_info(std::string_view args) {
  Scanner s(args);
  ThreadExtraInfo request;
  s.expect(',', "before the thread id");
  request.thread = s.thread_id();
  return s.finish(request);
}

ParseResult parse_query_tls_address(std::string_view args) {
  Scanner s(args);
  QueryTlsAddress request;
  s.expect(':', "before the thread id");
  request.thread = s.thread_id();
  s.expect(',', "after the thread id");
  request.offset = s.hex("offset");
  s.expect(',', "after the offset");
  request.link_map = s.hex("link map address");
  return s.finish(request);
}

ParseResult parse_set_thread(std::string_view args) {
  Scanner s(args);
  SetThread request;
  if (s.consume('g')) {
    request.purpose = SetThread::Purpose::General;
  } else if (s.consume('c')) {
    request.purpose = SetThread::Purpose::Resume;
  } else {
    s.fail("operation must be 'g' or 'c'");
  }
  request.thread = s.thread_id();
  return s.finish(request);
}

ParseResult parse_disable_randomization(std::string_view args) {
  Scanner s(args);
  DisableRandomization request;
  request.disable = s.colon_flag("setting");
  return s.finish(request);
}

ParseResult parse_startup_with_shell(std::string_view args) {
  Scanner s(args);
  StartupWithShell request;
  request.enabled = s.colon_flag("setting");
  return s.finish(request);
}

ParseResult parse_environment_hex_encoded(std::string_view args) {
  Scanner s(args);
  EnvironmentHexEncoded request;
  s.expect(':', "before the variable");
  request.assignment = s.decode_text(s.rest(), "variable");
  if (!s.failed() && request.assignment.find('=') == std::string::npos) {
    s.fail("variable has no '='");
  }
  return s.finish(std::move(request));
}

ParseResult parse_set_working_dir(std::string_view args) {
  Scanner s(args);
  SetWorkingDir request;
  s.expect(':', "before the directory");
  request.path = s.decode_text(s.rest(), "directory");
  return s.finish(std::move(request));
}

}  // namespace detail
}  // namespace backstep::rsp
