// Shared by the reverse-execution benchmarks (reverse_bench.cc and the
// experiments in their own files): timing, a tiny JSON writer, symbol
// lookup, options, recording a workload, moving a timeline.
#pragma once

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/record/record_session.h"
#include "engine/timeline/replay_timeline.h"

#ifndef REVERSE_WORKLOAD
#define REVERSE_WORKLOAD ""
#endif

namespace backstep::bench {

// ---------------------------------------------------------------- utilities

using Clock = std::chrono::steady_clock;

// CPU time (user + system) of this process: the tracer's side of replay,
// where almost all of its cost lies; less disturbed by other load than wall time.
inline double cpu_seconds() {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

inline void progress(const std::string& line) { std::cerr << "  [reverse_bench] " << line << std::endl; }

class BenchFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

#define CHECK(cond, msg)                                            \
  do {                                                              \
    if (!(cond)) {                                                  \
      std::ostringstream check_os_;                                 \
      check_os_ << msg;                                             \
      throw BenchFailure(std::string(#cond) + ": " + check_os_.str()); \
    }                                                               \
  } while (0)

// A tiny JSON value, enough for the results.
class Json {
 public:
  Json() : kind_(Kind::Null) {}
  Json(double v) : kind_(Kind::Number), num_(v) {}
  Json(int v) : Json(static_cast<double>(v)) {}
  Json(long v) : Json(static_cast<double>(v)) {}
  Json(unsigned long v) : Json(static_cast<double>(v)) {}
  Json(long long v) : Json(static_cast<double>(v)) {}
  Json(unsigned long long v) : Json(static_cast<double>(v)) {}
  Json(bool v) : kind_(Kind::Bool), bool_(v) {}
  Json(const char* s) : kind_(Kind::String), str_(s) {}
  Json(std::string s) : kind_(Kind::String), str_(std::move(s)) {}
  static Json array() { Json j; j.kind_ = Kind::Array; return j; }
  static Json object() { Json j; j.kind_ = Kind::Object; return j; }
  template <typename T>
  static Json array_of(const std::vector<T>& v) {
    Json j = array();
    for (const T& x : v) j.push(Json(x));
    return j;
  }

  Json& push(Json v) { items_.push_back(std::move(v)); return *this; }
  Json& set(const std::string& key, Json v) {
    for (auto& [k, val] : fields_) {
      if (k == key) { val = std::move(v); return *this; }
    }
    fields_.emplace_back(key, std::move(v));
    return *this;
  }
  Json& operator[](const std::string& key) {
    for (auto& [k, val] : fields_) if (k == key) return val;
    fields_.emplace_back(key, Json());
    return fields_.back().second;
  }

  void write(std::ostream& os, int indent = 0) const {
    std::string pad(indent + 2, ' ');
    switch (kind_) {
      case Kind::Null: os << "null"; break;
      case Kind::Bool: os << (bool_ ? "true" : "false"); break;
      case Kind::Number:
        if (!std::isfinite(num_)) {
          os << "null";
        } else if (num_ == std::floor(num_) && std::fabs(num_) < 1e15) {
          os << static_cast<long long>(num_);
        } else {
          char buf[40];
          std::snprintf(buf, sizeof buf, "%.6g", num_);
          os << buf;
        }
        break;
      case Kind::String: write_string(os, str_); break;
      case Kind::Array: {
        bool scalars = std::all_of(items_.begin(), items_.end(),
                                   [](const Json& j) { return j.kind_ != Kind::Array && j.kind_ != Kind::Object; });
        os << "[";
        for (std::size_t i = 0; i < items_.size(); ++i) {
          if (i) os << ",";
          if (!scalars) os << "\n" << pad;
          else if (i) os << " ";
          items_[i].write(os, indent + 2);
        }
        if (!scalars && !items_.empty()) os << "\n" << std::string(indent, ' ');
        os << "]";
        break;
      }
      case Kind::Object:
        os << "{";
        for (std::size_t i = 0; i < fields_.size(); ++i) {
          os << (i ? ",\n" : "\n") << pad;
          write_string(os, fields_[i].first);
          os << ": ";
          fields_[i].second.write(os, indent + 2);
        }
        if (!fields_.empty()) os << "\n" << std::string(indent, ' ');
        os << "}";
        break;
    }
  }

 private:
  enum class Kind { Null, Bool, Number, String, Array, Object };
  static void write_string(std::ostream& os, const std::string& s) {
    os << '"';
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') os << '\\' << c;
      else if (c == '\n') os << "\\n";
      else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); os << b; }
      else os << c;
    }
    os << '"';
  }
  Kind kind_;
  double num_ = 0;
  bool bool_ = false;
  std::string str_;
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> fields_;
};

inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  // Linear interpolation between closest ranks (numpy's default).
  double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  std::size_t lo = static_cast<std::size_t>(std::floor(rank));
  std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}
inline double median(const std::vector<double>& v) { return percentile(v, 50); }
inline double mean(const std::vector<double>& v) {
  return v.empty() ? NAN : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

inline Json summary(const std::vector<double>& v) {
  Json j = Json::object();
  j.set("n", v.size());
  j.set("median", median(v));
  j.set("p90", percentile(v, 90));
  j.set("min", v.empty() ? NAN : *std::min_element(v.begin(), v.end()));
  j.set("max", v.empty() ? NAN : *std::max_element(v.begin(), v.end()));
  j.set("mean", mean(v));
  return j;
}

inline std::string hex(uint64_t v) {
  std::ostringstream os;
  os << std::hex << v;
  return os.str();
}

struct Symbol {
  uint64_t addr = 0;
  uint64_t size = 0;
};

inline Symbol find_symbol(const std::string& path, const std::string& name) {
  elf_version(EV_CURRENT);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw BenchFailure("cannot open " + path);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  Symbol found;
  Elf_Scn* scn = nullptr;
  while (elf && (scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    gelf_getshdr(scn, &sh);
    if (sh.sh_type != SHT_SYMTAB) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Sym sym;
      gelf_getsym(data, static_cast<int>(i), &sym);
      const char* n = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (n && name == n && GELF_ST_TYPE(sym.st_info) == STT_FUNC) found = {sym.st_value, sym.st_size};
    }
  }
  if (elf) elf_end(elf);
  close(fd);
  if (!found.addr) throw BenchFailure("no function symbol " + name + " in " + path);
  return found;
}

// ------------------------------------------------------------ configuration

struct Config {
  std::string experiment;
  std::string json_out;
  std::string workload = REVERSE_WORKLOAD;
  std::string tmp;
  bool keep = false;
  std::map<std::string, std::string> opts;

  std::string str(const std::string& key, const std::string& def) const {
    auto it = opts.find(key);
    return it == opts.end() ? def : it->second;
  }
  long num(const std::string& key, long def) const {
    auto it = opts.find(key);
    if (it == opts.end()) return def;
    char* end = nullptr;
    long v = std::strtol(it->second.c_str(), &end, 10);
    if (!end || *end || v < 0) throw std::invalid_argument("--" + key + " wants a non-negative integer");
    return v;
  }
  std::vector<long> list(const std::string& key, const std::string& def) const {
    std::vector<long> out;
    std::stringstream ss(str(key, def));
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (item.empty()) continue;
      char* end = nullptr;
      long v = std::strtol(item.c_str(), &end, 10);
      if (!end || *end || v <= 0) throw std::invalid_argument("--" + key + " wants positive integers, comma-separated");
      out.push_back(v);
    }
    if (out.empty()) throw std::invalid_argument("--" + key + " is empty");
    return out;
  }
};

// A recording of the workload in a fresh directory under cfg.tmp.
inline std::string record(const Config& cfg, const std::string& name, const std::vector<std::string>& args,
                   Json& info) {
  std::string dir = cfg.tmp + "/" + name;
  std::filesystem::remove_all(dir);
  RecordOptions options;
  options.exe = cfg.workload;
  options.argv = {cfg.workload};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.trace_dir = dir;
  auto t0 = Clock::now();
  RecordResult result = RecordSession(options).run();
  double s = seconds_since(t0);
  CHECK(result.completed, "recording " << name << " stopped early: " << result.stop_reason);
  CHECK(result.exit_status == 0, "recorded workload " << name << " exited with " << result.exit_status);
  std::ostringstream cmd;
  for (std::size_t i = 1; i < options.argv.size() && i < 6; ++i) cmd << (i > 1 ? " " : "") << options.argv[i];
  if (options.argv.size() > 6) cmd << " ... (" << options.argv.size() - 1 << " arguments)";
  info.set("workload", cmd.str());
  info.set("events", result.events);
  info.set("record_s", s);
  progress("recorded '" + cmd.str() + "': " + std::to_string(result.events) + " events in " +
           std::to_string(s).substr(0, 5) + " s");
  return dir;
}

constexpr auto kFwd = RunDirection::Forward;
constexpr auto kBack = RunDirection::Backward;

inline TargetStop go(ReplayTimeline& t, RunDirection dir, ResumeRequest::How how = ResumeRequest::How::Continue) {
  ResumeRequest r;
  r.direction = dir;
  r.how = how;
  return t.resume(r, nullptr);
}

inline uint64_t read_u64(ReplayTimeline& t, uint64_t addr) {
  std::vector<uint8_t> b = t.read_memory(addr, 8);
  CHECK(b.size() == 8, "cannot read 8 bytes at 0x" << std::hex << addr);
  uint64_t v;
  std::memcpy(&v, b.data(), 8);
  return v;
}

inline long vm_rss_kb(const std::string& status_path) {
  std::ifstream in(status_path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

// /proc/LIVE/status of the process the timeline is replaying now.
inline std::string replayed_status_path(ReplayTimeline& t) {
  std::optional<std::string> maps = t.recorded_file("/proc/" + std::to_string(t.process_id()) + "/maps");
  CHECK(maps && maps->size() > 4, "no /proc path for the replayed process");
  return maps->substr(0, maps->size() - 4) + "status";
}

// Experiments in files of their own.
Json bench_hits(const Config& cfg);  // hits_experiment.cc

}  // namespace backstep::bench
