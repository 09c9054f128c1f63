// Unit tests of the gdb/MI record parser: lines gdb 13 really printed in,
// records out (shown back in MI's own spelling so that expectations read as
// text); malformed lines give a ParseError at the right offset, never a
// crash; and quote() round-trips through the parser.
#define BOOST_TEST_MODULE mi_record
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "dap/mi/mi_record.h"

using namespace backstep::dap::mi;
using namespace std::literals;

namespace {

// A Value in MI spelling. A list of results cannot be told from a list of
// one-pair tuples once parsed, so both show as `[{name=value},...]`.
std::string show(const Value& value) {
  if (const std::string* s = value.str()) return quote(*s);
  std::string out;
  if (const Tuple* t = value.tuple()) {
    out = "{";
    for (std::size_t i = 0; i < t->size(); ++i) {
      if (i) out += ",";
      out += (*t)[i].first + "=" + show((*t)[i].second);
    }
    return out + "}";
  }
  out = "[";
  const List& l = *value.list();
  for (std::size_t i = 0; i < l.size(); ++i) {
    if (i) out += ",";
    out += show(l[i]);
  }
  return out + "]";
}

std::string show(const Record& r) {
  std::string out = r.token ? std::to_string(*r.token) : "";
  switch (r.kind) {
    case RecordKind::Prompt: return out + "(gdb)";
    case RecordKind::Console: return out + "~" + quote(r.text);
    case RecordKind::Target: return out + "@" + quote(r.text);
    case RecordKind::Log: return out + "&" + quote(r.text);
    case RecordKind::Result: out += "^"; break;
    case RecordKind::ExecAsync: out += "*"; break;
    case RecordKind::StatusAsync: out += "+"; break;
    case RecordKind::NotifyAsync: out += "="; break;
  }
  out += r.klass;
  std::string fields = show(r.results);  // "{...}"
  if (fields != "{}") out += "," + fields.substr(1, fields.size() - 2);
  return out;
}

Record parse_ok(std::string_view line) {
  auto parsed = parse_record(line);
  if (auto* e = std::get_if<ParseError>(&parsed)) {
    BOOST_FAIL("parse of '" << line << "' failed at " << e->offset << ": " << e->what);
  }
  return std::get<Record>(parsed);
}

// The error offset, or npos when the line parsed.
std::size_t error_offset(std::string_view line) {
  auto parsed = parse_record(line);
  if (auto* e = std::get_if<ParseError>(&parsed)) {
    BOOST_TEST(!e->what.empty());
    BOOST_TEST(e->offset <= line.size());
    return e->offset;
  }
  return std::string_view::npos;
}

const std::string kBreakInsert =
    R"(1^done,bkpt={number="1",type="breakpoint",disp="keep",enabled="y",addr="0x00005555555551c5",func="main",file="/work/main/examples/buggy.c",fullname="/work/main/examples/buggy.c",line="30",thread-groups=["i1"],times="0",original-location="main"})";
const std::string kStopped =
    R"(*stopped,reason="breakpoint-hit",disp="keep",bkptno="1",frame={addr="0x00005555555551c5",func="main",args=[],file="/work/main/examples/buggy.c",fullname="/work/main/examples/buggy.c",line="30",arch="i386:x86-64"},thread-id="1",stopped-threads="all",core="2")";
const std::string kStack =
    R"(^done,stack=[frame={level="0",addr="0x1",func="f"},frame={level="1",addr="0x2",func="main"}])";
const std::string kVariables = R"(^done,variables=[{name="x",value="1"},{name="s",value="\"hi\\n\""}])";
const std::string kWatch =
    R"(*stopped,reason="watchpoint-trigger",wpt={number="2",exp="t.limit"},value={old="100",new="64"},frame={func="step",args=[{name="t",value="0x7fffffffe0c0"}],file="buggy.c",fullname="/work/main/examples/buggy.c",line="21",arch="i386:x86-64"},thread-id="1",stopped-threads="all",core="5")";
const std::string kConsole = R"(~"30\t  printf(\"limit starts at %d\\n\", t.limit);\n")";
const std::string kGroupStarted = R"(=thread-group-started,id="i1",pid="25630")";
const std::string kError = R"(^error,msg="No symbol \"foo\" in current context.")";
const std::string kLibrary =
    R"(=library-loaded,id="/lib64/ld-linux-x86-64.so.2",target-name="/lib64/ld-linux-x86-64.so.2",host-name="/lib64/ld-linux-x86-64.so.2",symbols-loaded="0",thread-group="i1",ranges=[{from="0x00007ffff7fc5090",to="0x00007ffff7fee315"}])";

const std::vector<std::string> kValidLines = {
    kBreakInsert, kStopped, kStack, kVariables, kWatch, kConsole, kGroupStarted, kError, kLibrary,
    "(gdb) ", "^running", "*running,thread-id=\"all\"", "2^error,msg=\"x\",code=\"undefined-command\"",
    R"(&"warning: Error disabling address space randomization: Operation not permitted\n")",
    R"(@"program output\n")", R"(~"\342\200\230x\342\200\231")", "^done,a={},b=[],c=[[],{}]",
};

}  // namespace

BOOST_AUTO_TEST_CASE(break_insert_result) {
  Record r = parse_ok(kBreakInsert);
  BOOST_TEST((r.token == std::optional<std::uint64_t>(1)));
  BOOST_TEST((r.kind == RecordKind::Result));
  BOOST_TEST(r.klass == "done");
  const Value* bkpt = r.results.get("bkpt");
  BOOST_REQUIRE(bkpt);
  BOOST_TEST(bkpt->text("number") == "1");
  BOOST_TEST(bkpt->text("addr") == "0x00005555555551c5");
  BOOST_TEST(bkpt->text("line") == "30");
  BOOST_TEST(bkpt->text("original-location") == "main");
  const Value* groups = bkpt->get("thread-groups");
  BOOST_REQUIRE(groups);
  BOOST_REQUIRE(groups->list());
  BOOST_REQUIRE_EQUAL(groups->list()->size(), 1u);
  BOOST_TEST(*(*groups->list())[0].str() == "i1");
  // Nothing lost or reordered: shown back, it is the line itself.
  BOOST_TEST(show(r) == kBreakInsert);
}

BOOST_AUTO_TEST_CASE(stopped_at_a_breakpoint) {
  Record r = parse_ok(kStopped);
  BOOST_TEST(!r.token);
  BOOST_TEST((r.kind == RecordKind::ExecAsync));
  BOOST_TEST(r.klass == "stopped");
  BOOST_TEST(r.results.text("reason") == "breakpoint-hit");
  BOOST_TEST(r.results.text("thread-id") == "1");
  const Value* frame = r.results.get("frame");
  BOOST_REQUIRE(frame);
  BOOST_TEST(frame->text("func") == "main");
  BOOST_TEST(frame->text("fullname") == "/work/main/examples/buggy.c");
  BOOST_REQUIRE(frame->get("args"));
  BOOST_REQUIRE(frame->get("args")->list());
  BOOST_TEST(frame->get("args")->list()->empty());
  BOOST_TEST(show(r) == kStopped);
}

BOOST_AUTO_TEST_CASE(list_of_results_is_a_list_of_one_pair_tuples) {
  Record r = parse_ok(kStack);
  const Value* stack = r.results.get("stack");
  BOOST_REQUIRE(stack);
  BOOST_REQUIRE(stack->list());
  const List& frames = *stack->list();
  BOOST_REQUIRE_EQUAL(frames.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    BOOST_REQUIRE(frames[i].tuple());
    BOOST_REQUIRE_EQUAL(frames[i].tuple()->size(), 1u);
    BOOST_TEST(frames[i].tuple()->front().first == "frame");
    BOOST_TEST(frames[i].get("frame")->text("level") == std::to_string(i));
  }
  BOOST_TEST(frames[1].get("frame")->text("func") == "main");
  BOOST_TEST(show(r) ==
             R"(^done,stack=[{frame={level="0",addr="0x1",func="f"}},{frame={level="1",addr="0x2",func="main"}}])");
}

BOOST_AUTO_TEST_CASE(list_of_tuples_and_escaped_values) {
  Record r = parse_ok(kVariables);
  const List& vars = *r.results.get("variables")->list();
  BOOST_REQUIRE_EQUAL(vars.size(), 2u);
  BOOST_TEST(vars[0].text("name") == "x");
  BOOST_TEST(vars[1].text("name") == "s");
  // gdb's C-syntax value, itself quoted: "hi\n" with a backslash and an n.
  BOOST_TEST(vars[1].text("value") == R"("hi\n")");
  BOOST_TEST(show(r) == kVariables);
}

BOOST_AUTO_TEST_CASE(watchpoint_trigger) {
  Record r = parse_ok(kWatch);
  BOOST_TEST(r.results.text("reason") == "watchpoint-trigger");
  BOOST_TEST(r.results.get("wpt")->text("exp") == "t.limit");
  BOOST_TEST(r.results.get("value")->text("old") == "100");
  BOOST_TEST(r.results.get("value")->text("new") == "64");
  const Value* frame = r.results.get("frame");
  BOOST_TEST(frame->text("line") == "21");
  BOOST_TEST((*frame->get("args")->list())[0].text("value") == "0x7fffffffe0c0");
  BOOST_TEST(show(r) == kWatch);
}

BOOST_AUTO_TEST_CASE(stream_records) {
  Record c = parse_ok(kConsole);
  BOOST_TEST((c.kind == RecordKind::Console));
  BOOST_TEST(c.text == "30\t  printf(\"limit starts at %d\\n\", t.limit);\n");
  BOOST_TEST(c.klass.empty());
  BOOST_TEST(show(c) == kConsole);
  Record t = parse_ok(R"(@"out")");
  BOOST_TEST((t.kind == RecordKind::Target));
  BOOST_TEST(t.text == "out");
  Record l = parse_ok(R"(&"set foo\n")");
  BOOST_TEST((l.kind == RecordKind::Log));
  BOOST_TEST(l.text == "set foo\n");
  BOOST_TEST(parse_ok(R"(~"")").text.empty());
}

BOOST_AUTO_TEST_CASE(notify_error_and_bare_records) {
  Record n = parse_ok(kGroupStarted);
  BOOST_TEST((n.kind == RecordKind::NotifyAsync));
  BOOST_TEST(n.klass == "thread-group-started");
  BOOST_TEST(n.results.text("pid") == "25630");
  Record e = parse_ok(kError);
  BOOST_TEST(e.klass == "error");
  BOOST_TEST(e.results.text("msg") == "No symbol \"foo\" in current context.");
  Record running = parse_ok("42^running");
  BOOST_TEST((running.token == std::optional<std::uint64_t>(42)));
  BOOST_TEST(running.klass == "running");
  BOOST_REQUIRE(running.results.tuple());
  BOOST_TEST(running.results.tuple()->empty());
  Record status = parse_ok(R"(+download,section=".text")");
  BOOST_TEST((status.kind == RecordKind::StatusAsync));
  BOOST_TEST((parse_ok("18446744073709551615^done").token == std::optional<std::uint64_t>(~0ull)));
  BOOST_TEST((parse_ok("0^done").token == std::optional<std::uint64_t>(0)));
}

BOOST_AUTO_TEST_CASE(empty_tuples_and_lists) {
  Record r = parse_ok("^done,a={},b=[],c=[[],{}],d=[\"x\",{y=\"1\"}]");
  BOOST_TEST(r.results.get("a")->tuple()->empty());
  BOOST_TEST(r.results.get("b")->list()->empty());
  BOOST_TEST(show(r) == "^done,a={},b=[],c=[[],{}],d=[\"x\",{y=\"1\"}]");
}

BOOST_AUTO_TEST_CASE(prompt_and_line_ends) {
  for (std::string_view line : {"(gdb)"sv, "(gdb) "sv, "(gdb) \r"sv, "(gdb)  \r\n"sv}) {
    BOOST_TEST((parse_ok(line).kind == RecordKind::Prompt));
  }
  BOOST_TEST(parse_ok("^done,a=\"1\"\r").results.text("a") == "1");
  BOOST_TEST(parse_ok("~\"x\"\r").text == "x");
}

BOOST_AUTO_TEST_CASE(c_string_escapes) {
  BOOST_TEST(parse_ok(R"(~"\n\t\r\"\\\a\b\f\v\e")").text == "\n\t\r\"\\\a\b\f\v\x1b");
  // gdb writes non-ASCII bytes in octal, one escape per byte.
  BOOST_TEST(parse_ok(R"(~"\342\200\230x\342\200\231")").text == "\xe2\x80\x98x\xe2\x80\x99");
  // One to three digits; a fourth digit, or an 8, is a plain character.
  BOOST_TEST(parse_ok(R"(~"\0")").text == "\0"s);
  BOOST_TEST(parse_ok(R"(~"\12|\101|\0011|\18|\377")").text == "\n|A|\x01" "1|\x01" "8|\xff");
  // Bytes gdb left raw stay raw.
  BOOST_TEST(parse_ok("~\"\xc3\xa9\"").text == "\xc3\xa9");
  BOOST_TEST(parse_ok("^done,msg=\"a,b={c}[d]=\"").results.text("msg") == "a,b={c}[d]=");
}

BOOST_AUTO_TEST_CASE(value_helpers) {
  Record r = parse_ok(R"(^done,a="1",t={x="2"},l=["3"],a="4")");
  BOOST_TEST(r.results.text("a") == "1");  // the first of a repeated name
  BOOST_TEST(r.results.text("missing") == "");
  BOOST_TEST(r.results.text("missing", "none") == "none");
  BOOST_TEST(r.results.text("t", "not a string") == "not a string");
  BOOST_TEST(r.results.text("l", "not a string") == "not a string");
  BOOST_TEST(!r.results.get("missing"));
  BOOST_TEST(r.results.get("t")->text("x") == "2");
  // get/text on a string or a list find nothing.
  BOOST_TEST(!r.results.get("a")->get("a"));
  BOOST_TEST(!r.results.get("l")->get("a"));
  BOOST_TEST(r.results.get("l")->text("a", "fb") == "fb");
}

BOOST_AUTO_TEST_CASE(malformed_lines_give_the_offset) {
  struct Case {
    std::string line;
    std::size_t offset;
  };
  const std::vector<Case> cases = {
      {"", 0},
      {"x", 0},
      {" ^done", 0},
      {"#done", 0},
      {"^", 1},
      {"^,a=\"1\"", 1},
      {"^done x", 5},
      {"^done,", 6},
      {"^done,msg", 9},
      {"^done,msg x", 9},
      {"^done,=\"1\"", 6},
      {"^done,msg=", 10},
      {"^done,msg=x", 10},
      {"^done,msg=\"abc", 10},
      {"^done,msg=\"abc\\", 10},
      {"^done,msg=\"a\"x", 13},
      {"^done,msg=\"a\",", 14},
      {"^done,msg=\"a\" ", 13},
      {"^done,a={b=\"1\"", 14},
      {"^done,a={b=\"1\";", 14},
      {"^done,a={}}", 10},
      {"^done,a={\"1\"}", 9},
      {"^done,a=[", 9},
      {"^done,a=[\"1\"", 12},
      {"^done,a=[\"1\",]", 13},
      {"^done,a=[\"1\"}", 12},
      {"^done,a=[b]", 10},
      {"123", 3},
      {"12~\"x\"", 2},
      {"12(gdb)", 2},
      {"99999999999999999999^done", 19},
      {"~", 1},
      {"~abc", 1},
      {"~\"abc", 1},
      {"~\"a\"b", 4},
      {"~\"\\q\"", 2},
      {"~\"ab\\400\"", 4},
      {"(gdb) x", 6},
      {"(gdb)\t", 5},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT("line '" << c.line << "'") { BOOST_TEST(error_offset(c.line) == c.offset); }
  }
}

BOOST_AUTO_TEST_CASE(nesting_limit) {
  auto lists = [](int depth) { return "^done,a=" + std::string(depth, '[') + std::string(depth, ']'); };
  BOOST_TEST(error_offset(lists(1000)) == std::string_view::npos);
  BOOST_TEST(error_offset(lists(1001)) == 8 + 1000);
  BOOST_TEST(error_offset(lists(1000000)) == 8 + 1000);
  // Tuples count the same way: 1000 levels of a={b=...} parse, 1001 do not.
  std::string deep = "^done,a=";
  std::string close;
  for (int i = 0; i < 1000; ++i) {
    deep += "{b=";
    close += "}";
  }
  BOOST_TEST(error_offset(deep + "\"1\"" + close) == std::string_view::npos);
  BOOST_TEST(error_offset(deep + "{b=\"1\"}" + close) == deep.size());
}

BOOST_AUTO_TEST_CASE(every_prefix_and_damage_of_valid_lines) {
  for (const std::string& line : kValidLines) {
    BOOST_TEST_CONTEXT("line '" << line << "'") {
      BOOST_TEST(error_offset(line) == std::string_view::npos);
      // Every prefix parses or fails cleanly (a few, like "^done", are whole
      // records of their own).
      for (std::size_t n = 0; n < line.size(); ++n) error_offset(std::string_view(line).substr(0, n));
      // So does every line with one byte replaced by something structural.
      for (std::size_t i = 0; i < line.size(); ++i) {
        for (char c : "\"\\{}[],=\0\r\xff"s) {
          std::string damaged = line;
          damaged[i] = c;
          error_offset(damaged);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(quote_golden_output) {
  BOOST_TEST(quote("") == R"("")");
  BOOST_TEST(quote("main") == R"("main")");
  BOOST_TEST(quote("/tmp/my file.c:30") == R"("/tmp/my file.c:30")");
  BOOST_TEST(quote(R"(say "hi" \o/)") == R"("say \"hi\" \\o/")");
  BOOST_TEST(quote("a\nb\tc\rd") == R"("a\nb\tc\rd")");
  BOOST_TEST(quote("\x01" "7\x1b\x7f"s) == R"("\0017\033\177")");
  BOOST_TEST(quote("\0"s) == R"("\000")");
  BOOST_TEST(quote("\xe2\x80\x98x") == "\"\xe2\x80\x98x\"");
}

BOOST_AUTO_TEST_CASE(quote_round_trips_through_the_parser) {
  std::string every_byte;
  for (int b = 0; b < 256; ++b) every_byte.push_back(static_cast<char>(b));
  const std::vector<std::string> samples = {
      "", "plain", "with space", "\"", "\\", "\\\"", "trailing\\", "a\nb", "\t\r\n",
      "\x01" "2\x03" "4", "\0"s, "\0" "0"s, "\x7f", "\xc3\xa9t\xc3\xa9", "\xe2\x80\x98q\xe2\x80\x99",
      "\xff\x80", "{a=[1]}", "(gdb)", every_byte,
  };
  for (const std::string& s : samples) {
    Record r = parse_ok("~" + quote(s));
    BOOST_TEST((r.kind == RecordKind::Console));
    BOOST_TEST(r.text == s);
    BOOST_TEST(parse_ok("^done,v=" + quote(s)).results.text("v") == s);
  }
}
