#include "cli/find_program.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace backstep::cli {

std::string find_program(const std::string& prog, int& err) {
  auto usable = [&](const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) { err = errno; return false; }
    if (S_ISDIR(st.st_mode)) { err = EISDIR; return false; }
    if (access(path.c_str(), X_OK) != 0) { err = errno; return false; }
    return true;
  };
  err = ENOENT;
  if (prog.find('/') != std::string::npos) return usable(prog) ? prog : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + prog;
    if (usable(candidate)) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  err = ENOENT;
  return "";
}

}  // namespace backstep::cli
