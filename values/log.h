// Per-module logging, switched on by BACKSTEP_LOG (e.g. BACKSTEP_LOG=record,replay
// or BACKSTEP_LOG=all), and assertions that stay on in release builds and say
// which task, which event, what was expected.
#pragma once

#include <sstream>
#include <string>

namespace backstep {

enum class LogModule { Record, Replay, Trace, Core, Cli };

bool log_enabled(LogModule module);
void log_line(LogModule module, const std::string& text);

// An internal invariant broke. Thrown, so the CLI can report it, leave the
// trace consistent and exit non-zero instead of crashing.
class AssertionFailure : public std::runtime_error {
 public:
  explicit AssertionFailure(const std::string& what) : std::runtime_error(what) {}
};

[[noreturn]] void assertion_failed(const char* file, int line, const char* cond,
                                   const std::string& context);

}  // namespace backstep

#define BS_LOG(module, expr)                                            \
  do {                                                                  \
    if (::backstep::log_enabled(::backstep::LogModule::module)) {       \
      std::ostringstream bs_log_os_;                                    \
      bs_log_os_ << expr;                                               \
      ::backstep::log_line(::backstep::LogModule::module, bs_log_os_.str()); \
    }                                                                   \
  } while (0)

// BS_ASSERT(cond, "tid " << tid << " event " << n << ": expected ...")
#define BS_ASSERT(cond, context)                                             \
  do {                                                                       \
    if (!(cond)) {                                                           \
      std::ostringstream bs_assert_os_;                                      \
      bs_assert_os_ << context;                                              \
      ::backstep::assertion_failed(__FILE__, __LINE__, #cond, bs_assert_os_.str()); \
    }                                                                        \
  } while (0)
