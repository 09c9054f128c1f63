// gdb/MI output records (gdb manual, "GDB/MI Output Syntax"), one line each:
//   [token] "^" class ["," results]    result record (done, running, error, ...)
//   [token] "*" class ["," results]    exec-async   (running, stopped)
//   [token] "+" class ["," results]    status-async
//   [token] "=" class ["," results]    notify-async (breakpoint-created, ...)
//   "~" cstring / "@" cstring / "&" cstring   console, target, log streams
//   "(gdb)"                            the prompt
// Parsing is pure and total: any line gives a Record or a ParseError, never
// an exception. Standard library only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace backstep::dap::mi {

struct Value;
// name=value pairs in their order (a name may repeat in a list of results).
using Tuple = std::vector<std::pair<std::string, Value>>;
// A list of values; a list of results (`[frame={..},frame={..}]`) is a list
// whose items are one-pair tuples.
using List = std::vector<Value>;

struct Value {
  std::variant<std::string, Tuple, List> v;

  const std::string* str() const { return std::get_if<std::string>(&v); }
  const Tuple* tuple() const { return std::get_if<Tuple>(&v); }
  const List* list() const { return std::get_if<List>(&v); }
  // A tuple's first field of that name (nullptr when absent or not a tuple).
  const Value* get(std::string_view name) const;
  // That field's string, or `fallback` when absent or not a string.
  std::string text(std::string_view name, std::string_view fallback = "") const;
};

enum class RecordKind { Result, ExecAsync, StatusAsync, NotifyAsync, Console, Target, Log, Prompt };

struct Record {
  std::optional<std::uint64_t> token;
  RecordKind kind = RecordKind::Prompt;
  std::string klass;  // "done", "stopped", "breakpoint-created", ... (not for streams)
  Value results{Tuple{}};  // always a tuple
  std::string text;        // a stream record's decoded text
};

struct ParseError {
  std::size_t offset;  // into the line
  std::string what;
};

std::variant<Record, ParseError> parse_record(std::string_view line);

// `s` as an MI c-string argument: quoted, with `"`, `\` and control
// characters escaped (so a file name or expression with blanks is one argument).
std::string quote(std::string_view s);

}  // namespace backstep::dap::mi
