// Threads: which exist, which one register requests read (Hg), which one a
// legacy resume names (Hc), and their names. Thread ids on the wire are
// recorded tids (stable across checkpoints and restarts), in the
// "p<pid>.<tid>" form once the client negotiated multiprocess+.
#include <algorithm>
#include <sstream>

#include "gdbserver/gdb_session.h"
#include "gdbserver/rsp/hex.h"

namespace backstep::gdb {
namespace {

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // A thread name is any 15 bytes; keep the XML well formed.
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "?";
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace

std::int64_t GdbSession::wire_pid() const { return wire_pid(target_.process_id()); }

std::int64_t GdbSession::wire_pid(pid_t recorded) const {
  return lldb_ ? std::int64_t{recorded} + kLldbPidOffset : recorded;
}

std::int64_t GdbSession::recorded_pid(std::int64_t wire) const { return lldb_ ? wire - kLldbPidOffset : wire; }

rsp::ThreadId GdbSession::thread_id(pid_t tid) const {
  return multiprocess_ ? rsp::ThreadId::in_process(wire_pid(), tid) : rsp::ThreadId::specific(tid);
}

bool GdbSession::thread_alive(pid_t tid) const {
  if (exited_ || tid <= 0) return false;
  std::vector<pid_t> tids = target_.thread_ids();
  return std::find(tids.begin(), tids.end(), tid) != tids.end();
}

std::optional<pid_t> GdbSession::named_thread(const rsp::ThreadId& id) const {
  if (id.pid && *id.pid > 0 && *id.pid != wire_pid()) return 0;  // another process
  if (!id.is_specific()) return std::nullopt;
  pid_t tid = static_cast<pid_t>(id.tid);
  return thread_alive(tid) ? tid : 0;
}

pid_t GdbSession::stopped_thread() const {
  if (thread_alive(last_stop_.tid)) return last_stop_.tid;
  std::vector<pid_t> tids = target_.thread_ids();
  return tids.empty() ? 0 : tids.front();
}

pid_t GdbSession::register_thread(const std::optional<rsp::ThreadId>& suffix) const {
  if (suffix) {
    std::optional<pid_t> named = named_thread(*suffix);
    if (named) return *named;
  }
  if (general_thread_ != 0 && thread_alive(general_thread_)) return general_thread_;
  return stopped_thread();
}

void GdbSession::handle(const rsp::QueryCurrentThread&) { reply(rsp::current_thread(thread_id(stopped_thread()))); }

void GdbSession::handle(const rsp::ThreadInfoFirst&) {
  std::vector<rsp::ThreadId> threads;
  if (!exited_) {
    for (pid_t tid : target_.thread_ids()) threads.push_back(thread_id(tid));
  }
  reply(rsp::thread_list(threads));
}

void GdbSession::handle(const rsp::ThreadAlive& r) {
  std::optional<pid_t> named = named_thread(r.thread);
  bool alive = !exited_ && (named ? *named != 0 : !(r.thread.pid && *r.thread.pid > 0 &&
                                                     *r.thread.pid != wire_pid()));
  reply(alive ? rsp::ok() : error_reply(rsp::ErrorCode::NoSuchThread));
}

void GdbSession::handle(const rsp::ThreadExtraInfo& r) {
  std::optional<pid_t> named = named_thread(r.thread);
  if (named && *named == 0) {
    reply(error_reply(rsp::ErrorCode::NoSuchThread));
    return;
  }
  reply(rsp::hex_encode(target_.thread_name(named ? *named : stopped_thread())));
}

void GdbSession::handle(const rsp::QueryTlsAddress& r) {
  std::optional<pid_t> named = named_thread(r.thread);
  pid_t tid = named ? *named : stopped_thread();
  if (tid == 0) {
    reply(error_reply(rsp::ErrorCode::NoSuchThread));
    return;
  }
  DebugTarget::TlsAddress a = target_.tls_address(tid, r.link_map, r.offset);
  if (!a.addr) {
    reply(error_reply(rsp::ErrorCode::Failed, a.why));
    return;
  }
  reply(rsp::hex_number(*a.addr));
}

void GdbSession::handle(const rsp::SetThread& r) {
  // A forked child the client has not detached yet: it takes its
  // breakpoints out of it (z packets, answered without effect).
  if (r.purpose == rsp::SetThread::Purpose::General && r.thread.pid && forked_children_.count(*r.thread.pid)) {
    general_child_ = *r.thread.pid;
    reply(rsp::ok());
    return;
  }
  if (r.purpose == rsp::SetThread::Purpose::General) general_child_ = 0;
  // An unknown thread is refused and the previous choice stays (as rr).
  std::optional<pid_t> named = named_thread(r.thread);
  if (named && *named == 0) {
    reply(error_reply(rsp::ErrorCode::NoSuchThread));
    return;
  }
  pid_t chosen = named ? *named : 0;  // "any" or "all": the thread of the last stop
  if (r.purpose == rsp::SetThread::Purpose::General) {
    general_thread_ = chosen;
  } else {
    continue_thread_ = chosen;
  }
  reply(rsp::ok());
}

ResumeRequest GdbSession::legacy_step() const {
  ResumeRequest r = forward(ResumeRequest::How::Step);
  if (continue_thread_ != 0 && thread_alive(continue_thread_)) r.thread = continue_thread_;
  return r;
}

std::string GdbSession::threads_xml() const {
  std::ostringstream os;
  os << "<?xml version=\"1.0\"?>\n<threads>\n";
  if (!exited_) {
    for (pid_t tid : target_.thread_ids()) {
      os << "<thread id=\"" << rsp::to_string(thread_id(tid)) << "\" name=\""
         << xml_escape(target_.thread_name(tid)) << "\"/>\n";
    }
  }
  os << "</threads>\n";
  return os.str();
}

}  // namespace backstep::gdb
