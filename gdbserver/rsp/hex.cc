#include "gdbserver/rsp/hex.h"

namespace backstep::rsp {

namespace {

constexpr char kDigits[] = "0123456789abcdef";

template <typename Out>
std::optional<Out> decode_into(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  Out out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    auto hi = hex_digit_value(hex[i]);
    auto lo = hex_digit_value(hex[i + 1]);
    if (!hi || !lo) return std::nullopt;
    out.push_back(static_cast<typename Out::value_type>((*hi << 4) | *lo));
  }
  return out;
}

}  // namespace

std::optional<unsigned> hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<unsigned>(c - 'A' + 10);
  return std::nullopt;
}

std::string hex_encode(std::span<const std::uint8_t> bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xf]);
  }
  return out;
}

std::string hex_encode(std::string_view text) {
  return hex_encode(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

std::optional<Bytes> hex_decode(std::string_view hex) { return decode_into<Bytes>(hex); }

std::optional<std::string> hex_decode_text(std::string_view hex) {
  return decode_into<std::string>(hex);
}

std::optional<std::uint64_t> parse_hex_u64(std::string_view hex) {
  if (hex.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : hex) {
    auto digit = hex_digit_value(c);
    if (!digit) return std::nullopt;
    if (value > (UINT64_MAX >> 4)) return std::nullopt;
    value = (value << 4) | *digit;
  }
  return value;
}

std::string hex_number(std::uint64_t value) {
  std::string out;
  do {
    out.insert(out.begin(), kDigits[value & 0xf]);
    value >>= 4;
  } while (value != 0);
  return out;
}

std::string hex_signed(std::int64_t value) {
  if (value >= 0) return hex_number(static_cast<std::uint64_t>(value));
  // Negating in unsigned arithmetic keeps INT64_MIN well defined.
  return "-" + hex_number(0 - static_cast<std::uint64_t>(value));
}

std::string hex_le(std::uint64_t value, std::size_t size) {
  std::string out;
  out.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    std::uint8_t byte = i < 8 ? static_cast<std::uint8_t>(value >> (8 * i)) : 0;
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 0xf]);
  }
  return out;
}

}  // namespace backstep::rsp
