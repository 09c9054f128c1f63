// Byte-level encoding shared by the header and the event stream: little-endian
// integers, length-prefixed TLV fields, and a bounded reader that refuses to
// step outside its buffer. Private to engine/trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/trace/event.h"

namespace backstep::trace {

// Bytes (or values) that do not follow the format. The reader turns it into a
// TraceError once it knows which file, chunk and event it was decoding.
class FormatError : public std::runtime_error {
 public:
  explicit FormatError(const std::string& what) : std::runtime_error(what) {}
};

// Appends little-endian values to a byte vector. Used on the recorder's hot
// path, so everything is inline and nothing but the vector allocates.
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : out_(out) {}

  void u8(uint8_t v) { out_.push_back(v); }
  void u32(uint32_t v) { put_le(v); }
  void u64(uint64_t v) { put_le(v); }
  void i32(int32_t v) { put_le(static_cast<uint32_t>(v)); }
  void i64(int64_t v) { put_le(static_cast<uint64_t>(v)); }
  void raw(const void* data, std::size_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
    out_.insert(out_.end(), p, p + size);
  }
  // u32 length, then the bytes.
  void blob(const void* data, std::size_t size);
  void string(const std::string& s) { blob(s.data(), s.size()); }

  // A u32 length whose value is only known once the content is written:
  // begin_length() reserves it, end_length() patches it.
  std::size_t begin_length() {
    std::size_t mark = out_.size();
    u32(0);
    return mark;
  }
  void end_length(std::size_t mark);

  // A TLV field: u8 tag, u32 length, content.
  std::size_t begin_field(uint8_t tag) {
    u8(tag);
    return begin_length();
  }
  void end_field(std::size_t mark) { end_length(mark); }

 private:
  template <typename T>
  void put_le(T v) {
    uint8_t b[sizeof(T)];
    for (std::size_t i = 0; i < sizeof(T); ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
    raw(b, sizeof(T));
  }

  std::vector<uint8_t>& out_;
};

// Reads little-endian values from a buffer it does not own. Every read checks
// the remaining length first and throws FormatError on overrun, so a corrupt
// length can neither read out of bounds nor make us allocate more than the
// buffer could possibly hold.
class ByteReader {
 public:
  ByteReader() = default;
  ByteReader(const uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  explicit ByteReader(std::span<const uint8_t> bytes)
      : ByteReader(bytes.data(), bytes.size()) {}

  std::size_t remaining() const { return size_ - pos_; }
  std::size_t offset() const { return pos_; }
  bool empty() const { return pos_ == size_; }

  uint8_t u8() { return get_le<uint8_t>(); }
  uint32_t u32() { return get_le<uint32_t>(); }
  uint64_t u64() { return get_le<uint64_t>(); }
  int32_t i32() { return static_cast<int32_t>(get_le<uint32_t>()); }
  int64_t i64() { return static_cast<int64_t>(get_le<uint64_t>()); }

  std::span<const uint8_t> bytes(std::size_t n) {
    need(n);
    std::span<const uint8_t> s(data_ + pos_, n);
    pos_ += n;
    return s;
  }
  // A reader over the next `n` bytes, which this reader skips.
  ByteReader sub(std::size_t n) { return ByteReader(bytes(n)); }

  // u32 length, then that many bytes.
  std::vector<uint8_t> blob();
  std::string string();
  // The rest of the buffer, as bytes or as a string.
  std::vector<uint8_t> rest_bytes();
  std::string rest_string();

  // A u32 element count, checked against the bytes left: each element takes
  // at least `min_element_size` bytes, so a corrupt count is caught before
  // anything is reserved for it.
  std::size_t count(std::size_t min_element_size);

  // Throws unless every byte was consumed; `what` names the structure.
  void expect_end(const char* what) const;

 private:
  void need(std::size_t n) const {
    if (n > remaining()) overrun(n);
  }
  [[noreturn]] void overrun(std::size_t n) const;

  template <typename T>
  T get_le() {
    need(sizeof(T));
    T v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<T>(data_[pos_ + i]) << (8 * i));
    pos_ += sizeof(T);
    return v;
  }

  const uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t pos_ = 0;
};

// TLV tags are below 64 so that the set of fields seen fits in a bitmask.
inline constexpr unsigned kMaxTag = 63;

// Calls `fn(tag, field)` for every TLV field until `r` is exhausted, with
// `field` a reader over the field's content. Duplicate or out-of-range tags
// are errors; `fn` rejects unknown ones. Returns the mask of tags seen, for
// the caller's check of required fields.
template <typename Fn>
uint64_t for_each_field(ByteReader& r, Fn&& fn) {
  uint64_t seen = 0;
  while (!r.empty()) {
    uint8_t tag = r.u8();
    uint32_t len = r.u32();
    if (tag == 0 || tag > kMaxTag) throw FormatError("bad field tag " + std::to_string(tag));
    if (seen & (uint64_t{1} << tag)) throw FormatError("duplicate field tag " + std::to_string(tag));
    seen |= uint64_t{1} << tag;
    ByteReader field = r.sub(len);
    fn(tag, field);
  }
  return seen;
}

// Memory an event wrote whose bytes are held elsewhere (the recorder's view
// of a syscall buffer, a MiB at a time): encoded as the event's first
// writes, ahead of event.writes, straight from where they are. Reads back
// as ordinary MemoryWrites.
struct BorrowedWrite {
  uint64_t addr = 0;
  std::span<const uint8_t> data;
};

// Events: u8 kind, u32 tid, u32 payload length, payload (TLV fields).
void encode_event(const Event& event, std::vector<uint8_t>& out, std::span<const BorrowedWrite> first = {});
Event decode_event(ByteReader& r);

// Checks what the encoding alone cannot (register indices, siginfo size, ...).
// The writer runs it before encoding, the reader after decoding, so a trace
// the writer accepted always reads back. Throws FormatError.
void validate_event(const Event& event, std::span<const BorrowedWrite> first = {});

// The header's TLV body (without the file's magic, version and checksum).
std::vector<uint8_t> encode_header(const Header& header);
Header decode_header(ByteReader& r);

}  // namespace backstep::trace
