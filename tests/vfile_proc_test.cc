// The debugged process's /proc files through vFile (handlers_files.cc),
// against the fake target: gdb's `info proc` opens /proc/PID/cmdline and
// reads the cwd and exe links, which backstep answers from the recording
// (the recorded process is long gone, or the pid is another process's now).
#define BOOST_TEST_MODULE vfile_proc
#include <boost/test/unit_test.hpp>

#include "gdbserver/rsp/hex.h"
#include "tests/support/fake_session.h"

using namespace backstep;
using namespace backstep::testing;

namespace {

std::string open_packet(const std::string& path) { return "vFile:open:" + rsp::hex_encode(path) + ",0,0"; }
std::string readlink_packet(const std::string& path) { return "vFile:readlink:" + rsp::hex_encode(path); }

}  // namespace

BOOST_AUTO_TEST_CASE(cmdline_cwd_and_exe_come_from_the_recording) {
  FakeTarget target;  // process 100 (0x64)
  Client c(target);
  std::string opened = c.ask(open_packet("/proc/100/cmdline"));
  BOOST_REQUIRE(opened.starts_with("F"));
  std::string fd = opened.substr(1);
  // "F<length>;<data>": the arguments, each followed by a NUL.
  std::string data = c.ask("vFile:pread:" + fd + ",1000,0");
  BOOST_TEST(data == std::string("F11;/bin/prog\0an arg\0", 21));  // 0x11 bytes
  BOOST_TEST(c.ask("vFile:close:" + fd) == "F0");
  BOOST_TEST(c.ask(readlink_packet("/proc/100/exe")) == "F9;/bin/prog");
  BOOST_TEST(c.ask(readlink_packet("/proc/100/cwd")) == "Fa;/home/user");
  // Other links, and other processes' files, are not the recording's.
  BOOST_TEST(c.ask(readlink_packet("/proc/100/root")) == "F-1,16");
  BOOST_TEST(c.ask(readlink_packet("/proc/101/exe")) == "F-1,16");
  BOOST_TEST(c.ask(open_packet("/proc/101/cmdline")) == "F-1,2");
}
