// Unit tests of the gdb server's thread requests, against a fake target
// with three threads over a socketpair: which threads are listed, which one
// Hg selects for register reads (and that an unknown one is refused without
// changing the choice), that a stop names the thread that stopped and makes
// it the selected one, and which thread a vCont step names to the target.
#define BOOST_TEST_MODULE gdb_threads
#include <boost/test/unit_test.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "gdbserver/connection.h"
#include "gdbserver/gdb_session.h"
#include "gdbserver/rsp/framing.h"

using namespace backstep;

namespace {

constexpr pid_t kPid = 0x64;

class FakeTarget : public DebugTarget {
 public:
  std::vector<pid_t> tids{0x64, 0x65, 0x66};
  ResumeRequest last_request;
  pid_t stop_in = 0x66;  // the thread every resume stops in
  std::vector<CpuidLeaf> cpuid;

  pid_t process_id() const override { return kPid; }
  std::vector<pid_t> thread_ids() const override { return tids; }
  std::string thread_name(pid_t tid) const override { return tid == 0x66 ? "a<b&\"c" : "w" + std::to_string(tid); }
  std::string exe_path() const override { return "/bin/prog"; }
  const std::vector<CpuidLeaf>& cpu_features() const override { return cpuid; }
  Registers registers(pid_t tid) override {
    BOOST_REQUIRE(std::find(tids.begin(), tids.end(), tid) != tids.end());
    Registers r;
    r.set_ip(0x1000 + static_cast<uint64_t>(tid));  // tells the threads apart
    return r;
  }
  std::vector<uint8_t> xstate(pid_t) override { return {}; }
  std::vector<uint8_t> read_memory(uint64_t, std::size_t) override { return {}; }
  std::vector<uint8_t> auxv() override { return {}; }
  std::vector<uint8_t> siginfo() override { return {}; }
  bool set_breakpoint(uint64_t, TrapKind) override { return true; }
  bool remove_breakpoint(uint64_t, TrapKind) override { return true; }
  bool set_watchpoint(uint64_t, uint64_t, WatchType) override { return true; }
  bool remove_watchpoint(uint64_t, uint64_t, WatchType) override { return true; }
  void set_catch_syscalls(std::optional<std::vector<int>>) override {}
  void set_pass_signals(const std::vector<int>&) override {}
  TargetStop resume(const ResumeRequest& request, const std::function<bool()>&) override {
    last_request = request;
    TargetStop stop;
    stop.kind = TargetStop::Kind::Breakpoint;
    stop.tid = stop_in;
    return stop;
  }
  uint64_t current_event() const override { return 0; }
  std::string describe_position() const override { return "event 0"; }
  void restart(std::optional<uint64_t>) override {}
  int create_checkpoint() override { return 1; }
  bool delete_checkpoint(int) override { return false; }
  std::vector<CheckpointInfo> checkpoints() const override { return {}; }
  bool restart_checkpoint(int) override { return false; }
  CheckpointStats checkpoint_stats() const override { return {}; }
  void set_checkpoint_limit(std::size_t) override {}
  void set_checkpoint_memory_limit(uint64_t) override {}
  std::optional<std::string> recorded_file(const std::string&) const override { return std::nullopt; }
  std::string libraries_svr4_xml() override { return ""; }
};

// A client in no-ack mode talking to a GdbSession that serves on a thread.
class Client {
 public:
  explicit Client(FakeTarget& target) {
    int fds[2];
    BOOST_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
    fd_ = fds[1];
    server_ = std::thread([&target, fd = fds[0]] {
      gdb::Connection connection(fd);
      gdb::GdbSession session(target, connection);
      session.serve();
    });
    send_raw(rsp::encode_packet("QStartNoAckMode"));
    BOOST_REQUIRE_EQUAL(read_reply(true), "OK");
    send_raw("+");
    BOOST_REQUIRE(ask("qSupported:multiprocess+;swbreak+").find("multiprocess+") != std::string::npos);
  }
  ~Client() {
    send_raw(rsp::encode_packet("D"));
    read_reply(false);
    close(fd_);
    server_.join();
  }
  std::string ask(const std::string& payload) {
    send_raw(rsp::encode_packet(payload));
    return read_reply(false);
  }

 private:
  void send_raw(const std::string& bytes) {
    BOOST_REQUIRE(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()));
  }
  char read_byte() {
    char c;
    BOOST_REQUIRE(recv(fd_, &c, 1, 0) == 1);
    return c;
  }
  // One reply's payload (our replies hold no escapes or runs).
  std::string read_reply(bool acked) {
    char c = read_byte();
    if (acked && c == '+') c = read_byte();
    BOOST_REQUIRE_EQUAL(c, '$');
    std::string payload;
    while ((c = read_byte()) != '#') payload += c;
    read_byte();
    read_byte();
    return payload;
  }

  int fd_ = -1;
  std::thread server_;
};

// The p reply for rip (register 16) of thread `tid` in the fake.
std::string rip_of(pid_t tid) {
  uint64_t v = 0x1000 + static_cast<uint64_t>(tid);
  std::string hex;
  const char* digits = "0123456789abcdef";
  for (int i = 0; i < 8; ++i, v >>= 8) {
    hex += digits[(v >> 4) & 0xf];
    hex += digits[v & 0xf];
  }
  return hex;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_thread_is_listed_and_alive) {
  FakeTarget target;
  Client c(target);
  BOOST_TEST(c.ask("qfThreadInfo") == "mp64.64,p64.65,p64.66");
  BOOST_TEST(c.ask("qsThreadInfo") == "l");
  BOOST_TEST(c.ask("Tp64.65") == "OK");
  BOOST_TEST(c.ask("T66") == "OK");
  BOOST_TEST(c.ask("Tp64.67") == "E03");
  BOOST_TEST(c.ask("Tp65.65") == "E03");  // another process
  std::string xml = c.ask("qXfer:threads:read::0,1000");
  BOOST_TEST(xml.find("<thread id=\"p64.65\" name=\"w101\"/>") != std::string::npos, xml);
  BOOST_TEST(xml.find("<thread id=\"p64.66\" name=\"a&lt;b&amp;&quot;c\"/>") != std::string::npos, xml);
}

BOOST_AUTO_TEST_CASE(hg_selects_the_thread_whose_registers_are_read) {
  FakeTarget target;
  Client c(target);
  BOOST_TEST(c.ask("p10") == rip_of(0x64));  // before any stop: the main thread
  BOOST_TEST(c.ask("Hgp64.65") == "OK");
  BOOST_TEST(c.ask("p10") == rip_of(0x65));
  BOOST_TEST(c.ask("g").substr(16 * 16, 16) == rip_of(0x65));
  // An unknown thread is refused, and the choice stays.
  BOOST_TEST(c.ask("Hgp64.99") == "E03");
  BOOST_TEST(c.ask("p10") == rip_of(0x65));
  // lldb's suffix names the thread for one request.
  BOOST_TEST(c.ask("p10;thread:p64.66;") == rip_of(0x66));
  BOOST_TEST(c.ask("Hg0") == "OK");  // any: the thread of the last stop
  BOOST_TEST(c.ask("p10") == rip_of(0x64));
}

BOOST_AUTO_TEST_CASE(a_stop_names_its_thread_and_selects_it) {
  FakeTarget target;
  Client c(target);
  BOOST_TEST(c.ask("Hgp64.65") == "OK");
  std::string stop = c.ask("vCont;c:p64.-1");
  BOOST_TEST(stop.find("thread:p64.66;") != std::string::npos, stop);
  BOOST_TEST(stop.find("10:" + rip_of(0x66)) != std::string::npos, stop);  // expedited pc is its own
  BOOST_TEST(c.ask("qC") == "QCp64.66");
  BOOST_TEST(c.ask("p10") == rip_of(0x66));  // Hg follows the stop
}

BOOST_AUTO_TEST_CASE(a_vcont_step_names_the_stepped_thread) {
  FakeTarget target;
  Client c(target);
  c.ask("vCont;s:p64.65;c:p64.-1");
  BOOST_TEST(static_cast<int>(target.last_request.how) == static_cast<int>(ResumeRequest::How::Step));
  BOOST_TEST(target.last_request.thread == 0x65);
  c.ask("vCont;c:p64.-1");
  BOOST_TEST(static_cast<int>(target.last_request.how) == static_cast<int>(ResumeRequest::How::Continue));
  c.ask("vCont;r1000,1010:p64.64;c");
  BOOST_TEST(static_cast<int>(target.last_request.how) == static_cast<int>(ResumeRequest::How::RangeStep));
  BOOST_TEST(target.last_request.thread == 0x64);
  target.last_request = {};
  BOOST_TEST(c.ask("vCont;s:p64.99") == "E03");
  BOOST_TEST(target.last_request.thread == 0);  // not resumed
  // Legacy s steps the Hc thread.
  BOOST_TEST(c.ask("Hcp64.65") == "OK");
  c.ask("s");
  BOOST_TEST(target.last_request.thread == 0x65);
}
