// libFuzzer target for a live debugging session: the requests of each input
// are served by a real GdbSession, over a socketpair, against the real
// ReplayTimeline of a small program (session_target.c) that the real
// RecordSession records once, in this process, at start-up. What a client
// can make the server do (memory, time, processes) is what this exercises,
// with ASan and UBSan watching the server and the engine below it.
//
// Input: request payloads separated by '\n' (gdb's text packets hold none),
// each framed by encode_packet(), so that every packet arrives with a valid
// checksum and reaches a handler, then a D (detach) that ends the session
// (a client that closes its side is gone: its replies are not sent). Bounds, so that a bounded run stays short
// and one input cannot run away:
// - at most kMaxPackets packets; resumes (c, s, C, S, vCont, bc, bs, vRun)
//   past kMaxResumes are left out, as are monitor commands past
//   kMaxMonitorCommands (each checkpoint forks the replayed process);
// - the replayed program is a few hundred instructions (no libc), so that a
//   continue, a reverse search or a range step over all of it is short;
// - libFuzzer's -rss_limit_mb and -malloc_limit_mb (run_bounded.sh) make a
//   request whose cost grows with a length it names a finding.
// The timeline starts afresh every BACKSTEP_SESSION_FUZZ_RESET inputs
// (default 1: each input on a fresh one, so that a finding reproduces from
// its input alone; breakpoints and checkpoints would otherwise carry over).
//
// Beyond "no crash, no leak, no UB", the target checks what the server
// promises, and aborts (a finding) when a promise is broken:
// - every request gets a reply, unless a k or D ended the session;
// - no reply is longer than the PacketSize the server advertises.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "engine/record/record_session.h"
#include "engine/timeline/replay_timeline.h"
#include "gdbserver/connection.h"
#include "gdbserver/gdb_session.h"
#include "gdbserver/rsp/framing.h"
#include "gdbserver/rsp/request.h"

namespace rsp = backstep::rsp;
using backstep::gdb::GdbSession;

namespace {

constexpr std::size_t kMaxPackets = 512;
constexpr std::size_t kMaxResumes = 8;
constexpr std::size_t kMaxMonitorCommands = 4;

[[noreturn]] void broken(const std::string& promise) {
  std::fprintf(stderr, "session_fuzz: broken promise: %s\n", promise.c_str());
  std::abort();
}

// The recording of session_target, made once; removed at exit.
class Recording {
 public:
  Recording() {
    char tmpl[] = "/tmp/session_fuzz.XXXXXX";
    if (!::mkdtemp(tmpl)) broken("mkdtemp works");
    dir_ = tmpl;
    backstep::RecordOptions options;
    options.exe = SESSION_TARGET;
    options.argv = {SESSION_TARGET};
    options.trace_dir = trace();
    // The program's "tick" lines go to /dev/null, not into libFuzzer's output.
    int saved = dup(1);
    int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    dup2(devnull, 1);
    backstep::RecordResult result = backstep::RecordSession(options).run();
    dup2(saved, 1);
    close(saved);
    close(devnull);
    if (!result.completed || result.exit_status != 0) {
      broken("session_target records (" + result.stop_reason + ")");
    }
  }
  ~Recording() { std::filesystem::remove_all(dir_); }
  std::string trace() const { return dir_ + "/trace"; }

 private:
  std::string dir_;
};

// The payloads of one input, within the bounds above.
std::vector<std::string> requests(std::string_view input) {
  std::vector<std::string> out;
  std::size_t resumes = 0, monitors = 0;
  while (!input.empty() && out.size() < kMaxPackets) {
    std::size_t end = input.find('\n');
    std::string payload(input.substr(0, end));
    input.remove_prefix(end == std::string_view::npos ? input.size() : end + 1);
    rsp::ParseResult parsed = rsp::parse_request(payload);
    if (auto* r = std::get_if<rsp::Request>(&parsed)) {
      bool resume = std::holds_alternative<rsp::Continue>(*r) || std::holds_alternative<rsp::Step>(*r) ||
                    std::holds_alternative<rsp::ContinueWithSignal>(*r) ||
                    std::holds_alternative<rsp::StepWithSignal>(*r) || std::holds_alternative<rsp::VCont>(*r) ||
                    std::holds_alternative<rsp::ReverseContinue>(*r) ||
                    std::holds_alternative<rsp::ReverseStep>(*r) || std::holds_alternative<rsp::VRun>(*r);
      if (resume && ++resumes > kMaxResumes) continue;
      if (std::holds_alternative<rsp::MonitorCommand>(*r) && ++monitors > kMaxMonitorCommands) continue;
    }
    out.push_back(std::move(payload));
  }
  return out;
}

// The client's side: writes `wire` and reads every reply until the server
// closes, at the same time (neither side may block the other on a full
// socket buffer). Returns the bytes the server sent.
std::string client(int fd, const std::string& wire) {
  std::string received;
  std::size_t sent = 0;
  bool open_for_reading = true;
  while (open_for_reading) {
    pollfd p{fd, static_cast<short>(POLLIN | (sent < wire.size() ? POLLOUT : 0)), 0};
    if (poll(&p, 1, -1) < 0) continue;
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      char buf[65536];
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) open_for_reading = false;
      if (n > 0) received.append(buf, static_cast<std::size_t>(n));
    }
    if (sent < wire.size() && (p.revents & POLLOUT)) {
      ssize_t n = send(fd, wire.data() + sent, wire.size() - sent, MSG_NOSIGNAL);
      if (n > 0) sent += static_cast<std::size_t>(n);
      if (n < 0) sent = wire.size();  // the server is gone (k, D)
    }
  }
  close(fd);
  return received;
}

// The payloads of the packets the server sent (its acks skipped).
std::vector<std::string> replies(const std::string& received) {
  rsp::PacketReceiver receiver(SIZE_MAX);
  receiver.feed(received.data(), received.size());
  std::vector<std::string> out;
  while (auto event = receiver.next_event()) {
    if (auto* packet = std::get_if<rsp::Packet>(&*event)) out.push_back(packet->payload);
  }
  return out;
}

std::size_t reset_interval() {
  const char* text = std::getenv("BACKSTEP_SESSION_FUZZ_RESET");
  long n = text ? std::atol(text) : 1;
  return n > 0 ? static_cast<std::size_t>(n) : 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Recording recording;
  static std::unique_ptr<backstep::ReplayTimeline> timeline;
  static std::size_t served = 0;
  static const std::size_t reset_every = reset_interval();
  if (!timeline || served++ % reset_every == 0) {
    timeline.reset();  // its processes go before the next one starts
    timeline = std::make_unique<backstep::ReplayTimeline>(recording.trace());
  }

  std::vector<std::string> payloads = requests({reinterpret_cast<const char*>(data), size});
  std::string wire;
  for (const std::string& p : payloads) wire += rsp::encode_packet(p);
  wire += rsp::encode_packet("D");

  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) broken("socketpair works");
  std::string received;
  std::thread peer([&] { received = client(fds[1], wire); });
  bool ended_by_client = false;
  {
    backstep::gdb::Connection connection(fds[0]);
    GdbSession session(*timeline, connection);
    session.serve();
  }  // closes fds[0]: the peer reads to the end
  peer.join();
  for (const std::string& p : payloads) {
    if (p == "k" || p.rfind("D", 0) == 0) ended_by_client = true;
  }

  std::vector<std::string> answers = replies(received);
  for (const std::string& a : answers) {
    if (a.size() + 4 > GdbSession::kPacketSize) {
      broken("a reply fits the PacketSize (" + std::to_string(a.size()) + " bytes to " + payloads.front() + "...)");
    }
  }
  // Console output ('O' packets) comes on top of the replies.
  std::size_t console = 0;
  for (const std::string& a : answers) {
    if (a.size() > 1 && a[0] == 'O' && a != "OK") ++console;
  }
  if (!ended_by_client && answers.size() - console < payloads.size() + 1) {
    broken("every request gets a reply (" + std::to_string(payloads.size() + 1) + " sent, " +
           std::to_string(answers.size() - console) + " answered)");
  }
  return 0;
}
