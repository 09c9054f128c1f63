#include "dap/wire/frame_reader.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

namespace backstep::dap {

namespace {

// Real headers are a few dozen bytes; a line this long means the peer is not
// speaking DAP (or is feeding us garbage), and buffering it further only
// costs memory.
constexpr std::size_t kMaxHeaderLine = 8 * 1024;

constexpr std::string_view kContentLength = "Content-Length";

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// HTTP-style field names are case-insensitive; VS Code sends
// "Content-Length" but other clients are free to spell it otherwise.
bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// Digits only: a sign, a hex prefix or an exponent all mean the peer and we
// might disagree on where the body ends, which would desynchronise the stream.
std::optional<std::size_t> parse_length(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::size_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    std::size_t digit = static_cast<std::size_t>(c - '0');
    if (n > (std::numeric_limits<std::size_t>::max() - digit) / 10) return std::nullopt;
    n = n * 10 + digit;
  }
  return n;
}

}  // namespace

std::string_view frame_error_text(FrameError error) {
  switch (error) {
    case FrameError::NoContentLength:
      return "DAP message header has no Content-Length";
    case FrameError::BadContentLength:
      return "DAP message Content-Length is not a decimal number";
    case FrameError::BodyTooLarge:
      return "DAP message body is too large";
    case FrameError::HeaderTooLong:
      return "DAP message header line is too long";
  }
  return "DAP framing error";
}

void FrameReader::fail(FrameError error) {
  failed_ = true;
  error_ = error;
  line_.clear();
  body_.clear();
  header_bytes_ = 0;
  have_length_ = false;
  length_ = 0;
  in_body_ = false;
}

bool FrameReader::end_header_line() {
  if (line_.empty()) {
    if (!have_length_) {
      fail(FrameError::NoContentLength);
      return false;
    }
    in_body_ = true;
    return true;
  }
  std::string_view line = line_;
  std::size_t colon = line.find(':');
  // Fields we do not know (Content-Type, or a line that is not a field at
  // all) carry nothing we need, so they are skipped rather than refused.
  if (colon == std::string_view::npos || !same_name(line.substr(0, colon), kContentLength)) return true;
  std::optional<std::size_t> length = parse_length(trim_blanks(line.substr(colon + 1)));
  if (!length) {
    fail(FrameError::BadContentLength);
    return false;
  }
  // Refused here, before any of the body arrives, so that a hostile length
  // never makes us buffer anything.
  if (*length > max_body_) {
    fail(FrameError::BodyTooLarge);
    return false;
  }
  have_length_ = true;
  length_ = *length;
  return true;
}

bool FrameReader::read_header(std::string_view bytes, std::size_t& pos) {
  while (pos < bytes.size()) {
    char c = bytes[pos++];
    // Only "\r\n" ends a line: a lone '\r' or '\n' stays in it (and, in a
    // Content-Length value, makes it a bad number rather than a guess).
    if (c == '\n' && !line_.empty() && line_.back() == '\r') {
      line_.pop_back();
      header_bytes_ += line_.size() + 2;
      if (!end_header_line()) return false;
      line_.clear();
      if (in_body_) return true;
      continue;
    }
    line_.push_back(c);
    // One byte of slack for a '\r' that may yet turn out to end the line.
    if (line_.size() > kMaxHeaderLine + 1 || (line_.size() == kMaxHeaderLine + 1 && c != '\r')) {
      fail(FrameError::HeaderTooLong);
      return false;
    }
  }
  return true;
}

std::vector<FrameReader::Item> FrameReader::feed(std::string_view bytes) {
  std::vector<Item> out;
  if (failed_) {
    out.emplace_back(error_);
    return out;
  }
  std::size_t pos = 0;
  for (;;) {
    if (in_body_) {
      std::size_t take = std::min(length_ - body_.size(), bytes.size() - pos);
      body_.append(bytes.substr(pos, take));
      pos += take;
      if (body_.size() < length_) break;
      out.emplace_back(std::exchange(body_, std::string()));
      in_body_ = false;
      have_length_ = false;
      length_ = 0;
      header_bytes_ = 0;
    }
    if (pos == bytes.size()) break;
    if (!read_header(bytes, pos)) {
      out.emplace_back(error_);
      break;
    }
  }
  return out;
}

std::string frame(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out += body;
  return out;
}

}  // namespace backstep::dap
