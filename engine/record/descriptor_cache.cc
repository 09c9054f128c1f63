#include "engine/record/descriptor_cache.h"

#include <sched.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

namespace backstep {
namespace {

// The thread-group id of `tid` (the Tgid line of /proc/TID/status); `tid`
// itself when the thread is gone.
pid_t read_group(pid_t tid) {
  std::ifstream f("/proc/" + std::to_string(tid) + "/status");
  std::string key;
  while (f >> key) {
    if (key == "Tgid:") {
      pid_t tgid = 0;
      if (f >> tgid) return tgid;
      break;
    }
    f.ignore(1 << 16, '\n');
  }
  return tid;
}

}  // namespace

bool DescriptorCache::File::regular() const { return S_ISREG(type); }

dev_t DescriptorCache::proc_device() {
  static const dev_t dev = [] {
    struct stat st {};
    return stat("/proc/self", &st) == 0 ? st.st_dev : dev_t(-1);
  }();
  return dev;
}

pid_t DescriptorCache::group_of(pid_t tid) {
  auto it = groups_.find(tid);
  if (it != groups_.end()) return it->second;
  pid_t tgid = read_group(tid);
  groups_.emplace(tid, tgid);
  return tgid;
}

std::optional<DescriptorCache::File> DescriptorCache::look(pid_t tid, int fd) const {
  std::string path = "/proc/" + std::to_string(tid) + "/fd/" + std::to_string(fd);
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  File f;
  f.dev = st.st_dev;
  f.ino = st.st_ino;
  f.type = st.st_mode & S_IFMT;
  f.proc = st.st_dev == proc_device();
  f.stdio = stdio_.stream_of(tid, fd, st.st_dev, st.st_ino);
  return f;
}

std::optional<DescriptorCache::File> DescriptorCache::file(pid_t tid, int fd) {
  if (fd < 0) return std::nullopt;
  Table& table = table_of(tid);
  if (table.keep_nothing || table.changing > 0) return look(tid, fd);
  auto it = table.files.find(fd);
  if (it != table.files.end()) return it->second;
  std::optional<File> f = look(tid, fd);
  if (f) table.files.emplace(fd, *f);
  return f;
}

void DescriptorCache::table_changing(pid_t tid) {
  Table& table = table_of(tid);
  ++table.changing;
  table.files.clear();
}

void DescriptorCache::table_changed(pid_t tid) {
  Table& table = table_of(tid);
  if (table.changing > 0) --table.changing;
  table.files.clear();
}

void DescriptorCache::table_unshared(pid_t tid) {
  Table& table = table_of(tid);
  table.keep_nothing = true;
  table.files.clear();
}

void DescriptorCache::creating(pid_t parent, uint64_t flags) {
  // A thread with a table of its own: the process's threads no longer
  // agree on what a number means. Marked before the thread can run.
  if ((flags & CLONE_THREAD) && !(flags & CLONE_FILES)) table_unshared(parent);
}

void DescriptorCache::created(pid_t parent, pid_t child, uint64_t flags) {
  pid_t group = group_of(parent);
  if (flags & CLONE_THREAD) {
    groups_[child] = group;
    return;
  }
  // A new process (its number may be an old one's: start afresh). With
  // CLONE_FILES it shares its parent's table, and each would change the
  // other's: neither keeps anything.
  groups_[child] = child;
  tables_[child] = Table{};
  if (flags & CLONE_FILES) {
    tables_[child].keep_nothing = true;
    table_unshared(parent);
  }
}

std::size_t DescriptorCache::kept(pid_t tid) { return table_of(tid).files.size(); }

}  // namespace backstep
