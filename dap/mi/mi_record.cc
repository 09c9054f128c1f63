#include "dap/mi/mi_record.h"

#include <limits>

namespace backstep::dap::mi {

namespace {

// gdb's own output nests a handful of levels; the bound only keeps a hostile
// or corrupted line from exhausting the stack through recursion.
constexpr int kMaxDepth = 1000;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_octal(char c) { return c >= '0' && c <= '7'; }

// Class names ("done", "thread-group-started") and variable names
// ("thread-groups", "original-location") use only these.
bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' || c == '_' ||
         c == '.';
}

// A recursive-descent reader over one line. Errors are recorded, not thrown,
// so that parse_record stays total; every step checks `ok()` before going on.
class Parser {
 public:
  explicit Parser(std::string_view line) : s_(line) {}

  bool ok() const { return !error_; }
  const ParseError& error() const { return *error_; }
  bool at_end() const { return pos_ == s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }
  std::size_t pos() const { return pos_; }
  void skip() { ++pos_; }

  void fail(std::string what) { fail_at(pos_, std::move(what)); }
  void fail_at(std::size_t offset, std::string what) {
    if (!error_) error_ = ParseError{offset, std::move(what)};
  }

  std::string name(const char* what) {
    std::size_t start = pos_;
    while (!at_end() && is_name_char(s_[pos_])) ++pos_;
    if (pos_ == start) fail(std::string("expected ") + what);
    return std::string(s_.substr(start, pos_ - start));
  }

  std::string cstring() {
    std::string out;
    if (peek() != '"') {
      fail("expected '\"'");
      return out;
    }
    std::size_t start = pos_;
    skip();
    while (!at_end()) {
      char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (at_end()) break;
      std::size_t escape_at = pos_ - 1;
      char e = s_[pos_++];
      switch (e) {
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case 'a': out.push_back('\a'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'v': out.push_back('\v'); break;
        case 'e': out.push_back('\x1b'); break;
        default: {
          if (!is_octal(e)) {
            fail_at(escape_at, "unknown escape in string");
            return out;
          }
          // gdb writes bytes it does not print (non-ASCII included) this
          // way, one byte per escape: the raw bytes are put back as they were.
          unsigned value = static_cast<unsigned>(e - '0');
          for (int i = 1; i < 3 && !at_end() && is_octal(s_[pos_]); ++i) {
            value = value * 8 + static_cast<unsigned>(s_[pos_++] - '0');
          }
          if (value > 0xff) {
            fail_at(escape_at, "octal escape over one byte");
            return out;
          }
          out.push_back(static_cast<char>(value));
        }
      }
    }
    fail_at(start, "unterminated string");
    return out;
  }

  // results: name=value {, name=value}, up to (not including) `end` or the
  // line's end when `end` is '\0'.
  Tuple results(char end, int depth) {
    Tuple out;
    for (;;) {
      out.push_back(result(depth));
      if (!ok()) return out;
      if (peek() == ',') {
        skip();
        continue;
      }
      if (peek() == end && (end != '\0' || at_end())) return out;
      fail(end == '\0' ? "junk after value" : std::string("expected ',' or '") + end + "'");
      return out;
    }
  }

  std::pair<std::string, Value> result(int depth) {
    std::string n = name("a variable name");
    if (!ok()) return {};
    if (peek() != '=') {
      fail("expected '=' after variable name");
      return {};
    }
    skip();
    return {std::move(n), value(depth)};
  }

  Value value(int depth) {
    switch (peek()) {
      case '"':
        return Value{cstring()};
      case '{':
        return Value{tuple(depth + 1)};
      case '[':
        return Value{list(depth + 1)};
      default:
        fail("expected a value");
        return Value{std::string()};
    }
  }

  Tuple tuple(int depth) {
    if (!enter(depth)) return {};
    skip();  // '{'
    if (peek() == '}') {
      skip();
      return {};
    }
    Tuple out = results('}', depth);
    if (ok()) skip();  // '}'
    return out;
  }

  List list(int depth) {
    List out;
    if (!enter(depth)) return out;
    skip();  // '['
    if (peek() == ']') {
      skip();
      return out;
    }
    for (;;) {
      char c = peek();
      // Each item decides for itself: a value starts with a quote or a
      // bracket, anything else must be a result (name=value).
      if (c == '"' || c == '{' || c == '[') {
        out.push_back(value(depth));
      } else {
        std::pair<std::string, Value> r = result(depth);
        Tuple one;
        one.push_back(std::move(r));
        out.push_back(Value{std::move(one)});
      }
      if (!ok()) return out;
      if (peek() == ',') {
        skip();
        continue;
      }
      if (peek() == ']') {
        skip();
        return out;
      }
      fail("expected ',' or ']'");
      return out;
    }
  }

 private:
  bool enter(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    return ok();
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::optional<ParseError> error_;
};

std::optional<RecordKind> async_kind(char c) {
  switch (c) {
    case '^': return RecordKind::Result;
    case '*': return RecordKind::ExecAsync;
    case '+': return RecordKind::StatusAsync;
    case '=': return RecordKind::NotifyAsync;
    default: return std::nullopt;
  }
}

std::optional<RecordKind> stream_kind(char c) {
  switch (c) {
    case '~': return RecordKind::Console;
    case '@': return RecordKind::Target;
    case '&': return RecordKind::Log;
    default: return std::nullopt;
  }
}

}  // namespace

const Value* Value::get(std::string_view name) const {
  const Tuple* t = tuple();
  if (!t) return nullptr;
  for (const auto& [n, value] : *t) {
    if (n == name) return &value;
  }
  return nullptr;
}

std::string Value::text(std::string_view name, std::string_view fallback) const {
  const Value* field = get(name);
  const std::string* s = field ? field->str() : nullptr;
  return s ? *s : std::string(fallback);
}

std::variant<Record, ParseError> parse_record(std::string_view line) {
  // gdb on a pty, or a Windows gdb, ends lines with "\r\n"; the caller has
  // split on '\n' and may or may not have kept it.
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

  Record record;
  constexpr std::string_view kPrompt = "(gdb)";
  if (line.substr(0, kPrompt.size()) == kPrompt) {
    std::size_t rest = line.find_first_not_of(' ', kPrompt.size());
    if (rest != std::string_view::npos) return ParseError{rest, "junk after prompt"};
    record.kind = RecordKind::Prompt;
    return record;
  }

  Parser p(line);
  if (p.at_end()) return ParseError{0, "empty line"};

  if (is_digit(p.peek())) {
    std::uint64_t token = 0;
    while (is_digit(p.peek())) {
      auto digit = static_cast<std::uint64_t>(p.peek() - '0');
      if (token > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
        return ParseError{p.pos(), "token too large"};
      }
      token = token * 10 + digit;
      p.skip();
    }
    record.token = token;
    // Only result and async records carry a token.
    if (p.at_end()) return ParseError{p.pos(), "token without a record"};
    if (!async_kind(p.peek())) return ParseError{p.pos(), "expected '^', '*', '+' or '=' after token"};
  }

  char lead = p.peek();
  if (auto kind = stream_kind(lead)) {
    record.kind = *kind;
    p.skip();
    record.text = p.cstring();
    if (p.ok() && !p.at_end()) p.fail("junk after string");
    if (!p.ok()) return p.error();
    return record;
  }
  auto kind = async_kind(lead);
  if (!kind) return ParseError{p.pos(), "unknown record type"};
  record.kind = *kind;
  p.skip();
  record.klass = p.name("a record class");
  if (p.ok() && !p.at_end()) {
    if (p.peek() == ',') {
      p.skip();
      record.results = Value{p.results('\0', 0)};
    } else {
      p.fail("expected ',' after record class");
    }
  }
  if (!p.ok()) return p.error();
  return record;
}

std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (char c : s) {
    auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        // Always three digits, so a digit that follows cannot be read as
        // part of the escape. Bytes from 0x80 up pass through untouched:
        // they are UTF-8 in file names, and gdb reads them as they are.
        if (byte < 0x20 || byte == 0x7f) {
          out.push_back('\\');
          out.push_back(static_cast<char>('0' + (byte >> 6)));
          out.push_back(static_cast<char>('0' + ((byte >> 3) & 7)));
          out.push_back(static_cast<char>('0' + (byte & 7)));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

}  // namespace backstep::dap::mi
