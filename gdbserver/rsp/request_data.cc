// Parsers for registers, memory and breakpoints.
#include "gdbserver/rsp/request_parsers.h"

namespace backstep::rsp::detail {

namespace {

constexpr std::uint64_t kLastBreakpointType =
    static_cast<std::uint64_t>(BreakpointType::AccessWatch);

std::uint32_t regnum(Scanner& s) {
  return static_cast<std::uint32_t>(s.hex("register number", UINT32_MAX));
}

// "<addr>,<length>", the head of m, x, M and X.
void address_and_length(Scanner& s, std::uint64_t& addr, std::uint64_t& length) {
  addr = s.hex("address");
  s.expect(',', "after the address");
  length = s.hex("length");
}

void check_length(Scanner& s, std::size_t actual, std::uint64_t declared) {
  if (!s.failed() && actual != declared) {
    s.fail("length says " + std::to_string(declared) + " bytes, data has " +
           std::to_string(actual));
  }
}

BreakpointSpec parse_breakpoint(Scanner& s) {
  BreakpointSpec spec;
  spec.type = static_cast<BreakpointType>(s.hex("type", kLastBreakpointType));
  s.expect(',', "after the type");
  spec.addr = s.hex("address");
  s.expect(',', "after the address");
  spec.kind = s.hex("kind");
  if (s.consume(';')) spec.conditions = std::string(s.rest());
  return spec;
}

}  // namespace

ParseResult parse_read_registers(std::string_view args) {
  Scanner s(args);
  ReadRegisters request;
  request.thread = s.thread_suffix();
  return s.finish(request);
}

ParseResult parse_write_registers(std::string_view args) {
  Scanner s(args);
  WriteRegisters request;
  request.data = s.decode_bytes(s.until(';'), "register data");
  if (!s.failed() && request.data.empty()) s.fail("no register data");
  request.thread = s.thread_suffix();
  return s.finish(std::move(request));
}

ParseResult parse_read_register(std::string_view args) {
  Scanner s(args);
  ReadRegister request;
  request.regnum = regnum(s);
  request.thread = s.thread_suffix();
  return s.finish(request);
}

ParseResult parse_write_register(std::string_view args) {
  Scanner s(args);
  WriteRegister request;
  request.regnum = regnum(s);
  s.expect('=', "after the register number");
  request.value = s.decode_bytes(s.until(';'), "register value");
  if (!s.failed() && request.value.empty()) s.fail("no register value");
  request.thread = s.thread_suffix();
  return s.finish(std::move(request));
}

ParseResult parse_save_register_state(std::string_view args) {
  Scanner s(args);
  SaveRegisterState request;
  request.thread = s.thread_suffix();
  return s.finish(request);
}

ParseResult parse_restore_register_state(std::string_view args) {
  Scanner s(args);
  RestoreRegisterState request;
  s.expect(':', "before the save id");
  // Decimal, as lldb writes it (and as QSaveRegisterState's reply gives it).
  std::string_view digits = s.until(';');
  if (!s.failed() && (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string_view::npos)) {
    s.fail("save id must be a decimal number");
  }
  for (char c : digits) request.save_id = request.save_id * 10 + static_cast<std::uint64_t>(c - '0');
  request.thread = s.thread_suffix();
  return s.finish(request);
}

ParseResult parse_read_memory(std::string_view args) {
  Scanner s(args);
  ReadMemory request;
  address_and_length(s, request.addr, request.length);
  return s.finish(request);
}

ParseResult parse_read_memory_binary(std::string_view args) {
  Scanner s(args);
  ReadMemoryBinary request;
  address_and_length(s, request.addr, request.length);
  return s.finish(request);
}

ParseResult parse_write_memory(std::string_view args) {
  Scanner s(args);
  WriteMemory request;
  std::uint64_t length = 0;
  address_and_length(s, request.addr, length);
  s.expect(':', "after the length");
  request.data = s.decode_bytes(s.rest(), "data");
  check_length(s, request.data.size(), length);
  return s.finish(std::move(request));
}

ParseResult parse_write_memory_binary(std::string_view args) {
  Scanner s(args);
  WriteMemoryBinary request;
  std::uint64_t length = 0;
  address_and_length(s, request.addr, length);
  s.expect(':', "after the length");
  std::string_view data = s.rest();
  request.data.assign(data.begin(), data.end());
  check_length(s, request.data.size(), length);
  return s.finish(std::move(request));
}

ParseResult parse_allocate_memory(std::string_view args) {
  Scanner s(args);
  AllocateMemory request;
  request.size = s.hex("size");
  s.expect(',', "after the size");
  request.permissions = std::string(s.rest());
  if (!s.failed() && (request.permissions.empty() ||
                      request.permissions.find_first_not_of("rwx") != std::string::npos)) {
    s.fail("permissions must be letters of \"rwx\"");
  }
  return s.finish(std::move(request));
}

ParseResult parse_deallocate_memory(std::string_view args) {
  Scanner s(args);
  DeallocateMemory request;
  request.addr = s.hex("address");
  return s.finish(request);
}

ParseResult parse_search_memory(std::string_view args) {
  Scanner s(args);
  SearchMemory request;
  s.expect(':', "before the address");
  request.addr = s.hex("address");
  s.expect(';', "after the address");
  request.length = s.hex("length");
  s.expect(';', "after the length");
  std::string_view pattern = s.rest();
  if (!s.failed() && pattern.empty()) s.fail("the search pattern is empty");
  request.pattern.assign(pattern.begin(), pattern.end());
  return s.finish(std::move(request));
}

ParseResult parse_insert_breakpoint(std::string_view args) {
  Scanner s(args);
  InsertBreakpoint request{parse_breakpoint(s)};
  return s.finish(std::move(request));
}

ParseResult parse_remove_breakpoint(std::string_view args) {
  Scanner s(args);
  RemoveBreakpoint request{parse_breakpoint(s)};
  return s.finish(std::move(request));
}

}  // namespace backstep::rsp::detail
