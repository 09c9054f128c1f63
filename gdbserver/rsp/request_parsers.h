// Private to gdbserver/rsp: the Scanner the request parsers share, and the
// parsers of each family, which request.cc puts in its table.
//
// A parser receives what follows the packet name (separator included:
// "m10,4" -> "10,4", "qAttached:1a" -> ":1a") and returns a Request or a
// ParseError. The Scanner keeps the first failure and turns every later call
// into a no-op, so a parser reads as a straight sequence of fields and asks
// once, at the end, whether it all went well (see finish()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gdbserver/rsp/request.h"

namespace backstep::rsp::detail {

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  bool failed() const { return error_.has_value(); }
  bool at_end() const { return pos_ >= text_.size(); }
  // The next character, or '\0' at the end.
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  // Consumes `c` / `word` if it comes next; false (and no failure) if not.
  bool consume(char c);
  bool consume(std::string_view word);
  // Consumes `c`, or fails with "expected 'c' <context>".
  void expect(char c, std::string_view context);

  // A run of hex digits (at least one) as a number no larger than `max`.
  std::uint64_t hex(std::string_view what, std::uint64_t max = UINT64_MAX);
  // A hex process id or fd: up to INT64_MAX.
  std::int64_t hex_id(std::string_view what);
  // A GDB signal number: hex, 0..255.
  int signal();
  // A thread id, read up to the next ';', ':' or ',' (or the end).
  ThreadId thread_id();

  // The text up to (not including) the next `stop` character, or to the end.
  std::string_view until(char stop);
  // Everything left.
  std::string_view rest();
  // A field from until() or rest() decoded from hex (file names, symbol
  // names, register values); fails on odd length or a non-hex digit.
  std::string decode_text(std::string_view hex, std::string_view what);
  Bytes decode_bytes(std::string_view hex, std::string_view what);

  // ":0" or ":1", as in QNonStop:1.
  bool colon_flag(std::string_view what);

  // lldb's register-packet suffix: ";thread:<id>" with an optional final ';'.
  std::optional<ThreadId> thread_suffix();

  void fail(std::string what);

  // The parsed value if every field was read and nothing is left over,
  // otherwise the first failure.
  template <typename T>
  ParseResult finish(T value) {
    if (!failed() && !at_end()) fail("unexpected characters at the end");
    if (failed()) return ParseError{*error_};
    return Request{std::move(value)};
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::optional<std::string> error_;
};

// `text` cut at every `separator`: "a;b;" -> {"a", "b", ""}; "" -> {""}.
std::vector<std::string_view> split(std::string_view text, char separator);

using Parser = ParseResult (*)(std::string_view args);

// A packet that takes no arguments at all.
template <typename T>
ParseResult parse_no_args(std::string_view args) {
  return Scanner(args).finish(T{});
}

// request_session.cc: set-up, queries, threads, settings.
ParseResult parse_query_supported(std::string_view args);
ParseResult parse_set_non_stop(std::string_view args);
ParseResult parse_query_attached(std::string_view args);
ParseResult parse_query_memory_region(std::string_view args);
ParseResult parse_query_watchpoint_support(std::string_view args);
ParseResult parse_query_register_info(std::string_view args);
ParseResult parse_query_symbol(std::string_view args);
ParseResult parse_monitor_command(std::string_view args);
ParseResult parse_thread_alive(std::string_view args);
ParseResult parse_thread_extra_info(std::string_view args);
ParseResult parse_query_tls_address(std::string_view args);
ParseResult parse_set_thread(std::string_view args);
ParseResult parse_disable_randomization(std::string_view args);
ParseResult parse_startup_with_shell(std::string_view args);
ParseResult parse_environment_hex_encoded(std::string_view args);
ParseResult parse_set_working_dir(std::string_view args);

// request_exec.cc: resuming, stopping, signals, syscalls.
ParseResult parse_vcont(std::string_view args);
ParseResult parse_continue(std::string_view args);
ParseResult parse_continue_with_signal(std::string_view args);
ParseResult parse_step(std::string_view args);
ParseResult parse_step_with_signal(std::string_view args);
ParseResult parse_vkill(std::string_view args);
ParseResult parse_detach(std::string_view args);
ParseResult parse_vrun(std::string_view args);
ParseResult parse_pass_signals(std::string_view args);
ParseResult parse_program_signals(std::string_view args);
ParseResult parse_catch_syscalls(std::string_view args);

// request_data.cc: registers, memory, breakpoints.
ParseResult parse_read_registers(std::string_view args);
ParseResult parse_write_registers(std::string_view args);
ParseResult parse_read_register(std::string_view args);
ParseResult parse_write_register(std::string_view args);
ParseResult parse_save_register_state(std::string_view args);
ParseResult parse_restore_register_state(std::string_view args);
ParseResult parse_read_memory(std::string_view args);
ParseResult parse_read_memory_binary(std::string_view args);
ParseResult parse_write_memory(std::string_view args);
ParseResult parse_write_memory_binary(std::string_view args);
ParseResult parse_allocate_memory(std::string_view args);
ParseResult parse_deallocate_memory(std::string_view args);
ParseResult parse_search_memory(std::string_view args);
ParseResult parse_insert_breakpoint(std::string_view args);
ParseResult parse_remove_breakpoint(std::string_view args);

// request_xfer.cc: qXfer objects and vFile host I/O. Each has its own small
// table of objects / operations; an unknown one parses to Unknown.
ParseResult parse_xfer(std::string_view args);
ParseResult parse_vfile(std::string_view args);

}  // namespace backstep::rsp::detail
