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

namespace {

std::string read_proc_file(pid_t pid, const char* name) {
  std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

std::vector<MapsEntry> read_proc_maps(pid_t pid) { return parse_proc_maps(read_proc_file(pid, "maps")); }

std::vector<ForkDifference> parse_fork_differences(const std::string& smaps) {
  std::vector<ForkDifference> out;
  std::istringstream lines(smaps);
  std::string line;
  uint64_t start = 0, end = 0;
  while (std::getline(lines, line)) {
    // A mapping's first line starts with its range ("7f00-7f10 rw-p ...");
    // its fields are "Name: value" lines, VmFlags last.
    std::size_t dash = line.find('-');
    std::size_t space = line.find(' ');
    if (dash != std::string::npos && space != std::string::npos && dash < space &&
        line.find(':') > space) {
      start = std::stoull(line.substr(0, dash), nullptr, 16);
      end = std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16);
      continue;
    }
    if (line.rfind("VmFlags:", 0) != 0) continue;
    std::istringstream flags(line.substr(8));
    std::string flag;
    bool wipe = false, dropped = false;
    while (flags >> flag) {
      wipe |= flag == "wf";
      dropped |= flag == "dc";
    }
    if (dropped) {
      out.push_back({start, end, true});
    } else if (wipe) {
      out.push_back({start, end, false});
    }
  }
  return out;
}

std::vector<ForkDifference> read_fork_differences(pid_t pid) {
  return parse_fork_differences(read_proc_file(pid, "smaps"));
}

}  // namespace backstep
