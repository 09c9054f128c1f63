// A scratch directory for one test, removed with everything in it at the end.
#pragma once

#include <stdlib.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <string>

namespace backstep::testing {

struct TempDir {
  std::string path;
  // `prefix` names the test in /tmp: "/tmp/trace_test.XXXXXX".
  explicit TempDir(const std::string& prefix) {
    std::string tmpl = "/tmp/" + prefix + ".XXXXXX";
    BOOST_REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string sub(const std::string& name) const { return path + "/" + name; }
};

}  // namespace backstep::testing
