#include "gdbserver/gdb_registers.h"

#include <cstring>
#include <sstream>

namespace backstep::gdb {
namespace {

// Offsets in the (64-bit, legacy) FXSAVE region at the start of XSAVE.
constexpr std::size_t kFxFcw = 0, kFxFsw = 2, kFxFtw = 4, kFxFop = 6, kFxFip = 8, kFxFcs = 12;
constexpr std::size_t kFxFdp = 16, kFxFds = 20, kFxMxcsr = 24, kFxSt = 32, kFxXmm = 160;
// Standard-format offset of the AVX (YMM_Hi128) component.
constexpr std::size_t kXsaveYmmHi = 576;

struct Reg {
  const char* name;
  std::size_t size;
  const char* type;
  const char* group;
};

// gdb numbers 0..39 (org.gnu.gdb.i386.core), 40..56 (sse), 57 (linux),
// 58..59 (segments), 60..75 (avx).
const char* const kGprNames[16] = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
                                   "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
const char* const kSegNames[6] = {"cs", "ss", "ds", "es", "fs", "gs"};
const char* const kFpuCtlNames[8] = {"fctrl", "fstat", "ftag", "fiseg", "fioff", "foseg", "fooff", "fop"};

uint64_t gpr(const Registers& r, std::size_t i) {
  const user_regs_struct& u = r.raw();
  const uint64_t values[16] = {u.rax, u.rbx, u.rcx, u.rdx, u.rsi, u.rdi, u.rbp, u.rsp,
                               u.r8,  u.r9,  u.r10, u.r11, u.r12, u.r13, u.r14, u.r15};
  return values[i];
}

uint64_t segment(const Registers& r, std::size_t i) {
  const user_regs_struct& u = r.raw();
  const uint64_t values[6] = {u.cs, u.ss, u.ds, u.es, u.fs, u.gs};
  return values[i];
}

std::vector<uint8_t> le(uint64_t v, std::size_t size) {
  std::vector<uint8_t> out(size);
  for (std::size_t i = 0; i < size && i < 8; ++i) out[i] = static_cast<uint8_t>(v >> (8 * i));
  return out;
}

std::optional<std::vector<uint8_t>> slice(const std::vector<uint8_t>& x, std::size_t off, std::size_t n) {
  if (x.size() < off + n) return std::nullopt;
  return std::vector<uint8_t>(x.begin() + static_cast<long>(off), x.begin() + static_cast<long>(off + n));
}

uint64_t read_le(const std::vector<uint8_t>& x, std::size_t off, std::size_t n) {
  uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(x[off + i]) << (8 * i);
  return v;
}

// FXSAVE keeps an abridged tag (one bit per register: valid or empty); gdb
// shows the full two-bit tag word. Valid registers are reported as valid.
uint64_t full_tag_word(uint8_t abridged) {
  uint64_t tags = 0;
  for (int i = 0; i < 8; ++i) tags |= static_cast<uint64_t>((abridged & (1u << i)) ? 0 : 3) << (2 * i);
  return tags;
}

}  // namespace

RegisterSet register_set_for(const std::vector<CpuidLeaf>& cpuid) {
  RegisterSet set;
  for (const auto& l : cpuid) {
    if (l.leaf == 1 && l.subleaf == 0) {
      bool osxsave = l.ecx & (1u << 27), avx = l.ecx & (1u << 28);
      set.avx = osxsave && avx;
    }
  }
  return set;
}

std::size_t register_size(const RegisterSet& set, std::size_t n) {
  if (n < 16) return 8;
  if (n == 16) return 8;                 // rip
  if (n <= 23) return 4;                 // eflags, segments
  if (n <= 31) return 10;                // st0..st7
  if (n <= 39) return 4;                 // x87 control
  if (n <= 55) return 16;                // xmm
  if (n == 56) return 4;                 // mxcsr
  if (n <= 59) return 8;                 // orig_rax, fs_base, gs_base
  if (set.avx && n <= 75) return 16;     // ymm upper halves
  return 0;
}

std::optional<std::vector<uint8_t>> register_value(const RegisterSet& set, std::size_t n, const Registers& r,
                                                   const std::vector<uint8_t>& x) {
  const user_regs_struct& u = r.raw();
  if (n < 16) return le(gpr(r, n), 8);
  if (n == 16) return le(u.rip, 8);
  if (n == 17) return le(u.eflags, 4);
  if (n <= 23) return le(segment(r, n - 18), 4);
  if (n <= 31) return slice(x, kFxSt + 16 * (n - 24), 10);
  if (n <= 39) {
    if (x.size() < 512) return std::nullopt;
    switch (n - 32) {
      case 0: return le(read_le(x, kFxFcw, 2), 4);
      case 1: return le(read_le(x, kFxFsw, 2), 4);
      case 2: return le(full_tag_word(x[kFxFtw]), 4);
      case 3: return le(read_le(x, kFxFcs, 2), 4);
      case 4: return le(read_le(x, kFxFip, 4), 4);
      case 5: return le(read_le(x, kFxFds, 2), 4);
      case 6: return le(read_le(x, kFxFdp, 4), 4);
      default: return le(read_le(x, kFxFop, 2) & 0x7ff, 4);
    }
  }
  if (n <= 55) return slice(x, kFxXmm + 16 * (n - 40), 16);
  if (n == 56) return slice(x, kFxMxcsr, 4);
  if (n == 57) return le(u.orig_rax, 8);
  if (n == 58) return le(u.fs_base, 8);
  if (n == 59) return le(u.gs_base, 8);
  if (set.avx && n <= 75) return slice(x, kXsaveYmmHi + 16 * (n - 60), 16);
  return std::nullopt;
}

namespace {

auto* gpr_slot(user_regs_struct& u, std::size_t i) {
  decltype(&u.rax) slots[16] = {&u.rax, &u.rbx, &u.rcx, &u.rdx, &u.rsi, &u.rdi, &u.rbp, &u.rsp,
                         &u.r8,  &u.r9,  &u.r10, &u.r11, &u.r12, &u.r13, &u.r14, &u.r15};
  return slots[i];
}

auto* segment_slot(user_regs_struct& u, std::size_t i) {
  decltype(&u.rax) slots[6] = {&u.cs, &u.ss, &u.ds, &u.es, &u.fs, &u.gs};
  return slots[i];
}

bool put(std::vector<uint8_t>& x, std::size_t off, const std::vector<uint8_t>& v, std::size_t n) {
  if (x.size() < off + n || v.size() < n) return false;
  std::memcpy(&x[off], v.data(), n);
  return true;
}

// gdb's two-bit tag word back to FXSAVE's abridged one: empty (3) or not.
uint8_t abridged_tag(uint64_t full) {
  uint8_t tags = 0;
  for (int i = 0; i < 8; ++i) {
    if (((full >> (2 * i)) & 3) != 3) tags |= static_cast<uint8_t>(1u << i);
  }
  return tags;
}

}  // namespace

bool set_register_value(const RegisterSet& set, std::size_t n, const std::vector<uint8_t>& value, Registers& r,
                        std::vector<uint8_t>& x) {
  if (value.size() != register_size(set, n)) return false;
  uint64_t v = read_le(value, 0, std::min<std::size_t>(value.size(), 8));
  user_regs_struct& u = r.raw();
  if (n < 16) {
    *gpr_slot(u, n) = v;
  } else if (n == 16) {
    u.rip = v;
  } else if (n == 17) {
    u.eflags = v;
  } else if (n <= 23) {
    *segment_slot(u, n - 18) = v;
  } else if (n <= 31) {
    return put(x, kFxSt + 16 * (n - 24), value, 10);
  } else if (n <= 39) {
    if (x.size() < 512) return false;
    std::vector<uint8_t> bytes = le(v, 4);
    switch (n - 32) {
      case 0: return put(x, kFxFcw, bytes, 2);
      case 1: return put(x, kFxFsw, bytes, 2);
      case 2: x[kFxFtw] = abridged_tag(v); return true;
      case 3: return put(x, kFxFcs, bytes, 2);
      case 4: return put(x, kFxFip, bytes, 4);
      case 5: return put(x, kFxFds, bytes, 2);
      case 6: return put(x, kFxFdp, bytes, 4);
      default: return put(x, kFxFop, le(v & 0x7ff, 2), 2);
    }
  } else if (n <= 55) {
    return put(x, kFxXmm + 16 * (n - 40), value, 16);
  } else if (n == 56) {
    return put(x, kFxMxcsr, value, 4);
  } else if (n == 57) {
    u.orig_rax = v;
  } else if (n == 58) {
    u.fs_base = v;
  } else if (n == 59) {
    u.gs_base = v;
  } else if (set.avx && n <= 75) {
    return put(x, kXsaveYmmHi + 16 * (n - 60), value, 16);
  } else {
    return false;
  }
  return true;
}

namespace {

void reg(std::ostringstream& os, const std::string& name, std::size_t bits, const char* type, std::size_t regnum,
         const char* group = nullptr) {
  os << "  <reg name=\"" << name << "\" bitsize=\"" << bits << "\" type=\"" << type << "\" regnum=\"" << regnum
     << "\"";
  if (group) os << " group=\"" << group << "\"";
  os << "/>\n";
}

std::string feature_core() {
  std::ostringstream os;
  os << "<?xml version=\"1.0\"?>\n<!DOCTYPE feature SYSTEM \"gdb-target.dtd\">\n"
        "<feature name=\"org.gnu.gdb.i386.core\">\n"
        "  <flags id=\"i386_eflags\" size=\"4\">\n"
        "    <field name=\"CF\" start=\"0\" end=\"0\"/><field name=\"\" start=\"1\" end=\"1\"/>\n"
        "    <field name=\"PF\" start=\"2\" end=\"2\"/><field name=\"AF\" start=\"4\" end=\"4\"/>\n"
        "    <field name=\"ZF\" start=\"6\" end=\"6\"/><field name=\"SF\" start=\"7\" end=\"7\"/>\n"
        "    <field name=\"TF\" start=\"8\" end=\"8\"/><field name=\"IF\" start=\"9\" end=\"9\"/>\n"
        "    <field name=\"DF\" start=\"10\" end=\"10\"/><field name=\"OF\" start=\"11\" end=\"11\"/>\n"
        "    <field name=\"NT\" start=\"14\" end=\"14\"/><field name=\"RF\" start=\"16\" end=\"16\"/>\n"
        "    <field name=\"VM\" start=\"17\" end=\"17\"/><field name=\"AC\" start=\"18\" end=\"18\"/>\n"
        "    <field name=\"VIF\" start=\"19\" end=\"19\"/><field name=\"VIP\" start=\"20\" end=\"20\"/>\n"
        "    <field name=\"ID\" start=\"21\" end=\"21\"/>\n"
        "  </flags>\n";
  for (std::size_t i = 0; i < 16; ++i) {
    const char* type = (i == 6 ? "data_ptr" : i == 7 ? "data_ptr" : "int64");
    reg(os, kGprNames[i], 64, type, i);
  }
  reg(os, "rip", 64, "code_ptr", 16);
  reg(os, "eflags", 32, "i386_eflags", 17);
  for (std::size_t i = 0; i < 6; ++i) reg(os, kSegNames[i], 32, "int32", 18 + i);
  for (std::size_t i = 0; i < 8; ++i) reg(os, "st" + std::to_string(i), 80, "i387_ext", 24 + i);
  for (std::size_t i = 0; i < 8; ++i) reg(os, kFpuCtlNames[i], 32, "int", 32 + i, "float");
  os << "</feature>\n";
  return os.str();
}

std::string feature_sse() {
  std::ostringstream os;
  os << "<?xml version=\"1.0\"?>\n<!DOCTYPE feature SYSTEM \"gdb-target.dtd\">\n"
        "<feature name=\"org.gnu.gdb.i386.sse\">\n"
        "  <vector id=\"v8bf16\" type=\"bfloat16\" count=\"8\"/>\n"
        "  <vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>\n"
        "  <vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>\n"
        "  <vector id=\"v16i8\" type=\"int8\" count=\"16\"/>\n"
        "  <vector id=\"v8i16\" type=\"int16\" count=\"8\"/>\n"
        "  <vector id=\"v4i32\" type=\"int32\" count=\"4\"/>\n"
        "  <vector id=\"v2i64\" type=\"int64\" count=\"2\"/>\n"
        "  <union id=\"vec128\">\n"
        "    <field name=\"v8_bfloat16\" type=\"v8bf16\"/><field name=\"v4_float\" type=\"v4f\"/>\n"
        "    <field name=\"v2_double\" type=\"v2d\"/><field name=\"v16_int8\" type=\"v16i8\"/>\n"
        "    <field name=\"v8_int16\" type=\"v8i16\"/><field name=\"v4_int32\" type=\"v4i32\"/>\n"
        "    <field name=\"v2_int64\" type=\"v2i64\"/><field name=\"uint128\" type=\"uint128\"/>\n"
        "  </union>\n"
        "  <flags id=\"i386_mxcsr\" size=\"4\">\n"
        "    <field name=\"IE\" start=\"0\" end=\"0\"/><field name=\"DE\" start=\"1\" end=\"1\"/>\n"
        "    <field name=\"ZE\" start=\"2\" end=\"2\"/><field name=\"OE\" start=\"3\" end=\"3\"/>\n"
        "    <field name=\"UE\" start=\"4\" end=\"4\"/><field name=\"PE\" start=\"5\" end=\"5\"/>\n"
        "    <field name=\"DAZ\" start=\"6\" end=\"6\"/><field name=\"IM\" start=\"7\" end=\"7\"/>\n"
        "    <field name=\"DM\" start=\"8\" end=\"8\"/><field name=\"ZM\" start=\"9\" end=\"9\"/>\n"
        "    <field name=\"OM\" start=\"10\" end=\"10\"/><field name=\"UM\" start=\"11\" end=\"11\"/>\n"
        "    <field name=\"PM\" start=\"12\" end=\"12\"/><field name=\"FZ\" start=\"15\" end=\"15\"/>\n"
        "  </flags>\n";
  for (std::size_t i = 0; i < 16; ++i) reg(os, "xmm" + std::to_string(i), 128, "vec128", 40 + i);
  reg(os, "mxcsr", 32, "i386_mxcsr", 56, "vector");
  os << "</feature>\n";
  return os.str();
}

std::string feature_linux() {
  std::ostringstream os;
  os << "<?xml version=\"1.0\"?>\n<!DOCTYPE feature SYSTEM \"gdb-target.dtd\">\n"
        "<feature name=\"org.gnu.gdb.i386.linux\">\n";
  reg(os, "orig_rax", 64, "int", 57);
  os << "</feature>\n";
  return os.str();
}

std::string feature_segments() {
  std::ostringstream os;
  os << "<?xml version=\"1.0\"?>\n<!DOCTYPE feature SYSTEM \"gdb-target.dtd\">\n"
        "<feature name=\"org.gnu.gdb.i386.segments\">\n";
  // lldb finds a thread's TLS from the register marked generic="tp" (gdb
  // ignores the attribute, and asks qGetTLSAddr instead).
  os << "  <reg name=\"fs_base\" bitsize=\"64\" type=\"int\" regnum=\"58\" generic=\"tp\"/>\n";
  reg(os, "gs_base", 64, "int", 59);
  os << "</feature>\n";
  return os.str();
}

std::string feature_avx() {
  std::ostringstream os;
  os << "<?xml version=\"1.0\"?>\n<!DOCTYPE feature SYSTEM \"gdb-target.dtd\">\n"
        "<feature name=\"org.gnu.gdb.i386.avx\">\n";
  for (std::size_t i = 0; i < 16; ++i) reg(os, "ymm" + std::to_string(i) + "h", 128, "uint128", 60 + i);
  os << "</feature>\n";
  return os.str();
}

}  // namespace

std::optional<std::string> target_description(const RegisterSet& set, const std::string& annex) {
  if (annex == "target.xml") {
    // Includes only: lldb reads every <feature> before any include, so
    // mixing both would reorder registers there.
    std::string xml =
        "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target>\n"
        "  <architecture>i386:x86-64</architecture>\n  <osabi>GNU/Linux</osabi>\n"
        "  <xi:include href=\"64bit-core.xml\"/>\n  <xi:include href=\"64bit-sse.xml\"/>\n"
        "  <xi:include href=\"64bit-linux.xml\"/>\n  <xi:include href=\"64bit-segments.xml\"/>\n";
    if (set.avx) xml += "  <xi:include href=\"64bit-avx.xml\"/>\n";
    return xml + "</target>\n";
  }
  if (annex == "64bit-core.xml") return feature_core();
  if (annex == "64bit-sse.xml") return feature_sse();
  if (annex == "64bit-linux.xml") return feature_linux();
  if (annex == "64bit-segments.xml") return feature_segments();
  if (annex == "64bit-avx.xml" && set.avx) return feature_avx();
  return std::nullopt;
}

}  // namespace backstep::gdb
