#include "engine/core/proc_maps.h"

#include <sys/mman.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace backstep {

std::vector<MapsEntry> parse_proc_maps(const std::string& text) {
  std::vector<MapsEntry> entries;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    std::istringstream in(line);
    std::string range, perms, offset, dev, inode;
    in >> range >> perms >> offset >> dev >> inode;
    MapsEntry e;
    auto dash = range.find('-');
    if (dash == std::string::npos || perms.size() < 4) {
      throw std::runtime_error("malformed maps line: " + line);
    }
    e.start = std::stoull(range.substr(0, dash), nullptr, 16);
    e.end = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (perms[0] == 'r') e.prot |= PROT_READ;
    if (perms[1] == 'w') e.prot |= PROT_WRITE;
    if (perms[2] == 'x') e.prot |= PROT_EXEC;
    e.shared = perms[3] == 's';
    e.offset = std::stoull(offset, nullptr, 16);
    e.dev = dev;
    e.inode = std::stoull(inode);
    std::string rest;
    std::getline(in, rest);
    auto first = rest.find_first_not_of(' ');
    e.name = first == std::string::npos ? "" : rest.substr(first);
    entries.push_back(e);
  }
  return entries;
}

std::vector<MapsEntry> read_proc_maps(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/maps";
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_proc_maps(ss.str());
}

}  // namespace backstep
