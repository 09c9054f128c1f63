// The Debug Adapter Protocol's base protocol, both ways: each message is a
// header ("Content-Length: N", other fields ignored, each line ended by
// "\r\n", the header by an empty line) and N bytes of JSON. The reader takes
// bytes as they come, a message split across reads or several in one read
// being no special case, and gives back whole bodies or a typed error.
// Standard library only, like gdbserver/rsp.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace backstep::dap {

enum class FrameError {
  NoContentLength,   // the header ended without a Content-Length field
  BadContentLength,  // its value is not a decimal number
  BodyTooLarge,      // over the reader's limit
  HeaderTooLong,     // a header line over 8 KiB: not a DAP client
};

std::string_view frame_error_text(FrameError error);

class FrameReader {
 public:
  using Item = std::variant<std::string, FrameError>;
  static constexpr std::size_t kDefaultMaxBody = 64u << 20;

  explicit FrameReader(std::size_t max_body = kDefaultMaxBody) : max_body_(max_body) {}

  // The messages completed by `bytes`, in order. After an error the stream
  // cannot be trusted: the reader returns that error again for any later
  // input, and the caller ends the session.
  std::vector<Item> feed(std::string_view bytes);

  // Bytes of an incomplete message held (0 between messages).
  std::size_t pending() const { return header_bytes_ + line_.size() + body_.size(); }

 private:
  // Consumes header bytes from `bytes` at `pos` up to the end of the header
  // or of the input; false when the header is bad (then failed_ is set).
  bool read_header(std::string_view bytes, std::size_t& pos);
  bool end_header_line();
  void fail(FrameError error);

  std::size_t max_body_;
  std::string line_;              // the header line being read, "\r" included
  std::size_t header_bytes_ = 0;  // of this message's finished header lines
  bool have_length_ = false;
  std::size_t length_ = 0;
  bool in_body_ = false;
  std::string body_;
  bool failed_ = false;
  FrameError error_ = FrameError::NoContentLength;
};

// `body` with its header, ready to write.
std::string frame(std::string_view body);

}  // namespace backstep::dap
