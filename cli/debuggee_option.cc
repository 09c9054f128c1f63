#include "cli/debuggee_option.h"

#include <stdexcept>

namespace backstep::cli {

OptionRead read_debuggee_option(const Args& args, std::size_t& i, bool short_p, DebuggeeChoice& choice) {
  const std::string& a = args[i];
  DebuggeeChoice::From from;
  if (a == "--process" || (short_p && a == "-p")) {
    from = DebuggeeChoice::From::Start;
  } else if (a == "--onfork") {
    from = DebuggeeChoice::From::Fork;
  } else if (a == "--onexec") {
    from = DebuggeeChoice::From::Exec;
  } else {
    return OptionRead::NotMine;
  }
  if (choice.pid != 0) {
    error("choose one process: -p/--process, --onfork and --onexec exclude each other");
    return OptionRead::Bad;
  }
  if (i + 1 >= args.size()) {
    error(a + " needs a process id (`backstep ps` lists them)");
    return OptionRead::Bad;
  }
  const std::string& text = args[++i];
  bool digits = !text.empty() && text.size() <= 10 && text.find_first_not_of("0123456789") == std::string::npos;
  unsigned long pid = digits ? std::stoul(text) : 0;
  if (pid == 0 || pid > 0x7fffffff) {
    error("bad process id '" + text + "' for " + a + ": a recorded pid, as `backstep ps` shows it");
    return OptionRead::Bad;
  }
  choice.pid = static_cast<uint32_t>(pid);
  choice.from = from;
  return OptionRead::Read;
}

bool check_debuggee(const std::string& dir, const DebuggeeChoice& choice) {
  try {
    ReplayTimeline::start_event(dir, choice);
  } catch (const std::runtime_error& e) {
    error(e.what());
    return false;
  }
  return true;
}

}  // namespace backstep::cli
