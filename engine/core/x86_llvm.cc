#include "engine/core/x86_llvm.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>

#include <stdexcept>

extern "C" void LLVMInitializeX86TargetInfo();
extern "C" void LLVMInitializeX86TargetMC();
extern "C" void LLVMInitializeX86Disassembler();

namespace backstep::x86 {
namespace {

constexpr const char* kTriple = "x86_64-unknown-linux-gnu";
constexpr unsigned kIntelSyntax = 1;

}  // namespace

struct Llvm::Parts {
  std::unique_ptr<llvm::MCRegisterInfo> registers;
  std::unique_ptr<llvm::MCAsmInfo> asm_info;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
  std::unique_ptr<llvm::MCInstrInfo> instructions;
  std::unique_ptr<llvm::MCContext> context;
  std::unique_ptr<llvm::MCDisassembler> disassembler;
  std::unique_ptr<llvm::MCInstPrinter> printer;
};

Llvm::Llvm() : parts_(std::make_unique<Parts>()) {
  LLVMInitializeX86TargetInfo();
  LLVMInitializeX86TargetMC();
  LLVMInitializeX86Disassembler();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (!target) throw std::runtime_error("LLVM has no x86-64 target: " + error);
  Parts& p = *parts_;
  p.registers.reset(target->createMCRegInfo(kTriple));
  llvm::MCTargetOptions options;
  p.asm_info.reset(target->createMCAsmInfo(*p.registers, kTriple, options));
  p.subtarget.reset(target->createMCSubtargetInfo(kTriple, "", ""));
  p.instructions.reset(target->createMCInstrInfo());
  if (!p.registers || !p.asm_info || !p.subtarget || !p.instructions) {
    throw std::runtime_error("LLVM's x86-64 disassembler could not be set up");
  }
  p.context = std::make_unique<llvm::MCContext>(llvm::Triple(kTriple), p.asm_info.get(), p.registers.get(),
                                                p.subtarget.get());
  p.disassembler.reset(target->createMCDisassembler(*p.subtarget, *p.context));
  p.printer.reset(target->createMCInstPrinter(llvm::Triple(kTriple), kIntelSyntax, *p.asm_info, *p.instructions,
                                              *p.registers));
  if (!p.disassembler || !p.printer) throw std::runtime_error("LLVM's x86-64 disassembler could not be set up");
  instructions_ = p.instructions.get();
  registers_ = p.registers.get();
  for (unsigned r = 1; r < registers_->getNumRegs(); ++r) {
    if (llvm::StringRef(registers_->getName(r)) == "RIP") rip_ = r;
  }
}

Llvm::~Llvm() = default;

const Llvm& Llvm::get() {
  static const Llvm llvm;
  return llvm;
}

bool Llvm::disassemble(const uint8_t* code, std::size_t len, uint64_t addr, llvm::MCInst& inst,
                       uint64_t& size) const {
  size = 0;
  return len > 0 &&
         parts_->disassembler->getInstruction(inst, size, llvm::ArrayRef<uint8_t>(code, len), addr, llvm::nulls()) ==
             llvm::MCDisassembler::Success &&
         size > 0 && size <= len;
}

std::string Llvm::intel_text(const llvm::MCInst& inst, uint64_t addr) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  parts_->printer->printInst(&inst, addr, "", *parts_->subtarget, os);
  os.flush();
  return text;
}

}  // namespace backstep::x86
