// The program's memory and code as the IDE's disassembly and memory views
// ask for them, and what it loaded: readMemory, disassemble, instruction
// breakpoints, modules, loadedSources, exceptionInfo.
#include <cstdint>
#include <cstdlib>

#include "dap/json_text.h"
#include "dap/session.h"

namespace backstep::dap {
namespace {

// The most readMemory returns at once (the IDE pages through more).
constexpr uint64_t kMaxRead = 1u << 20;
// x86's longest instruction: how far back instructions before an address
// are looked for.
constexpr uint64_t kMaxInstruction = 15;

std::optional<uint64_t> address_of(llvm::StringRef text) {
  uint64_t v = 0;
  if (text.startswith_insensitive("0x") ? text.drop_front(2).getAsInteger(16, v) : text.getAsInteger(0, v)) {
    return std::nullopt;
  }
  return v;
}

std::string hex_address(uint64_t a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(a));
  return buf;
}

std::string base64(const std::string& bytes) {
  static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    for (int s : {18, 12, 6, 0}) out += table[(n >> s) & 63];
  }
  if (i + 1 == bytes.size()) {
    uint32_t n = uint8_t(bytes[i]) << 16;
    out += table[(n >> 18) & 63];
    out += table[(n >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    uint32_t n = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
    for (int s : {18, 12, 6}) out += table[(n >> s) & 63];
    out += '=';
  }
  return out;
}

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::strtoul(hex.substr(i, 2).c_str(), nullptr, 16)));
  }
  return out;
}

}  // namespace

Reply Session::read_memory(const llvm::json::Object& args) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  auto reference = args.getString("memoryReference");
  auto base = reference ? address_of(*reference) : std::nullopt;
  if (!base) return Failure{"readMemory: the memoryReference is not an address"};
  uint64_t address = *base + static_cast<uint64_t>(args.getInteger("offset").getValueOr(0));
  uint64_t count = static_cast<uint64_t>(std::max<int64_t>(0, args.getInteger("count").getValueOr(0)));
  if (count > kMaxRead) count = kMaxRead;
  if (count == 0) return llvm::json::Object{{"address", hex_address(address)}, {"data", ""}};
  auto r = mi_checked("-data-read-memory-bytes " + hex_address(address) + " " + std::to_string(count));
  if (std::holds_alternative<Failure>(r)) {
    // Nothing mapped there: all of it unreadable, as DAP says it.
    return llvm::json::Object{{"address", hex_address(address)}, {"unreadableBytes", static_cast<int64_t>(count)}};
  }
  // The first readable block that starts at the address; a hole ends it.
  std::string data;
  if (const mi::Value* blocks = std::get<mi::Record>(r).results.get("memory"); blocks && blocks->list()) {
    for (const mi::Value& block : *blocks->list()) {
      auto begin = address_of(block.text("begin"));
      if (begin && *begin == address + data.size()) data += from_hex(block.text("contents"));
    }
  }
  llvm::json::Object out{{"address", hex_address(address)}, {"data", base64(data)}};
  if (data.size() < count) out["unreadableBytes"] = static_cast<int64_t>(count - data.size());
  return out;
}

Reply Session::disassemble(const llvm::json::Object& args) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  auto reference = args.getString("memoryReference");
  auto base = reference ? address_of(*reference) : std::nullopt;
  if (!base) return Failure{"disassemble: the memoryReference is not an address"};
  uint64_t address = *base + static_cast<uint64_t>(args.getInteger("offset").getValueOr(0));
  int64_t skip = args.getInteger("instructionOffset").getValueOr(0);
  int64_t count = args.getInteger("instructionCount").getValueOr(0);
  if (count <= 0 || count > 10000) return Failure{"disassemble: instructionCount must be 1 to 10000"};
  // Instructions before the address (a negative offset): decoded from far
  // enough back; the ones that end exactly at the address are kept.
  uint64_t back = skip < 0 ? static_cast<uint64_t>(-skip) * kMaxInstruction : 0;
  uint64_t start = address > back ? address - back : 0;
  uint64_t ahead = static_cast<uint64_t>(count + std::max<int64_t>(skip, 0)) * kMaxInstruction;
  auto r = mi_checked("-data-disassemble -s " + hex_address(start) + " -e " + hex_address(address + ahead) +
                      " -- 2");
  std::vector<llvm::json::Object> all;
  std::size_t at_address = 0;
  if (!std::holds_alternative<Failure>(r)) {
    if (const mi::Value* insns = std::get<mi::Record>(r).results.get("asm_insns"); insns && insns->list()) {
      for (const mi::Value& i : *insns->list()) {
        auto a = address_of(i.text("address"));
        if (!a) continue;
        if (*a <= address) at_address = all.size();
        llvm::json::Object ins{{"address", hex_address(*a)}, {"instruction", json_text(i.text("inst"))}};
        std::string bytes = i.text("opcodes");
        if (!bytes.empty()) ins["instructionBytes"] = json_text(bytes);
        if (!i.text("func-name").empty()) ins["symbol"] = json_text(i.text("func-name") + "+" + i.text("offset"));
        all.push_back(std::move(ins));
      }
    }
  }
  // Exactly `count`, from `skip` instructions after the address's: where
  // there is no code, DAP's placeholder of an invalid instruction.
  llvm::json::Array out;
  for (int64_t k = 0; k < count; ++k) {
    int64_t index = static_cast<int64_t>(at_address) + skip + k;
    if (index >= 0 && static_cast<std::size_t>(index) < all.size()) {
      out.push_back(llvm::json::Object(all[static_cast<std::size_t>(index)]));
    } else {
      out.push_back(llvm::json::Object{{"address", hex_address(address)}, {"instruction", "??"},
                                       {"presentationHint", "invalid"}});
    }
  }
  return llvm::json::Object{{"instructions", std::move(out)}};
}

Reply Session::set_instruction_breakpoints(const llvm::json::Object& args) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  auto out = replace_breakpoints(args, instruction_breakpoints_, &names_.instructions,
                                 [](const llvm::json::Object& spec) -> std::variant<std::string, Failure> {
                                   auto reference = spec.getString("instructionReference");
                                   auto base = reference ? address_of(*reference) : std::nullopt;
                                   if (!base) return Failure{"not an address"};
                                   int64_t offset = spec.getInteger("offset").getValueOr(0);
                                   return "*" + hex_address(*base + static_cast<uint64_t>(offset));
                                 });
  return llvm::json::Object{{"breakpoints", std::move(out)}};
}

Reply Session::modules(const llvm::json::Object&) {
  if (!gdb_) return llvm::json::Object{{"modules", llvm::json::Array{}}, {"totalModules", 0}};
  auto r = mi_checked("-file-list-shared-libraries");
  if (auto* f = std::get_if<Failure>(&r)) return *f;
  llvm::json::Array out;
  if (const mi::Value* libs = std::get<mi::Record>(r).results.get("shared-libraries"); libs && libs->list()) {
    for (const mi::Value& lib : *libs->list()) {
      std::string path = lib.text("target-name");
      std::size_t slash = path.rfind('/');
      llvm::json::Object m{{"id", json_text(lib.text("id", path))},
                           {"name", json_text(slash == std::string::npos ? path : path.substr(slash + 1))},
                           {"path", json_text(path)},
                           {"symbolStatus", lib.text("symbols-loaded") == "1" ? "Symbols loaded." : "No symbols."}};
      if (const mi::Value* ranges = lib.get("ranges"); ranges && ranges->list() && !ranges->list()->empty()) {
        const mi::Value& first = ranges->list()->front();
        m["addressRange"] = json_text(first.text("from") + "-" + first.text("to"));
      }
      out.push_back(std::move(m));
    }
  }
  int64_t total = static_cast<int64_t>(out.size());
  return llvm::json::Object{{"modules", std::move(out)}, {"totalModules", total}};
}

Reply Session::loaded_sources(const llvm::json::Object&) {
  if (!gdb_) return llvm::json::Object{{"sources", llvm::json::Array{}}};
  auto r = mi_checked("-file-list-exec-source-files");
  if (auto* f = std::get_if<Failure>(&r)) return *f;
  llvm::json::Array out;
  std::set<std::string> seen;
  if (const mi::Value* files = std::get<mi::Record>(r).results.get("files"); files && files->list()) {
    for (const mi::Value& file : *files->list()) {
      std::string path = file.text("fullname", file.text("file"));
      if (path.empty() || !seen.insert(path).second) continue;
      std::size_t slash = path.rfind('/');
      out.push_back(llvm::json::Object{{"name", json_text(slash == std::string::npos ? path : path.substr(slash + 1))},
                                       {"path", json_text(path)}});
    }
  }
  return llvm::json::Object{{"sources", std::move(out)}};
}

// The signal of the last stop, for the IDE's exception widget.
Reply Session::exception_info(const llvm::json::Object&) {
  if (last_signal_.empty()) return Failure{"exceptionInfo: the program did not stop at a signal"};
  return llvm::json::Object{{"exceptionId", json_text(last_signal_)},
                            {"description", json_text(last_signal_description_)},
                            {"breakMode", "always"}};
}

}  // namespace backstep::dap
