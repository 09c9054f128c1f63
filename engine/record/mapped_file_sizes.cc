#include "engine/record/mapped_file_sizes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace backstep {

MappedFileSizes::~MappedFileSizes() {
  for (const Watched& w : watched_) ::close(w.fd);
}

void MappedFileSizes::watch(const std::string& fd_path, uint64_t object, uint64_t size) {
  for (const Watched& w : watched_) {
    if (w.object == object) return;
  }
  int fd = ::open(fd_path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return;  // gone already: its size cannot change under the program
  watched_.push_back({fd, object, size});
}

void MappedFileSizes::keep_only(const std::set<uint64_t>& mapped) {
  std::erase_if(watched_, [&](const Watched& w) {
    if (mapped.count(w.object)) return false;
    ::close(w.fd);
    return true;
  });
}

void MappedFileSizes::note_changes(trace::Event& event) {
  for (Watched& w : watched_) {
    struct stat st {};
    if (::fstat(w.fd, &st) != 0) continue;
    uint64_t size = static_cast<uint64_t>(st.st_size);
    if (size == w.size) continue;
    w.size = size;
    trace::Mapping note;
    note.kind = trace::MappingKind::FileSize;
    note.shared_object = w.object;
    note.file_size = size;
    event.mappings.push_back(std::move(note));
  }
}

}  // namespace backstep
