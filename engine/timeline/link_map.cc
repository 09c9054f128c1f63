// The dynamic linker's list of loaded objects, read from the replayed
// process (the executable's DT_DEBUG -> r_debug -> link_map chain), as the
// library-list-svr4 XML that gdb asks for with qXfer:libraries-svr4:read,
// and the DT_DEBUG slot itself, which lldb asks for (qShlibInfoAddr).
#include <elf.h>
#include <link.h>

#include <cstring>
#include <sstream>

#include "engine/timeline/replay_timeline.h"

namespace backstep {
namespace {

constexpr int kMaxLibraries = 4096;

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

bool read_u64(ReplaySession& session, uint64_t addr, uint64_t& out) {
  std::vector<uint8_t> b = session.read_memory(addr, 8);
  if (b.size() != 8) return false;
  std::memcpy(&out, b.data(), 8);
  return true;
}

}  // namespace

std::optional<uint64_t> ReplayTimeline::debug_pointer_address() {
  materialize();  // reads memory the program writes
  auto read_word = [&](uint64_t addr, uint64_t& out) { return read_u64(*current_, addr, out); };
  // The executable's program headers, from the auxiliary vector.
  std::vector<uint8_t> auxv_bytes = auxv();
  uint64_t phdr = 0, phnum = 0;
  for (std::size_t i = 0; i + 16 <= auxv_bytes.size(); i += 16) {
    uint64_t type, value;
    std::memcpy(&type, &auxv_bytes[i], 8);
    std::memcpy(&value, &auxv_bytes[i + 8], 8);
    if (type == AT_PHDR) phdr = value;
    if (type == AT_PHNUM) phnum = value;
  }
  if (!phdr || !phnum) return std::nullopt;
  uint64_t load_bias = 0, dynamic = 0;
  for (uint64_t i = 0; i < phnum && i < 256; ++i) {
    std::vector<uint8_t> b = current_->read_memory(phdr + i * sizeof(Elf64_Phdr), sizeof(Elf64_Phdr));
    if (b.size() != sizeof(Elf64_Phdr)) return std::nullopt;
    Elf64_Phdr ph;
    std::memcpy(&ph, b.data(), sizeof(ph));
    if (ph.p_type == PT_PHDR) load_bias = phdr - ph.p_vaddr;
    if (ph.p_type == PT_DYNAMIC) dynamic = ph.p_vaddr;
  }
  if (!dynamic) return std::nullopt;
  dynamic += load_bias;
  for (uint64_t i = 0; i < 1024; ++i) {
    uint64_t entry = dynamic + i * sizeof(Elf64_Dyn);
    uint64_t tag = 0;
    if (!read_word(entry + offsetof(Elf64_Dyn, d_tag), tag) || tag == DT_NULL) break;
    if (tag == DT_DEBUG) return entry + offsetof(Elf64_Dyn, d_un);
  }
  return std::nullopt;
}

std::string ReplayTimeline::libraries_svr4_xml() {
  materialize();  // reads the link map
  auto read_word = [&](uint64_t addr, uint64_t& out) { return read_u64(*current_, addr, out); };
  auto read_string = [&](uint64_t addr) {
    std::string s;
    while (s.size() < 4096) {
      std::vector<uint8_t> b = current_->read_memory(addr + s.size(), 64);
      if (b.empty()) break;
      for (uint8_t c : b) {
        if (c == 0) return s;
        s.push_back(static_cast<char>(c));
      }
    }
    return s;
  };
  const std::string empty = "<library-list-svr4 version=\"1.0\"/>";

  // DT_DEBUG holds &r_debug once the dynamic linker has started.
  std::optional<uint64_t> slot = debug_pointer_address();
  uint64_t r_debug = 0;
  if (!slot || !read_word(*slot, r_debug)) return empty;
  uint64_t map = 0;
  if (!r_debug || !read_word(r_debug + offsetof(struct r_debug, r_map), map) || !map) return empty;

  std::ostringstream os;
  os << "<library-list-svr4 version=\"1.0\" main-lm=\"" << hex(map) << "\">";
  // The first entry is the executable itself; gdb wants the others.
  uint64_t lm = 0;
  read_word(map + offsetof(struct link_map, l_next), lm);
  for (int n = 0; lm && n < kMaxLibraries; ++n) {
    uint64_t l_addr = 0, l_name = 0, l_ld = 0, next = 0;
    if (!read_word(lm + offsetof(struct link_map, l_addr), l_addr) ||
        !read_word(lm + offsetof(struct link_map, l_name), l_name) ||
        !read_word(lm + offsetof(struct link_map, l_ld), l_ld) ||
        !read_word(lm + offsetof(struct link_map, l_next), next)) {
      break;
    }
    std::string name = l_name ? read_string(l_name) : "";
    os << "<library name=\"" << xml_escape(name) << "\" lm=\"" << hex(lm) << "\" l_addr=\"" << hex(l_addr)
       << "\" l_ld=\"" << hex(l_ld) << "\" lmid=\"0x0\"/>";
    lm = next;
  }
  os << "</library-list-svr4>";
  return os.str();
}

}  // namespace backstep
