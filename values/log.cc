#include "values/log.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace backstep {
namespace {

const char* module_name(LogModule module) {
  switch (module) {
    case LogModule::Record: return "record";
    case LogModule::Replay: return "replay";
    case LogModule::Trace: return "trace";
    case LogModule::Core: return "core";
    case LogModule::Cli: return "cli";
  }
  return "?";
}

bool parse_enabled(LogModule module) {
  const char* spec = std::getenv("BACKSTEP_LOG");
  if (!spec) return false;
  std::string list = std::string(",") + spec + ",";
  return list.find(",all,") != std::string::npos ||
         list.find(std::string(",") + module_name(module) + ",") != std::string::npos;
}

}  // namespace

bool log_enabled(LogModule module) {
  static const bool enabled[] = {
      parse_enabled(LogModule::Record), parse_enabled(LogModule::Replay),
      parse_enabled(LogModule::Trace), parse_enabled(LogModule::Core),
      parse_enabled(LogModule::Cli)};
  return enabled[static_cast<int>(module)];
}

void log_line(LogModule module, const std::string& text) {
  std::fprintf(stderr, "[%s] %s\n", module_name(module), text.c_str());
}

void assertion_failed(const char* file, int line, const char* cond,
                      const std::string& context) {
  const char* base = std::strrchr(file, '/');
  std::ostringstream os;
  os << "internal error at " << (base ? base + 1 : file) << ":" << line
     << ": assertion '" << cond << "' failed: " << context;
  throw AssertionFailure(os.str());
}

}  // namespace backstep
