#include "gdbserver/rsp/request_parsers.h"

namespace backstep::rsp::detail {

namespace {

constexpr int kMaxSignal = 0xff;

}  // namespace

bool Scanner::consume(char c) {
  if (failed() || at_end() || text_[pos_] != c) return false;
  ++pos_;
  return true;
}

bool Scanner::consume(std::string_view word) {
  if (failed() || text_.substr(pos_).substr(0, word.size()) != word) return false;
  pos_ += word.size();
  return true;
}

void Scanner::expect(char c, std::string_view context) {
  if (failed() || consume(c)) return;
  fail(std::string("expected '") + c + "' " + std::string(context));
}

std::uint64_t Scanner::hex(std::string_view what, std::uint64_t max) {
  if (failed()) return 0;
  std::size_t start = pos_;
  while (!at_end() && hex_digit_value(text_[pos_])) ++pos_;
  if (pos_ == start) {
    fail("missing or non-hex " + std::string(what));
    return 0;
  }
  auto value = parse_hex_u64(text_.substr(start, pos_ - start));
  if (!value || *value > max) {
    fail(std::string(what) + " out of range");
    return 0;
  }
  return *value;
}

std::int64_t Scanner::hex_id(std::string_view what) {
  return static_cast<std::int64_t>(hex(what, static_cast<std::uint64_t>(INT64_MAX)));
}

int Scanner::signal() { return static_cast<int>(hex("signal", kMaxSignal)); }

ThreadId Scanner::thread_id() {
  if (failed()) return {};
  std::string_view text = text_.substr(pos_);
  text = text.substr(0, text.find_first_of(";:,"));
  auto id = parse_thread_id(text);
  if (!id) {
    fail("bad thread id '" + std::string(text) + "'");
    return {};
  }
  pos_ += text.size();
  return *id;
}

std::string_view Scanner::until(char stop) {
  if (failed()) return {};
  std::string_view text = text_.substr(pos_);
  text = text.substr(0, text.find(stop));
  pos_ += text.size();
  return text;
}

std::string_view Scanner::rest() {
  if (failed()) return {};
  std::string_view text = text_.substr(pos_);
  pos_ = text_.size();
  return text;
}

std::string Scanner::decode_text(std::string_view hex, std::string_view what) {
  if (failed()) return {};
  auto decoded = hex_decode_text(hex);
  if (!decoded) {
    fail("bad hex in " + std::string(what));
    return {};
  }
  return std::move(*decoded);
}

Bytes Scanner::decode_bytes(std::string_view hex, std::string_view what) {
  if (failed()) return {};
  auto decoded = hex_decode(hex);
  if (!decoded) {
    fail("bad hex in " + std::string(what));
    return {};
  }
  return std::move(*decoded);
}

std::optional<ThreadId> Scanner::thread_suffix() {
  if (!consume(";thread:")) return std::nullopt;
  ThreadId id = thread_id();
  consume(';');
  if (failed()) return std::nullopt;
  return id;
}

bool Scanner::colon_flag(std::string_view what) {
  expect(':', "before the " + std::string(what));
  return hex(what, 1) != 0;
}

void Scanner::fail(std::string what) {
  if (!error_) error_ = std::move(what);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> fields;
  while (true) {
    std::size_t cut = text.find(separator);
    fields.push_back(text.substr(0, cut));
    if (cut == std::string_view::npos) return fields;
    text.remove_prefix(cut + 1);
  }
}

}  // namespace backstep::rsp::detail
