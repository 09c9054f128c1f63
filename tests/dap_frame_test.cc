// Unit tests of DAP base-protocol framing: golden byte strings in, bodies or
// typed errors out, whatever way the bytes are cut into reads; and frame()'s
// exact output.
#define BOOST_TEST_MODULE dap_frame
#include <boost/test/unit_test.hpp>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "dap/wire/frame_reader.h"

using namespace backstep::dap;
using namespace std::literals;

namespace {

const std::string kInit =
    R"({"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"backstep"}})";
const std::string kLaunch = R"({"seq":2,"type":"request","command":"launch"})";

std::string show(const FrameReader::Item& item) {
  if (auto* body = std::get_if<std::string>(&item)) return "body:" + *body;
  switch (std::get<FrameError>(item)) {
    case FrameError::NoContentLength: return "error:no-length";
    case FrameError::BadContentLength: return "error:bad-length";
    case FrameError::BodyTooLarge: return "error:too-large";
    case FrameError::HeaderTooLong: return "error:header-too-long";
  }
  return "error:?";
}

void append(std::vector<std::string>& out, const std::vector<FrameReader::Item>& items) {
  for (const auto& item : items) out.push_back(show(item));
}

std::vector<std::string> receive(std::string_view bytes, std::size_t max_body = FrameReader::kDefaultMaxBody) {
  FrameReader reader(max_body);
  std::vector<std::string> out;
  append(out, reader.feed(bytes));
  return out;
}

// Feeds `bytes` in two reads cut at every position, then one byte at a time,
// and checks that every way gives `expected`. A reader that has failed says
// so once per feed, so after an error only the first one is kept.
void check_every_split(std::string_view bytes, const std::vector<std::string>& expected,
                       std::size_t max_body = FrameReader::kDefaultMaxBody) {
  auto until_error = [](std::vector<std::string> items) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (items[i].rfind("error:", 0) == 0) {
        items.resize(i + 1);
        break;
      }
    }
    return items;
  };
  for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
    FrameReader reader(max_body);
    std::vector<std::string> out;
    append(out, reader.feed(bytes.substr(0, cut)));
    append(out, reader.feed(bytes.substr(cut)));
    BOOST_TEST_CONTEXT("cut at " << cut) {
      BOOST_TEST(until_error(out) == expected, boost::test_tools::per_element());
    }
  }
  FrameReader reader(max_body);
  std::vector<std::string> out;
  for (char c : bytes) append(out, reader.feed(std::string_view(&c, 1)));
  BOOST_TEST(until_error(out) == expected, boost::test_tools::per_element());
}

}  // namespace

BOOST_AUTO_TEST_CASE(single_message_split_everywhere) {
  check_every_split("Content-Length: 86\r\n\r\n" + kInit, {"body:" + kInit});
}

BOOST_AUTO_TEST_CASE(two_messages_in_one_chunk) {
  std::string stream = "Content-Length: 86\r\n\r\n" + kInit + "Content-Length: 45\r\n\r\n" + kLaunch;
  BOOST_TEST(receive(stream) == (std::vector<std::string>{"body:" + kInit, "body:" + kLaunch}),
             boost::test_tools::per_element());
  check_every_split(stream, {"body:" + kInit, "body:" + kLaunch});
}

BOOST_AUTO_TEST_CASE(body_bytes_are_data_whatever_they_look_like) {
  // A body that contains a header-like text and "\r\n\r\n" is still 26 bytes.
  std::string body = "\r\n\r\nContent-Length: 99\r\n\r\n";
  BOOST_REQUIRE_EQUAL(body.size(), 26u);
  check_every_split("Content-Length: 26\r\n\r\n" + body + "Content-Length: 2\r\n\r\n{}",
                    {"body:" + body, "body:{}"});
  // Length counts bytes, not characters: "é" is two.
  check_every_split("Content-Length: 13\r\n\r\n{\"name\":\"\xc3\xa9\"}", {"body:{\"name\":\"\xc3\xa9\"}"});
}

BOOST_AUTO_TEST_CASE(other_header_fields_are_ignored) {
  check_every_split(
      "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}",
      {"body:{}"});
  check_every_split("Content-Length: 2\r\nContent-Type: application/json\r\nX-Other:\r\n\r\n{}",
                    {"body:{}"});
  // A line that is not a field at all carries nothing we need either.
  check_every_split("Content-Length: 2\r\njunk without a colon\r\n\r\n{}", {"body:{}"});
  // A stray '\r' is part of its line, not an end of line.
  check_every_split("X-A: b\rc\r\nContent-Length: 2\r\n\r\n{}", {"body:{}"});
}

BOOST_AUTO_TEST_CASE(field_name_case_and_blanks) {
  check_every_split("content-length: 2\r\n\r\n{}", {"body:{}"});
  check_every_split("CONTENT-LENGTH: 2\r\n\r\n{}", {"body:{}"});
  check_every_split("Content-Length:2\r\n\r\n{}", {"body:{}"});
  check_every_split("Content-Length:    2\r\n\r\n{}", {"body:{}"});
  check_every_split("Content-Length: \t2 \t\r\n\r\n{}", {"body:{}"});
  check_every_split("Content-Length: 0002\r\n\r\n{}", {"body:{}"});
  // A differently spelt name is another field.
  check_every_split("Content-Length-X: 2\r\n\r\n{}", {"error:no-length"});
}

BOOST_AUTO_TEST_CASE(zero_length_is_an_empty_body) {
  check_every_split("Content-Length: 0\r\n\r\n", {"body:"});
  check_every_split("Content-Length: 0\r\n\r\nContent-Length: 0\r\n\r\nContent-Length: 2\r\n\r\n{}",
                    {"body:", "body:", "body:{}"});
}

BOOST_AUTO_TEST_CASE(incomplete_input_waits) {
  check_every_split("Content-Length: 2\r\n\r\n{", {});
  check_every_split("Content-Length: 2\r\n", {});
  // A bare '\n' does not end a line: all of this is one unfinished line.
  check_every_split("Content-Length: 2\n\n{}", {});
}

BOOST_AUTO_TEST_CASE(pending_counts_the_incomplete_message) {
  FrameReader reader;
  BOOST_TEST(reader.pending() == 0u);
  BOOST_TEST(reader.feed("Content-Len").empty());
  BOOST_TEST(reader.pending() == 11u);
  BOOST_TEST(reader.feed("gth: 2\r\n").empty());
  BOOST_TEST(reader.pending() == 19u);
  BOOST_TEST(reader.feed("\r\n{").empty());
  BOOST_TEST(reader.pending() == 22u);
  auto items = reader.feed("}");
  BOOST_REQUIRE_EQUAL(items.size(), 1u);
  BOOST_TEST(show(items[0]) == "body:{}");
  BOOST_TEST(reader.pending() == 0u);
}

BOOST_AUTO_TEST_CASE(missing_content_length) {
  check_every_split("Content-Type: application/json\r\n\r\n{}", {"error:no-length"});
  check_every_split("\r\n", {"error:no-length"});
  // The first message is delivered before the second one fails.
  check_every_split("Content-Length: 2\r\n\r\n{}\r\n{}", {"body:{}", "error:no-length"});
}

BOOST_AUTO_TEST_CASE(bad_content_length) {
  for (std::string value : {"", " ", "abc", "-1", "+2", "0x10", "1 2", "2.0", "1e3", "2\n",
                            "2\r", "99999999999999999999999999"}) {
    BOOST_TEST_CONTEXT("value '" << value << "'") {
      check_every_split("Content-Length: " + value + "\r\n\r\n{}", {"error:bad-length"});
    }
  }
  // The largest size_t is a number; it is then too large for any limit.
  check_every_split("Content-Length: 18446744073709551615\r\n\r\n", {"error:too-large"});
  check_every_split("Content-Length: 18446744073709551616\r\n\r\n", {"error:bad-length"});
}

BOOST_AUTO_TEST_CASE(body_over_the_limit) {
  check_every_split("Content-Length: 4\r\n\r\nabcd", {"body:abcd"}, 4);
  check_every_split("Content-Length: 5\r\n\r\nabcde", {"error:too-large"}, 4);
  // Refused as soon as the field is read, before the body or even the end
  // of the header.
  FrameReader reader(4);
  auto items = reader.feed("Content-Length: 1000000\r\n");
  BOOST_REQUIRE_EQUAL(items.size(), 1u);
  BOOST_TEST(show(items[0]) == "error:too-large");
}

BOOST_AUTO_TEST_CASE(header_line_limit) {
  // 8 KiB of line is accepted (here an ignored field)...
  std::string field = "X-Pad: " + std::string(8192 - 7, 'a');
  BOOST_REQUIRE_EQUAL(field.size(), 8192u);
  BOOST_TEST(receive(field + "\r\nContent-Length: 2\r\n\r\n{}") == std::vector<std::string>{"body:{}"},
             boost::test_tools::per_element());
  // ...one byte more is not, and the reader says so without waiting for the
  // end of the line.
  FrameReader reader;
  BOOST_TEST(reader.feed(field).empty());
  BOOST_TEST(reader.feed("\r").empty());  // could still end the line
  auto items = reader.feed("b");
  BOOST_REQUIRE_EQUAL(items.size(), 1u);
  BOOST_TEST(show(items[0]) == "error:header-too-long");
  BOOST_TEST(receive(field + "b") == std::vector<std::string>{"error:header-too-long"},
             boost::test_tools::per_element());
  BOOST_TEST(receive(std::string(100000, 'x')) == std::vector<std::string>{"error:header-too-long"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_failed_reader_repeats_its_error) {
  FrameReader reader;
  auto first = reader.feed("Content-Length: 2\r\n\r\n{}Content-Length: x\r\n\r\n{}Content-Length: 2\r\n\r\n{}");
  std::vector<std::string> shown;
  append(shown, first);
  BOOST_TEST(shown == (std::vector<std::string>{"body:{}", "error:bad-length"}),
             boost::test_tools::per_element());
  BOOST_TEST(reader.pending() == 0u);
  // Every later feed, good bytes or none, gives the same error once.
  for (std::string_view more : {"Content-Length: 2\r\n\r\n{}"sv, ""sv, "\r\n"sv}) {
    auto items = reader.feed(more);
    BOOST_REQUIRE_EQUAL(items.size(), 1u);
    BOOST_TEST(show(items[0]) == "error:bad-length");
  }
}

BOOST_AUTO_TEST_CASE(frame_golden_output) {
  BOOST_TEST(frame("{}") == "Content-Length: 2\r\n\r\n{}");
  BOOST_TEST(frame("") == "Content-Length: 0\r\n\r\n");
  BOOST_TEST(frame(kInit) == "Content-Length: 86\r\n\r\n" + kInit);
  BOOST_TEST(frame("{\"name\":\"\xc3\xa9\"}") == "Content-Length: 13\r\n\r\n{\"name\":\"\xc3\xa9\"}");
  BOOST_TEST(frame("a\0b"s) == "Content-Length: 3\r\n\r\na\0b"s);
}

BOOST_AUTO_TEST_CASE(frame_and_reader_agree_under_random_cuts) {
  std::mt19937 random(20240601);
  std::vector<std::string> bodies;
  std::string stream;
  for (int i = 0; i < 200; ++i) {
    std::string body(random() % 300, '\0');
    for (char& c : body) c = static_cast<char>(random() & 0xff);
    stream += frame(body);
    bodies.push_back("body:" + body);
  }
  for (int round = 0; round < 20; ++round) {
    FrameReader reader;
    std::vector<std::string> out;
    for (std::size_t pos = 0; pos < stream.size();) {
      std::size_t n = std::min<std::size_t>(random() % 700, stream.size() - pos);
      append(out, reader.feed(std::string_view(stream).substr(pos, n)));
      pos += n;
    }
    BOOST_TEST(out == bodies, boost::test_tools::per_element());
    BOOST_TEST(reader.pending() == 0u);
  }
}

BOOST_AUTO_TEST_CASE(error_texts_are_distinct) {
  std::set<std::string_view> texts;
  for (FrameError e : {FrameError::NoContentLength, FrameError::BadContentLength, FrameError::BodyTooLarge,
                       FrameError::HeaderTooLong}) {
    BOOST_TEST(!frame_error_text(e).empty());
    texts.insert(frame_error_text(e));
  }
  BOOST_TEST(texts.size() == 4u);
}
