// `monitor` commands (qRcmd): positions, checkpoints and their bound.
#include <sstream>
#include <stdexcept>

#include "gdbserver/gdb_session.h"

namespace backstep::gdb {
namespace {

const char kHelp[] =
    "backstep monitor commands:\n"
    "  when                    the current event number and position\n"
    "  checkpoint              make a checkpoint here\n"
    "  info checkpoints        list the checkpoints\n"
    "  delete checkpoint N     delete checkpoint N\n"
    "  checkpoint-stats        the automatic checkpoints: limit, live, evicted\n"
    "  set max-checkpoints N   keep at most N automatic checkpoints (evicts now)\n"
    "  set max-checkpoint-memory MIB  at most MIB MiB held by them (evicts now)\n"
    "To go back to checkpoint N use `run cN` (`restart N` under `backstep replay`);\n"
    "`run N` restarts at event N. gdb then re-reads registers and memory.\n";

bool parse_int(const std::string& text, int& out) {
  try {
    std::size_t used = 0;
    out = std::stoi(text, &used);
    return used == text.size();
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::string GdbSession::monitor(const std::string& command, bool& limit_reached) {
  std::istringstream in(command);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  std::ostringstream out;
  if (words.empty() || words[0] == "help") return kHelp;
  if (words[0] == "when") {
    out << "Current event: " << target_.current_event() << "\n";
    out << "Position: " << target_.describe_position() << "\n";
  } else if (words[0] == "checkpoint" && words.size() == 1) {
    if (target_.checkpoints().size() >= kMaxCheckpoints) {
      limit_reached = true;
      out << "Too many checkpoints: " << kMaxCheckpoints << " is the limit; delete one with "
          << "`monitor delete checkpoint N` first.\n";
      return out.str();
    }
    int id = target_.create_checkpoint();
    out << "Checkpoint " << id << " at " << target_.describe_position() << "\n";
  } else if (words.size() == 2 && words[0] == "info" && words[1] == "checkpoints") {
    std::vector<CheckpointInfo> cps = target_.checkpoints();
    if (cps.empty()) out << "No checkpoints.\n";
    for (const CheckpointInfo& cp : cps) out << cp.id << "  event " << cp.event << "  (" << cp.where << ")\n";
  } else if (words.size() == 3 && words[0] == "delete" && words[1] == "checkpoint") {
    int id = 0;
    if (!parse_int(words[2], id) || !target_.delete_checkpoint(id)) {
      out << "No checkpoint " << words[2] << ".\n";
    } else {
      out << "Deleted checkpoint " << id << ".\n";
    }
  } else if (words.size() == 1 && words[0] == "checkpoint-stats") {
    CheckpointStats s = target_.checkpoint_stats();
    out << "Automatic checkpoints: " << s.automatic << " live, at most " << s.limit << " (peak " << s.peak << ", "
        << s.evicted << " evicted)\n";
    out << "User checkpoints: " << s.user << "\n";
    out << "Checkpoint memory: " << s.memory_kib << " KiB, at most " << s.memory_limit_kib << " KiB ("
        << s.evicted_for_memory << " evicted for memory)\n";
  } else if (words.size() == 3 && words[0] == "set" && words[1] == "max-checkpoints") {
    int limit = 0;
    if (!parse_int(words[2], limit) || limit < 0) {
      // Like `delete checkpoint`'s unknown number: said, nothing changed.
      out << "Bad checkpoint limit '" << words[2] << "': not a number; nothing changed.\n";
    } else {
      try {
        target_.set_checkpoint_limit(static_cast<std::size_t>(limit));
        out << "At most " << limit << " automatic checkpoints.\n";
      } catch (const std::invalid_argument& e) {
        out << "Bad checkpoint limit " << limit << ": " << e.what() << "; nothing changed.\n";
      }
    }
  } else if (words.size() == 3 && words[0] == "set" && words[1] == "max-checkpoint-memory") {
    int mib = 0;
    if (!parse_int(words[2], mib) || mib < 1) {
      out << "Bad checkpoint memory limit '" << words[2] << "': a number of MiB from 1; nothing changed.\n";
    } else {
      target_.set_checkpoint_memory_limit(static_cast<uint64_t>(mib) * 1024);
      out << "At most " << mib << " MiB held by automatic checkpoints.\n";
    }
  } else if (words.size() == 2 && words[0] == "restart") {
    // Moving here behind gdb's back would leave its caches stale.
    out << "Use `run c" << words[1] << "` (or `restart " << words[1] << "` under `backstep replay`) to go back to "
        << "checkpoint " << words[1] << ": gdb must re-read the program's state.\n";
  } else {
    out << "Unknown monitor command '" << command << "'.\n" << kHelp;
  }
  return out.str();
}

void GdbSession::handle(const rsp::MonitorCommand& r) {
  bool limit_reached = false;
  connection_.send_packet(rsp::console_output(monitor(r.command, limit_reached)));
  // An error makes the gdb command fail (a script stops there), after the
  // text above says why.
  reply(limit_reached ? error_reply(rsp::ErrorCode::LimitReached) : rsp::ok());
}

}  // namespace backstep::gdb
