#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "cli/commands.h"
#include "cli/find_program.h"
#include "cli/trace_dir.h"
#include "cli/until_fail.h"
#include "engine/record/record_session.h"

extern char** environ;

namespace backstep::cli {
namespace {


// The preload library that buffers system calls (preload/): next to the
// backstep executable, in ../lib, unless BACKSTEP_PRELOAD names another.
// Empty (with a warning) when there is none: recording then stops at every
// call, which is slower but records the same.
std::string find_preload_library() {
  if (const char* given = std::getenv("BACKSTEP_PRELOAD")) return given;  // checked by record_command
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::filesystem::path lib = self.parent_path().parent_path() / "lib" / "libbackstep_preload.so";
    if (std::filesystem::exists(lib, ec)) return lib.string();
  }
  warning("libbackstep_preload.so not found next to backstep (../lib): recording without syscall buffering");
  return "";
}

}  // namespace

// A positive number option's value (--max-runs 50), or nullopt after saying why.
std::optional<double> number_option(const Args& args, size_t& i, double low, double high) {
  if (i + 1 >= args.size()) {
    error(args[i] + " needs a value");
    return std::nullopt;
  }
  const std::string& text = args[++i];
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= low && v <= high)) {
    error(args[i - 1] + " takes a number from " + std::to_string(static_cast<long>(low)) + " to " +
          std::to_string(static_cast<long>(high)) + ", not '" + text + "'");
    return std::nullopt;
  }
  return v;
}

int record_command(const Args& args) {
  RecordOptions options;
  std::string out_dir;
  bool until_fail = false;
  bool chaos = false;
  std::optional<uint64_t> chaos_seed;
  UntilFailOptions until;
  Args passed;  // record's own options, for each --until-fail run
  // BACKSTEP_SYSCALL_BUFFER=0 is --no-syscall-buffer for every recording
  // (scripts/test runs the scenarios both ways).
  const char* env_buffer = std::getenv("BACKSTEP_SYSCALL_BUFFER");
  bool buffer = !(env_buffer && std::string(env_buffer) == "0");
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") { ++i; break; }
    if (a == "-o" || a == "--output") {
      if (i + 1 >= args.size()) { error("-o needs a directory"); return kExitUsage; }
      out_dir = args[++i];
      continue;
    }
    if (a == "--until-fail") {
      until_fail = true;
      continue;
    }
    if (a == "--max-runs" || a == "--jobs" || a == "--timeout") {
      auto v = number_option(args, i, a == "--timeout" ? 0.001 : 1, a == "--jobs" ? 64 : 1e9);
      if (!v) return kExitUsage;
      if (a == "--max-runs") until.max_runs = static_cast<int>(*v);
      if (a == "--jobs") until.jobs = static_cast<int>(*v);
      if (a == "--timeout") until.timeout_s = *v;
      continue;
    }
    if (a == "--chaos") {
      chaos = true;
      passed.push_back(a);  // each --until-fail run picks its own seed
      continue;
    }
    if (a == "--chaos-seed") {
      auto v = number_option(args, i, 0, 1.8e19);
      if (!v) return kExitUsage;
      chaos_seed = static_cast<uint64_t>(*v);
      continue;
    }
    if (a == "--fail-if") {
      if (i + 1 >= args.size()) { error("--fail-if needs a regular expression"); return kExitUsage; }
      try {
        until.fail_if.emplace(args[++i], std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        error("--fail-if '" + args[i] + "' is not a regular expression: " + e.what());
        return kExitUsage;
      }
      continue;
    }
    if (a.rfind("--", 0) == 0) passed.push_back(a);  // record's own options, checked below
    if (a.rfind("--compress=", 0) == 0) {
      std::string codec = a.substr(11);
      if (codec == "zstd") options.codec = trace::Codec::Zstd;
      else if (codec == "zlib") options.codec = trace::Codec::Zlib;
      else { error("unknown compression '" + codec + "' (zstd or zlib)"); return kExitUsage; }
    } else if (a == "--cpuid-faulting") {
      options.cpuid_faulting = true;
    } else if (a == "--no-syscall-buffer") {
      buffer = false;
    } else if (a.size() > 1 && a[0] == '-') {
      error("unknown option '" + a + "' for record");
      return kExitUsage;
    } else {
      break;
    }
  }
  if (i >= args.size()) { error("record: no program given"); return kExitUsage; }
  options.argv.assign(args.begin() + static_cast<long>(i), args.end());
  bool search_options = until.max_runs != 1000 || until.jobs != 1 || until.timeout_s > 0 || until.fail_if;
  if (search_options && !until_fail) {
    error("--max-runs, --jobs, --timeout and --fail-if go with --until-fail");
    return kExitUsage;
  }
  if (chaos_seed && !chaos) {
    error("--chaos-seed goes with --chaos");
    return kExitUsage;
  }
  if (chaos_seed && until_fail) {
    error("--chaos-seed is for one recording: each --until-fail run picks its own");
    return kExitUsage;
  }
  if (until_fail) {
    until.out_dir = out_dir;
    until.program = options.argv[0];
    until.record_args = passed;
    until.record_args.push_back("--");
    until.record_args.insert(until.record_args.end(), options.argv.begin(), options.argv.end());
    int err = 0;
    if (find_program(options.argv[0], err).empty()) {
      error("cannot run '" + options.argv[0] + "': " + std::strerror(err));
      return kExitNotFound;
    }
    return record_until_fail(until);
  }
  int err = 0;
  options.exe = find_program(options.argv[0], err);
  if (options.exe.empty()) {
    error("cannot run '" + options.argv[0] + "': " + std::strerror(err));
    return kExitNotFound;
  }
  for (char** e = environ; *e; ++e) options.envp.push_back(*e);
  if (buffer) {
    options.preload_library = find_preload_library();
    // A library named by hand must be one: ld.so would only print a warning
    // into the program's stderr and go on without it.
    const char* given = std::getenv("BACKSTEP_PRELOAD");
    if (given && (options.preload_library.empty() || options.preload_library.find(':') != std::string::npos ||
                  options.preload_library.find(' ') != std::string::npos ||
                  access(options.preload_library.c_str(), R_OK) != 0)) {
      error("BACKSTEP_PRELOAD='" + options.preload_library +
            "' is not a readable library file (unset it, or use --no-syscall-buffer)");
      return kExitUsage;
    }
    if (given && options.preload_library[0] != '/') {
      options.preload_library = std::filesystem::absolute(options.preload_library).string();
    }
  }

  if (chaos) {
    if (!chaos_seed) {
      uint64_t seed = 0;
      if (getrandom(&seed, sizeof seed, 0) != sizeof seed) seed = static_cast<uint64_t>(time(nullptr)) ^ getpid();
      chaos_seed = seed;
    }
    options.chaos_seed = chaos_seed;
    std::fprintf(stderr, "backstep: chaos scheduling, seed %llu\n", static_cast<unsigned long long>(*chaos_seed));
  }
  bool default_place = out_dir.empty();
  options.trace_dir = default_place ? new_trace_dir(options.argv[0]) : out_dir;
  if (std::filesystem::exists(std::filesystem::symlink_status(options.trace_dir))) {
    error("trace directory " + options.trace_dir + " already exists");
    return kExitUsage;
  }
  // The program inherits our signal dispositions and mask as they are now;
  // RecordSession::run() handles Ctrl-C and friends (recorder_signals.h).
  RecordSession session(options);
  RecordResult result = session.run();
  if (default_place) set_latest_trace(options.trace_dir);
  if (!result.completed) {
    error("recording stopped: " + result.stop_reason);
    error("the trace in " + options.trace_dir + " replays up to that point");
    // Stopped by a signal sent to us: exit as a shell reports that signal.
    return result.stop_signal ? 128 + result.stop_signal : kExitFailure;
  }
  return result.exit_status;
}

}  // namespace backstep::cli
