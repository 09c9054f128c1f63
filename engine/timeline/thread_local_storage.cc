// Thread-local variables (qGetTLSAddr): where a thread keeps a module's
// variable, found as glibc's libthread_db finds it, from the descriptors
// the C library exports for debuggers (its _thread_db_* symbols: bit size,
// count and offset of a field), read from the trace's copy of the library:
// the module's number in its struct link_map (l_tls_modid), the thread's
// dynamic thread vector from its thread pointer (fs_base, the struct
// pthread's header.dtv), and the module's block from that vector (16-byte
// entries, indexed by module number). It is memory at the current
// position, forwards and backwards alike.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "engine/core/elf_symbol.h"
#include "engine/core/proc_maps.h"
#include "engine/timeline/replay_timeline.h"

namespace backstep {
namespace {

// A field descriptor: its size in bits, how many, its offset.
struct Field {
  uint32_t bits = 0, count = 0, offset = 0;
};

std::optional<Field> read_field(const std::string& library, const char* name) {
  std::optional<std::vector<uint8_t>> b = elf_symbol_bytes(library, name, sizeof(Field));
  if (!b) return std::nullopt;
  Field f;
  std::memcpy(&f, b->data(), sizeof(f));
  return f;
}

// The descriptors the lookup needs, from the first mapped file that has
// them all (the C library; a static program's executable).
struct Descriptors {
  Field modid, dtv_pointer, dtv_entry, entry_pointer;
};

// One library's descriptors, read from its ELF file once: the trace's
// copies never change, and a debugger asks for each variable it shows.
std::optional<Descriptors> library_descriptors(const std::string& library) {
  static std::mutex lock;
  static std::map<std::string, std::optional<Descriptors>> known;
  std::lock_guard<std::mutex> hold(lock);
  auto it = known.find(library);
  if (it != known.end()) return it->second;
  std::optional<Descriptors> d;
  std::optional<Field> modid = read_field(library, "_thread_db_link_map_l_tls_modid");
  std::optional<Field> dtvp = modid ? read_field(library, "_thread_db_pthread_dtvp") : std::nullopt;
  std::optional<Field> dtv = modid ? read_field(library, "_thread_db_dtv_dtv") : std::nullopt;
  std::optional<Field> val = modid ? read_field(library, "_thread_db_dtv_t_pointer_val") : std::nullopt;
  if (modid && dtvp && dtv && val) d = Descriptors{*modid, *dtvp, *dtv, *val};
  known.emplace(library, d);
  return d;
}

std::optional<Descriptors> descriptors(const std::vector<MapsEntry>& maps) {
  std::vector<std::string> files;
  std::set<std::string> seen;
  for (const MapsEntry& m : maps) {
    if (!m.is_file() || !seen.insert(m.name).second) continue;
    // The C library first: the others are looked at only without one.
    bool libc = m.name.find("/libc.so") != std::string::npos || m.name.find("/libc-") != std::string::npos;
    files.insert(libc ? files.begin() : files.end(), m.name);
  }
  for (const std::string& f : files) {
    if (std::optional<Descriptors> d = library_descriptors(f)) return d;
  }
  return std::nullopt;
}

}  // namespace

DebugTarget::TlsAddress ReplayTimeline::tls_address(pid_t tid, uint64_t link_map, uint64_t offset) {
  std::vector<pid_t> tids = thread_ids();
  if (std::find(tids.begin(), tids.end(), tid) == tids.end()) {
    return {std::nullopt, "thread " + std::to_string(tid) + " does not exist here"};
  }
  std::optional<Descriptors> d = descriptors(read_proc_maps(current_->task().tid()));
  if (!d) {
    return {std::nullopt, "the program's C library does not describe its thread-local storage (no _thread_db_* symbols)"};
  }
  auto word = [this](uint64_t addr, const Field& f) -> std::optional<uint64_t> {
    if (f.bits != 32 && f.bits != 64) return std::nullopt;
    std::vector<uint8_t> b = read_memory(addr + f.offset, f.bits / 8);
    if (b.size() != f.bits / 8) return std::nullopt;
    uint64_t v = 0;
    std::memcpy(&v, b.data(), b.size());
    return v;
  };
  std::optional<uint64_t> modid = word(link_map, d->modid);
  if (!modid || *modid == 0) {
    char lm[32];
    snprintf(lm, sizeof(lm), "0x%lx", static_cast<unsigned long>(link_map));
    return {std::nullopt, std::string("the module at link map ") + lm + " has no thread-local storage"};
  }
  uint64_t tp = registers(tid).raw().fs_base;
  std::optional<uint64_t> dtv = word(tp, d->dtv_pointer);
  if (!dtv || *dtv == 0) return {std::nullopt, "thread " + std::to_string(tid) + " has no thread vector yet"};
  uint64_t entry = d->dtv_entry.bits / 8;
  std::optional<uint64_t> block = entry ? word(*dtv + *modid * entry, d->entry_pointer) : std::nullopt;
  // glibc marks a block not allocated yet with -1 (TLS_DTV_UNALLOCATED).
  if (!block || *block == 0 || *block == ~uint64_t{0}) {
    return {std::nullopt, "thread " + std::to_string(tid) + " has not allocated module " + std::to_string(*modid) +
                              "'s thread-local storage yet"};
  }
  return {*block + offset, ""};
}

}  // namespace backstep
