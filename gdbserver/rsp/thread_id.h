// Thread ids as the RSP spells them: "<tid>" or, once multiprocess+ is
// negotiated, "p<pid>.<tid>", both in hex, where 0 means "any" and -1 means
// "all". "p<pid>" alone means every thread of that process.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace backstep::rsp {

struct ThreadId {
  enum class Kind : std::uint8_t { Any, All, Specific };

  static constexpr std::int64_t kAny = 0;
  static constexpr std::int64_t kAll = -1;

  // Which threads: 0 on the wire is Any, -1 is All, anything else Specific.
  Kind kind = Kind::Any;
  // The wire value: kAny, kAll or the (positive) thread id.
  std::int64_t tid = kAny;
  // Only in the "p<pid>.<tid>" form: kAny, kAll or the process id.
  std::optional<std::int64_t> pid;

  static ThreadId any() { return {Kind::Any, kAny, std::nullopt}; }
  static ThreadId all() { return {Kind::All, kAll, std::nullopt}; }
  static ThreadId specific(std::int64_t tid) { return {Kind::Specific, tid, std::nullopt}; }
  static ThreadId in_process(std::int64_t pid, std::int64_t tid);

  bool is_specific() const { return kind == Kind::Specific; }
  bool operator==(const ThreadId&) const = default;
};

// nullopt for anything that is not exactly one of the forms above (empty,
// non-hex, a value over INT64_MAX, a negative other than -1, or a specific
// thread of "all processes").
std::optional<ThreadId> parse_thread_id(std::string_view text);

// The wire form: "p1a2.1a3", "p1a2.-1", "-1", "1a3".
std::string to_string(const ThreadId& id);

}  // namespace backstep::rsp
