// The content-addressed store that traces of one trace root share:
// `<root>/.backstep-files/`, one read-only file per distinct content, each
// hard-linked into the `files/` of every trace that mapped that content.
// These inodes are copies that backstep made: no host file ever shares one.
// Private to engine/trace; FileStore uses it when the directory exists.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "engine/trace/file_digest.h"

namespace backstep::trace {

inline constexpr const char* kSharedFilesDir = ".backstep-files";

class SharedFiles {
 public:
  // The store in `root`, or nullopt when there is none or it is not safe to
  // share through: it must be a directory of ours that nobody else can write
  // (mode 0700), since a file someone else put there would end up in our traces.
  static std::optional<SharedFiles> open(const std::string& root);

  // Removes the entries that no trace links any more (link count 1).
  // Best effort: a failure leaves an entry for next time.
  void collect_unused() const;

  // Hard-links at `dest` the entry for `digest` and `mode`, if there is one
  // whose bytes equal those of the file open at `fd`. The hash only finds
  // the candidate; the bytes decide, so a hash collision can never put the
  // wrong content in a trace. Returns false (having created nothing) when
  // there is no such entry.
  bool link_existing(const FileDigest& digest, mode_t mode, int fd, const std::string& dest) const;

  // Adds `path` (a finished, read-only copy whose content is `digest`) as
  // the entry for its content, unless one exists. Best effort.
  void publish(const std::string& path, const FileDigest& digest, mode_t mode) const;

  // The entry's name: hash, size and mode, e.g. "1f0c9a2b3c4d5e6f-2125328-555".
  static std::string entry_name(const FileDigest& digest, mode_t mode);

 private:
  explicit SharedFiles(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

}  // namespace backstep::trace
