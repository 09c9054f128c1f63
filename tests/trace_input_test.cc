// Unit tests of what protects the user from a hostile trace beyond its
// decoding: trace files that are not regular files (a FIFO would hang the
// reader forever), links out of the trace, and text that would drive the
// terminal (trace::printable).
#define BOOST_TEST_MODULE trace_input
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>

#include "engine/trace/printable.h"
#include "engine/trace/reader.h"
#include "engine/trace/trace_error.h"
#include "engine/trace/trace_file.h"
#include "engine/trace/writer.h"
#include "tests/support/temp_dir.h"

using namespace backstep::trace;
namespace fs = std::filesystem;

namespace {

struct TempDir : backstep::testing::TempDir {
  TempDir() : backstep::testing::TempDir("trace_input_test") {}
};

// A reader that blocks in open() or read() is the bug itself: end the test
// (as a failure) instead of hanging until ctest's timeout.
struct Watchdog {
  Watchdog() { ::alarm(60); }
  ~Watchdog() { ::alarm(0); }
};

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

void expect_error(const std::function<void()>& f, const std::string& part) {
  try {
    f();
  } catch (const TraceError& e) {
    BOOST_CHECK_MESSAGE(contains(e.what(), part), "message \"" << e.what() << "\" lacks \"" << part << "\"");
    return;
  }
  BOOST_ERROR("no TraceError (expected one mentioning \"" << part << "\")");
}

// A finished trace of one Exit event, with one file copy at files/prog-0
// that its Exec maps.
std::string small_trace(const TempDir& tmp, const std::string& name) {
  std::string dir = tmp.sub(name);
  std::string source = tmp.sub(name + "-source");
  std::ofstream(source) << "the program's bytes\n";
  TraceWriter w(dir, Header{});
  StoredFile copy = w.add_file(source, "prog");
  Event exec{EventKind::Exec, 1, RegBlock{}};
  exec.mappings.push_back({0x400000, 0x401000, 5, 2, 0, MappingKind::File, copy.path, "/prog", copy.size, copy.hash});
  w.write(exec);
  w.write(Event{EventKind::Exit, 1});
  w.finish();
  return dir;
}

// Puts a FIFO, a directory, a symbolic link or a device in place of `path`.
enum class Impostor { Fifo, Directory, Symlink, Device };

void replace_with(const std::string& path, Impostor what) {
  fs::remove(path);
  switch (what) {
    case Impostor::Fifo: BOOST_REQUIRE(::mkfifo(path.c_str(), 0600) == 0); break;
    case Impostor::Directory: fs::create_directory(path); break;
    case Impostor::Symlink: fs::create_symlink("/dev/zero", path); break;
    case Impostor::Device:
      // mknod needs CAP_MKNOD; elsewhere the link to /dev/zero stands in.
      if (::mknod(path.c_str(), S_IFCHR | 0600, makedev(1, 5)) != 0) fs::create_symlink("/dev/zero", path);
      break;
  }
}

const char* kind_text(Impostor what, const std::string& path) {
  switch (what) {
    case Impostor::Fifo: return "is a FIFO, not a regular file";
    case Impostor::Directory: return "is a directory, not a regular file";
    case Impostor::Symlink: return "is a symbolic link, not a regular file";
    case Impostor::Device: return fs::is_symlink(path) ? "is a symbolic link, not a regular file"
                                                       : "is a character device, not a regular file";
  }
  return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(printable_escapes_and_cuts) {
  BOOST_TEST(printable("plain text, 42 /usr/lib") == "plain text, 42 /usr/lib");
  BOOST_TEST(printable("\x1b[2J\x1b]0;owned\x07") == "\\x1b[2J\\x1b]0;owned\\x07");
  BOOST_TEST(printable("a\nb\tc\\d\r") == "a\\nb\\tc\\d\\x0d");
  BOOST_TEST(printable(std::string("nul\0byte", 8)) == "nul\\x00byte");
  BOOST_TEST(printable("\x7f") == "\\x7f");
  // UTF-8 passes; what is not UTF-8, C1 controls and bidi overrides do not.
  BOOST_TEST(printable("caf\xc3\xa9 \xe6\x97\xa5") == "caf\xc3\xa9 \xe6\x97\xa5");
  BOOST_TEST(printable("\xff\xc3") == "\\xff\\xc3");
  BOOST_TEST(printable("\xc2\x9b" "31m") == "\\xc2\\x9b31m");           // U+009B, CSI
  BOOST_TEST(printable("\xe2\x80\xae" "evil") == "\\xe2\\x80\\xaeevil");  // U+202E
  BOOST_TEST(printable("\xc0\xaf") == "\\xc0\\xaf");                    // overlong '/'
  // Cut after max_len bytes of the text.
  std::string lines;
  for (int i = 0; i < 150; ++i) lines += "line\n";
  std::string shown = printable(lines, 20);
  BOOST_TEST(shown == "line\\nline\\nline\\nline\\n... (730 more bytes)");
  BOOST_TEST(shown.find('\n') == std::string::npos);
  BOOST_TEST(printable(lines).size() < 1500u);
  // A message of several lines keeps them.
  BOOST_TEST(printable("one\ntwo \\x1b\x1b", SIZE_MAX, Escaping::ControlsOnly) == "one\ntwo \\x1b\\x1b");
}

BOOST_AUTO_TEST_CASE(trace_files_that_are_not_regular_files_are_refused) {
  Watchdog watchdog;
  for (Impostor what : {Impostor::Fifo, Impostor::Directory, Impostor::Symlink, Impostor::Device}) {
    for (const char* name : {"header", "events"}) {
      TempDir tmp;
      std::string dir = small_trace(tmp, "t");
      std::string path = dir + "/" + name;
      replace_with(path, what);
      expect_error([&] { TraceReader r(dir); }, "trace file " + path + " " + kind_text(what, path));
    }
    // The copy of a mapped file, and its list.
    TempDir tmp;
    std::string dir = small_trace(tmp, "t");
    std::string copy = dir + "/files/prog-0";
    fs::permissions(dir + "/files", fs::perms::owner_all);
    replace_with(copy, what);
    TraceReader r(dir);
    expect_error([&] { r.verify_files(); }, "trace file " + copy + " " + kind_text(what, copy));
    std::optional<Event> exec = r.next();
    BOOST_REQUIRE(exec.has_value());
    expect_error([&] { r.verified_file_path(exec->mappings[0]); }, "trace file " + copy + " " + kind_text(what, copy));
    std::string sums = dir + "/files.sums";
    replace_with(sums, what);
    expect_error([&] { r.verify_files(); }, "trace file " + sums + " " + kind_text(what, sums));
  }
}

BOOST_AUTO_TEST_CASE(a_stop_reason_that_is_not_a_regular_file_is_refused) {
  Watchdog watchdog;
  TempDir tmp;
  std::string dir = tmp.sub("t");
  {
    TraceWriter w(dir, Header{});
    w.write(Event{EventKind::Syscall, 1, RegBlock{}});
    w.finish();
  }
  std::string path = dir + "/stop-reason";
  replace_with(path, Impostor::Fifo);
  TraceReader r(dir);
  BOOST_TEST(r.next().has_value());
  expect_error([&] { r.next(); }, "trace file " + path + " is a FIFO, not a regular file");
}

BOOST_AUTO_TEST_CASE(a_linked_files_directory_is_refused) {
  // files/ as a link to a directory of the host: "files/libc.so.6" would
  // name a host file, though the name itself is no link.
  TempDir tmp;
  std::string dir = small_trace(tmp, "t");
  fs::create_directory(tmp.sub("host"));
  fs::copy_file(dir + "/files/prog-0", tmp.sub("host/prog-0"));
  fs::permissions(dir + "/files", fs::perms::owner_all);
  fs::remove_all(dir + "/files");
  fs::create_directory_symlink(tmp.sub("host"), dir + "/files");
  TraceReader r(dir);
  expect_error([&] { r.file_path("files/prog-0"); }, "trace directory " + dir + "/files is a symbolic link, not a directory");
}

BOOST_AUTO_TEST_CASE(open_trace_file_opens_regular_files) {
  TempDir tmp;
  std::ofstream(tmp.sub("f")) << "12345";
  OpenedTraceFile f = open_trace_file(tmp.sub("f"));
  BOOST_TEST(f.fd.get() >= 0);
  BOOST_TEST(f.st.st_size == 5);
  BOOST_TEST(!open_trace_file_if_present(tmp.sub("missing")).has_value());
  expect_error([&] { open_trace_file(tmp.sub("missing")); }, tmp.sub("missing") + ": cannot open");
}
