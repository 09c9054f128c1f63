#include "engine/trace/printable.h"

#include <cstdint>

namespace backstep::trace {
namespace {

void put_hex(std::string& out, uint8_t byte) {
  static const char kDigits[] = "0123456789abcdef";
  out += "\\x";
  out += kDigits[byte >> 4];
  out += kDigits[byte & 0xf];
}

// The length of the UTF-8 sequence at text[at] if it is a well-formed one
// (shortest form, no surrogate, at most U+10FFFF) of a code point that is
// safe to print; 0 otherwise. Refused beyond the ill-formed: the C1
// controls (U+0080..U+009F, which some terminals read as escapes), the line
// and paragraph separators and the bidirectional controls that make a line
// show other text than it holds (U+200E..U+200F, U+202A..U+202E,
// U+2066..U+2069), and the BOM.
std::size_t safe_sequence(std::string_view text, std::size_t at) {
  auto byte = [&](std::size_t i) { return static_cast<uint8_t>(text[i]); };
  uint8_t lead = byte(at);
  std::size_t len = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
  if (len == 0 || lead > 0xf4 || at + len > text.size()) return 0;
  uint32_t cp = lead & (0x7f >> len);
  for (std::size_t i = 1; i < len; ++i) {
    if ((byte(at + i) & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (byte(at + i) & 0x3f);
  }
  static const uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinimum[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  if (cp < 0xa0 || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
      (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff)
    return 0;
  return len;
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_len, Escaping escaping) {
  const bool all = escaping == Escaping::All;
  std::size_t shown = text.size() <= max_len ? text.size() : max_len;
  std::string out;
  out.reserve(shown + 16);
  for (std::size_t at = 0; at < shown;) {
    char c = text[at];
    auto byte = static_cast<uint8_t>(c);
    if (c == '\n') {
      out += all ? "\\n" : "\n";
    } else if (c == '\t') {
      out += all ? "\\t" : "\t";
    } else if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else if (std::size_t len = byte >= 0x80 ? safe_sequence(text, at) : 0; len != 0 && at + len <= shown) {
      out.append(text.substr(at, len));
      at += len;
      continue;
    } else {
      put_hex(out, byte);
    }
    ++at;
  }
  if (shown < text.size()) out += "... (" + std::to_string(text.size() - shown) + " more bytes)";
  return out;
}

}  // namespace backstep::trace
