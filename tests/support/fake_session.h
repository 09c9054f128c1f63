// A fake DebugTarget with three threads and a client talking to a
// GdbSession over a socketpair: for unit tests of the server's handlers.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <thread>

#include "gdbserver/connection.h"
#include "gdbserver/gdb_session.h"
#include "gdbserver/rsp/framing.h"
#include "gdbserver/rsp/hex.h"

namespace backstep::testing {

constexpr pid_t kPid = 0x64;

class FakeTarget : public DebugTarget {
 public:
  std::vector<pid_t> tids{0x64, 0x65, 0x66};
  ResumeRequest last_request;
  pid_t stop_in = 0x66;  // the thread every resume stops in
  std::deque<TargetStop> stops;  // if any, what the next resumes return, in turn
  int resumes = 0;
  bool report_forks = false;  // set_report_forks
  int stop_signal = 0;    // a Linux signal every resume stops with (0: a breakpoint)
  std::vector<CpuidLeaf> cpuid;
  std::optional<uint64_t> debug_slot;
  std::vector<MemoryMapping> mappings;
  // Readable memory: each block from its address on (reads stop at its end).
  std::map<uint64_t, std::vector<uint8_t>> memory;
  std::size_t reads = 0;

  pid_t process_id() const override { return kPid; }
  std::vector<pid_t> thread_ids() const override { return tids; }
  std::string thread_name(pid_t tid) const override { return tid == 0x66 ? "a<b&\"c" : "w" + std::to_string(tid); }
  std::string exe_path() const override { return "/bin/prog"; }
  std::vector<std::string> command_line() const override { return {"/bin/prog", "an arg"}; }
  std::string start_directory() const override { return "/home/user"; }
  Activity activity() override { return {}; }
  CheckpointStats checkpoint_stats() const override { return {}; }
  void set_checkpoint_limit(std::size_t) override {}
  void set_checkpoint_memory_limit(uint64_t) override {}
  const std::vector<CpuidLeaf>& cpu_features() const override { return cpuid; }
  Registers registers(pid_t tid) override {
    BOOST_REQUIRE(std::find(tids.begin(), tids.end(), tid) != tids.end());
    Registers r;
    r.set_ip(0x1000 + static_cast<uint64_t>(tid));  // tells the threads apart
    return r;
  }
  std::vector<uint8_t> xstate(pid_t) override { return {}; }
  std::vector<uint8_t> read_memory(uint64_t addr, std::size_t len) override {
    ++reads;
    auto it = memory.upper_bound(addr);
    if (it == memory.begin()) return {};
    --it;
    const std::vector<uint8_t>& block = it->second;
    if (addr - it->first >= block.size()) return {};
    auto from = block.begin() + static_cast<std::ptrdiff_t>(addr - it->first);
    return {from, from + static_cast<std::ptrdiff_t>(std::min<uint64_t>(len, block.end() - from))};
  }
  std::vector<uint8_t> auxv() override { return {}; }
  std::vector<uint8_t> siginfo() override { return {}; }
  bool set_breakpoint(uint64_t, TrapKind) override { return true; }
  bool remove_breakpoint(uint64_t, TrapKind) override { return true; }
  bool set_watchpoint(uint64_t, uint64_t, WatchKind) override { return true; }
  bool remove_watchpoint(uint64_t, uint64_t, WatchKind) override { return true; }
  void set_catch_syscalls(std::optional<std::vector<int>>) override {}
  void set_pass_signals(const std::vector<int>&) override {}
  void set_report_exec(bool) override {}
  void set_report_forks(bool report) override { report_forks = report; }
  TargetStop resume(const ResumeRequest& request, const std::function<bool()>&) override {
    last_request = request;
    ++resumes;
    if (!stops.empty()) {
      TargetStop next = stops.front();
      stops.pop_front();
      return next;
    }
    TargetStop stop;
    stop.kind = stop_signal ? TargetStop::Kind::Signal : TargetStop::Kind::Breakpoint;
    stop.signal = stop_signal;
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
  void write_registers(pid_t, const Registers&, const std::vector<uint8_t>&) override {
    throw std::out_of_range("the fake target takes no writes");
  }
  std::size_t write_memory(uint64_t, const std::vector<uint8_t>&) override { return 0; }
  std::optional<uint64_t> allocate_memory(uint64_t, int) override { return std::nullopt; }
  bool deallocate_memory(uint64_t) override { return false; }
  bool in_called_function() override { return false; }
  std::string take_note() override { return {}; }
  std::optional<std::string> recorded_file(const std::string&) const override { return std::nullopt; }
  std::string libraries_svr4_xml() override { return ""; }
  std::optional<uint64_t> debug_pointer_address() override { return debug_slot; }
  std::vector<MemoryMapping> memory_map() override { return mappings; }
  TlsAddress tls_address(pid_t tid, uint64_t link_map, uint64_t offset) override {
    if (std::find(tids.begin(), tids.end(), tid) == tids.end()) return {std::nullopt, "no thread " + std::to_string(tid)};
    return {0x7f0000000000 + (static_cast<uint64_t>(tid) << 12) + link_map + offset, ""};
  }
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
  // The reply to `payload`. Console output ('O' packets, sent before a stop
  // reply) is passed over, as a client does, and kept in `console`: read
  // as the reply, it would leave the server still at work on the request.
  std::string ask(const std::string& payload) {
    send_raw(rsp::encode_packet(payload));
    for (;;) {
      std::string reply = read_reply(false);
      std::optional<std::string> text;
      if (reply.size() > 1 && reply[0] == 'O') text = rsp::hex_decode_text(std::string_view(reply).substr(1));
      if (!text) return reply;  // "OK" is not hex
      console += *text;
    }
  }
  std::string console;

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
inline std::string rip_of(pid_t tid) {
  uint64_t v = 0x1000 + static_cast<uint64_t>(tid);
  std::string hex;
  const char* digits = "0123456789abcdef";
  for (int i = 0; i < 8; ++i, v >>= 8) {
    hex += digits[(v >> 4) & 0xf];
    hex += digits[v & 0xf];
  }
  return hex;
}


}  // namespace backstep::testing
