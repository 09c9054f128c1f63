// `backstep record --until-fail`: recording a program again and again until
// a run fails (until_fail.cc).
#pragma once

#include <optional>
#include <regex>
#include <string>

#include "cli/commands.h"

namespace backstep::cli {

struct UntilFailOptions {
  int max_runs = 1000;
  int jobs = 1;
  double timeout_s = 0;  // per run; 0: none
  std::optional<std::regex> fail_if;
  std::string out_dir;   // -o: the kept trace's directory ("" for the trace root's NAME-N)
  std::string program;   // for the trace's name
  Args record_args;      // record's other options, then -- PROG ARGS
};

// Exit status 0 when a failing run's trace was kept, 1 when no run failed
// within max_runs, 125 when the recorder itself failed.
int record_until_fail(const UntilFailOptions& options);

}  // namespace backstep::cli
