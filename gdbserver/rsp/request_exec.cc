// Parsers for resuming and stopping: vCont, the legacy c/C/s/S, kill,
// detach, vRun, and the signal and syscall filters.
#include "gdbserver/rsp/request_parsers.h"

namespace backstep::rsp::detail {

namespace {

constexpr std::uint64_t kMaxSignal = 0xff;

// One vCont action: "c", "C<sig>", "s", "S<sig>", "t", "r<start>,<end>",
// each optionally followed by ":<thread id>".
VContAction parse_vcont_action(Scanner& s) {
  using Kind = VContAction::Kind;
  VContAction action;
  if (s.consume('c')) {
    action.kind = Kind::Continue;
  } else if (s.consume('C')) {
    action.kind = Kind::ContinueSignal;
    action.signal = s.signal();
  } else if (s.consume('s')) {
    action.kind = Kind::Step;
  } else if (s.consume('S')) {
    action.kind = Kind::StepSignal;
    action.signal = s.signal();
  } else if (s.consume('t')) {
    action.kind = Kind::Stop;
  } else if (s.consume('r')) {
    action.kind = Kind::RangeStep;
    action.range_start = s.hex("range start");
    s.expect(',', "between the range's start and end");
    action.range_end = s.hex("range end");
  } else {
    s.fail(std::string("unknown action '") + s.peek() + "'");
  }
  if (s.consume(':')) action.thread = s.thread_id();
  return action;
}

// QPassSignals / QProgramSignals: hex signal numbers separated by ';',
// possibly none, possibly with a final ';'.
std::vector<int> parse_signal_list(Scanner& s) {
  std::vector<int> signals;
  s.expect(':', "before the signal list");
  std::string_view list = s.rest();
  if (list.size() > 1 && list.ends_with(';')) list.remove_suffix(1);
  if (list.empty()) return signals;
  for (std::string_view field : split(list, ';')) {
    auto value = parse_hex_u64(field);
    if (!value || *value > kMaxSignal) {
      s.fail("bad signal '" + std::string(field) + "'");
      break;
    }
    signals.push_back(static_cast<int>(*value));
  }
  return signals;
}

std::optional<std::int64_t> optional_pid(Scanner& s) {
  if (!s.consume(';')) return std::nullopt;
  return s.hex_id("pid");
}

}  // namespace

ParseResult parse_vcont(std::string_view args) {
  Scanner s(args);
  VCont request;
  while (!s.failed() && s.consume(';')) request.actions.push_back(parse_vcont_action(s));
  if (request.actions.empty()) s.fail("no actions");
  return s.finish(std::move(request));
}

ParseResult parse_continue(std::string_view args) {
  Scanner s(args);
  Continue request;
  if (!s.at_end()) request.addr = s.hex("address");
  return s.finish(request);
}

ParseResult parse_continue_with_signal(std::string_view args) {
  Scanner s(args);
  ContinueWithSignal request;
  request.signal = s.signal();
  if (s.consume(';')) request.addr = s.hex("address");
  return s.finish(request);
}

ParseResult parse_step(std::string_view args) {
  Scanner s(args);
  Step request;
  if (!s.at_end()) request.addr = s.hex("address");
  return s.finish(request);
}

ParseResult parse_step_with_signal(std::string_view args) {
  Scanner s(args);
  StepWithSignal request;
  request.signal = s.signal();
  if (s.consume(';')) request.addr = s.hex("address");
  return s.finish(request);
}

ParseResult parse_vkill(std::string_view args) {
  Scanner s(args);
  VKill request;
  request.pid = optional_pid(s);
  return s.finish(request);
}

ParseResult parse_detach(std::string_view args) {
  Scanner s(args);
  Detach request;
  request.pid = optional_pid(s);
  return s.finish(request);
}

ParseResult parse_vrun(std::string_view args) {
  Scanner s(args);
  VRun request;
  s.expect(';', "before the program name");
  std::vector<std::string_view> fields = split(s.rest(), ';');
  request.program = s.decode_text(fields.front(), "program name");
  for (std::size_t i = 1; i < fields.size(); ++i) {
    request.args.push_back(s.decode_text(fields[i], "argument"));
  }
  return s.finish(std::move(request));
}

ParseResult parse_pass_signals(std::string_view args) {
  Scanner s(args);
  PassSignals request;
  request.signals = parse_signal_list(s);
  return s.finish(std::move(request));
}

ParseResult parse_program_signals(std::string_view args) {
  Scanner s(args);
  ProgramSignals request;
  request.signals = parse_signal_list(s);
  return s.finish(std::move(request));
}

ParseResult parse_catch_syscalls(std::string_view args) {
  Scanner s(args);
  CatchSyscalls request;
  request.enabled = s.colon_flag("mode");
  if (request.enabled) {
    while (!s.failed() && s.consume(';')) request.numbers.push_back(s.hex("syscall number"));
  }
  return s.finish(std::move(request));
}

}  // namespace backstep::rsp::detail
