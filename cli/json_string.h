// A string as a JSON string literal: quotes, backslashes and control
// characters escaped, other bytes as they are (UTF-8 stays UTF-8). It is a
// Python string literal too. The IDE configurations (ide_command.cc) and
// lldb's exec hook (lldb_exec_hook.cc) write paths with it.
#pragma once

#include <cstdio>
#include <sstream>
#include <string>

namespace backstep::cli {

inline std::string json_string(const std::string& s) {
  std::ostringstream out;
  out << '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out << "\\\""; break;
      case '\\': out << "\\\\"; break;
      case '\n': out << "\\n"; break;
      case '\t': out << "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out << buf;
        } else {
          out << c;
        }
    }
  }
  out << '"';
  return out.str();
}

}  // namespace backstep::cli
