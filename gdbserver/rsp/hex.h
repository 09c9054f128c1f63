// Hexadecimal helpers shared by request parsing and reply encoding. The RSP
// spells numbers as big-endian hex text ("1c0") and byte strings (memory,
// register values, file names) as two lowercase hex digits per byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace backstep::rsp {

using Bytes = std::vector<std::uint8_t>;

// 0..15 for [0-9a-fA-F], nullopt for anything else.
std::optional<unsigned> hex_digit_value(char c);

// Two lowercase hex digits per byte: "GDB" -> "474442".
std::string hex_encode(std::span<const std::uint8_t> bytes);
std::string hex_encode(std::string_view text);

// The inverse of hex_encode; nullopt for an odd length or a non-hex digit.
std::optional<Bytes> hex_decode(std::string_view hex);
std::optional<std::string> hex_decode_text(std::string_view hex);

// A non-empty run of hex digits as an unsigned number; nullopt if empty,
// if any character is not a hex digit, or if the value overflows 64 bits.
std::optional<std::uint64_t> parse_hex_u64(std::string_view hex);

// A number as minimal lowercase hex text: 0 -> "0", 0x1c0 -> "1c0".
std::string hex_number(std::uint64_t value);

// A signed number as the RSP writes it: an explicit minus sign, never two's
// complement (-1 -> "-1", 255 -> "ff").
std::string hex_signed(std::int64_t value);

// `value` as `size` little-endian bytes in hex, the way registers travel:
// hex_le(0x401000, 8) -> "0010400000000000". Bytes beyond 8 are zero.
std::string hex_le(std::uint64_t value, std::size_t size);

}  // namespace backstep::rsp
