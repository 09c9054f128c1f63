// `backstep record --until-fail [--max-runs N] [--jobs J] [--timeout S]
// [--fail-if REGEX] [RECORD-OPTIONS] [--] PROG [ARGS...]`: records PROG again
// and again until a run fails, keeps that run's trace and deletes the others.
//
// Each run is `backstep record -o RUN` in a child process, its output (the
// program's and the recorder's) in a log beside it, all in a private work
// directory under the trace root (or beside -o's directory), so that the
// kept trace is renamed into place, never copied. A run fails when it
// exits non-zero (128+N for a fatal signal), outlives --timeout (its
// recorder is then asked to stop, as `kill` asks it: the trace replays up
// to there), or
// prints a line --fail-if matches. A recorder that fails itself (exit 125
// with its own message) ends the search: running on would fail the same way.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include "cli/commands.h"
#include "cli/remove_tree.h"
#include "cli/trace_dir.h"
#include "cli/until_fail.h"

namespace backstep::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// How long a recorder asked to stop has to end its trace before its run is
// killed outright.
constexpr double kGraceS = 10;

struct Run {
  int number;
  pid_t pid;
  int pidfd;
  std::string dir;  // the run's trace
  std::string log;  // its output
  Clock::time_point started;
  bool timed_out = false;
  Clock::time_point killed_at;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Ctrl-C, SIGTERM, SIGHUP: noted here; the search loop stops every run
// (one SIGTERM to each recorder, which stops its program and ends its
// trace), waits for them, removes everything and dies of the signal.
volatile sig_atomic_t g_stop_signal = 0;
void on_stop(int sig) { g_stop_signal = sig; }

void catch_stop_signals() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // a background job's SIGINT stays ignored
    struct sigaction sa {};
    sa.sa_handler = on_stop;  // no SA_RESTART: the loop's poll returns EINTR
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}

// Stops the runs: SIGTERM once to each recorder, kGraceS for them to end
// their traces, then SIGKILL to what is left of each run's group.
void stop_runs(std::vector<Run>& runs) {
  for (Run& r : runs) kill(r.pid, SIGTERM);
  Clock::time_point asked = Clock::now();
  for (Run& r : runs) {
    pollfd p{r.pidfd, POLLIN, 0};
    int left = std::max(0, static_cast<int>((kGraceS - seconds_since(asked)) * 1000));
    while (poll(&p, 1, left) < 0 && errno == EINTR) {
    }
    kill(-r.pid, SIGKILL);
    while (waitpid(r.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    close(r.pidfd);
  }
  runs.clear();
}

// The recorder, for one run: `backstep record -o DIR OPTIONS -- PROG ARGS`,
// its stdout and stderr in `log`, in a process group of its own (a timeout
// or Ctrl-C stops the whole run).
Run start_run(int number, const std::string& work, const Args& record_args) {
  Run r{number, -1, -1, work + "/run-" + std::to_string(number), work + "/run-" + std::to_string(number) + ".log",
        Clock::now()};
  std::vector<std::string> argv = {"/proc/self/exe", "record", "-o", r.dir};
  argv.insert(argv.end(), record_args.begin(), record_args.end());
  std::vector<char*> c_argv;
  for (std::string& s : argv) c_argv.push_back(s.data());
  c_argv.push_back(nullptr);
  int log = open(r.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log < 0) throw std::runtime_error("cannot create " + r.log + ": " + strerror(errno));
  std::fflush(nullptr);
  r.pid = fork();
  if (r.pid < 0) {
    close(log);
    throw std::runtime_error(std::string("fork: ") + strerror(errno));
  }
  if (r.pid == 0) {
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, STDIN_FILENO);
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    execv("/proc/self/exe", c_argv.data());
    _exit(kExitFailure);
  }
  close(log);
  r.pidfd = static_cast<int>(syscall(SYS_pidfd_open, r.pid, 0));
  if (r.pidfd < 0) throw std::runtime_error(std::string("pidfd_open: ") + strerror(errno));
  return r;
}

// What made a finished run a failure ("" for none).
std::string failure_of(int status, const Run& r, const std::string& output, const std::optional<std::regex>& fail_if) {
  if (r.timed_out) return "it ran past --timeout";
  if (WIFSIGNALED(status)) return "the recorder died of signal " + std::to_string(WTERMSIG(status));
  int code = WEXITSTATUS(status);
  if (code > 128 && code < 128 + 65) return "the program died of signal " + std::to_string(code - 128);
  if (code != 0) return "the program exited with status " + std::to_string(code);
  if (fail_if && std::regex_search(output, *fail_if)) return "its output matched --fail-if";
  return "";
}

// The recorder's own failure (not the program's): exit 125 after a line
// of its own.
bool recorder_failed(int status, const std::string& output) {
  return WIFEXITED(status) && WEXITSTATUS(status) == kExitFailure && output.find("backstep: ") != std::string::npos;
}

void progress(int started, int finished, int failed, Clock::time_point since) {
  if (!isatty(STDERR_FILENO)) return;
  std::fprintf(stderr, "\rbackstep: until-fail: %d runs done, %d running, %d failed, %.1f s ", finished,
               started - finished, failed, seconds_since(since));
  std::fflush(stderr);
}

}  // namespace

int record_until_fail(const UntilFailOptions& o) {
  // The work directory: where the kept trace will live, so that keeping it
  // is a rename.
  std::string final_dir = o.out_dir.empty() ? new_trace_dir(o.program) : fs::absolute(o.out_dir).string();
  if (fs::exists(fs::symlink_status(final_dir))) {
    error("trace directory " + final_dir + " already exists");
    return kExitUsage;
  }
  std::string work = fs::path(final_dir).parent_path().string() + "/.until-fail-XXXXXX";
  if (!mkdtemp(work.data())) {
    error("cannot create a work directory beside " + final_dir + ": " + strerror(errno));
    return kExitFailure;
  }
  catch_stop_signals();
  std::vector<Run> running;
  int started = 0, finished = 0, failed_runs = 0;
  Clock::time_point since = Clock::now();
  std::optional<Run> caught;
  std::string caught_why, caught_output;
  int exit_status = 1;  // no failure within --max-runs
  try {
    while (!caught && (started < o.max_runs || !running.empty())) {
      while (!caught && started < o.max_runs && static_cast<int>(running.size()) < o.jobs) {
        running.push_back(start_run(++started, work, o.record_args));
      }
      progress(started, finished, failed_runs, since);
      // Wait for a run to end, or for the next timeout.
      int timeout_ms = -1;
      for (const Run& r : running) {
        if (o.timeout_s <= 0) continue;
        double due = r.timed_out ? kGraceS - seconds_since(r.killed_at) : o.timeout_s - seconds_since(r.started);
        int left = std::max(0, static_cast<int>(due * 1000));
        timeout_ms = timeout_ms < 0 ? left : std::min(timeout_ms, left);
      }
      std::vector<pollfd> fds;
      for (const Run& r : running) fds.push_back({r.pidfd, POLLIN, 0});
      if (poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) {
        throw std::runtime_error(std::string("poll: ") + strerror(errno));
      }
      if (g_stop_signal) {
        int sig = g_stop_signal;
        stop_runs(running);
        remove_tree(work.c_str());
        if (isatty(STDERR_FILENO)) std::fputc('\n', stderr);
        std::fprintf(stderr, "backstep: until-fail: stopped by %s after %d runs; nothing kept\n", strsignal(sig),
                     finished);
        signal(sig, SIG_DFL);
        raise(sig);
        return 128 + sig;
      }
      for (std::size_t i = running.size(); i-- > 0;) {
        Run& r = running[i];
        if (o.timeout_s > 0 && !r.timed_out && seconds_since(r.started) >= o.timeout_s) {
          // The recorder alone is asked to stop: it ends the program and
          // the trace, which replays up to here.
          r.timed_out = true;
          r.killed_at = Clock::now();
          kill(r.pid, SIGTERM);
          continue;
        }
        if (r.timed_out && seconds_since(r.killed_at) >= kGraceS) kill(-r.pid, SIGKILL);
        int status = 0;
        if (waitpid(r.pid, &status, WNOHANG) != r.pid) continue;
        close(r.pidfd);
        ++finished;
        std::string output = read_file(r.log);
        if (recorder_failed(status, output) && !r.timed_out) {
          throw std::runtime_error("the recorder failed on run " + std::to_string(r.number) + ":\n" + output);
        }
        std::string why = failure_of(status, r, output, o.fail_if);
        if (!why.empty()) {
          ++failed_runs;
          if (!caught) {
            caught = r;
            caught_why = why;
            caught_output = output;
            continue;  // kept; the others go below
          }
        }
        remove_tree(r.dir.c_str());
        unlink(r.log.c_str());
        running.erase(running.begin() + static_cast<long>(i));
      }
      if (caught) {
        // The first failure is the one kept: the runs still going stop.
        std::erase_if(running, [&](const Run& r) { return r.number == caught->number; });
        stop_runs(running);
      }
    }
    if (isatty(STDERR_FILENO)) std::fputc('\n', stderr);
    if (caught) {
      if (rename(caught->dir.c_str(), final_dir.c_str()) != 0) {
        throw std::runtime_error("cannot move the failing run's trace to " + final_dir + ": " + strerror(errno));
      }
      if (o.out_dir.empty()) set_latest_trace(final_dir);
      std::fputs(caught_output.c_str(), stdout);
      std::printf("backstep: run %d of %d failed (%s) after %.1f s; its trace: %s\n", caught->number, started,
                  caught_why.c_str(), seconds_since(since), final_dir.c_str());
      exit_status = 0;
    } else {
      std::printf("backstep: no run failed in %d runs (%.1f s); no trace kept\n", started, seconds_since(since));
    }
  } catch (const std::exception& e) {
    stop_runs(running);
    remove_tree(work.c_str());
    error(std::string("until-fail: ") + e.what());
    return kExitFailure;
  }
  remove_tree(work.c_str());
  return exit_status;
}

}  // namespace backstep::cli
