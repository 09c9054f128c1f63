#include "engine/core/cpu_features.h"

#include <cpuid.h>

#include <iomanip>
#include <sstream>

namespace backstep {
namespace {

CpuidLeaf query(uint32_t leaf, uint32_t subleaf) {
  CpuidLeaf l;
  l.leaf = leaf;
  l.subleaf = subleaf;
  __cpuid_count(leaf, subleaf, l.eax, l.ebx, l.ecx, l.edx);
  return l;
}

}  // namespace

std::vector<CpuidLeaf> current_cpu_features() {
  std::vector<CpuidLeaf> leaves;
  CpuidLeaf l0 = query(0, 0);
  leaves.push_back(l0);  // max leaf + vendor
  if (l0.eax >= 1) {
    CpuidLeaf l1 = query(1, 0);
    l1.ebx &= 0x0000ffffu;  // APIC id and logical count differ per core
    leaves.push_back(l1);
  }
  if (l0.eax >= 7) {
    leaves.push_back(query(7, 0));
    leaves.push_back(query(7, 1));
  }
  if (l0.eax >= 0xd) {
    // XSAVE components and sizes: they decide signal frame layout.
    CpuidLeaf d0 = query(0xd, 0);
    d0.ebx = 0;  // size for the currently enabled XCR0 of this thread; varies
    leaves.push_back(d0);
    leaves.push_back(query(0xd, 1));
  }
  CpuidLeaf e0 = query(0x80000000u, 0);
  if (e0.eax >= 0x80000001u) leaves.push_back(query(0x80000001u, 0));
  return leaves;
}

std::string cpu_feature_mismatch(const std::vector<CpuidLeaf>& recorded,
                                 const std::vector<CpuidLeaf>& current) {
  std::ostringstream os;
  auto hex = [](uint32_t v) {
    std::ostringstream h;
    h << "0x" << std::hex << std::setw(8) << std::setfill('0') << v;
    return h.str();
  };
  for (const auto& r : recorded) {
    const CpuidLeaf* c = nullptr;
    for (const auto& x : current) {
      if (x.leaf == r.leaf && x.subleaf == r.subleaf) c = &x;
    }
    if (!c) {
      os << "leaf " << hex(r.leaf) << "." << r.subleaf << " missing on this CPU; ";
      continue;
    }
    if (!(*c == r)) {
      os << "leaf " << hex(r.leaf) << "." << r.subleaf << ": recorded eax=" << hex(r.eax)
         << " ebx=" << hex(r.ebx) << " ecx=" << hex(r.ecx) << " edx=" << hex(r.edx)
         << ", here eax=" << hex(c->eax) << " ebx=" << hex(c->ebx) << " ecx=" << hex(c->ecx)
         << " edx=" << hex(c->edx) << "; ";
    }
  }
  return os.str();
}

}  // namespace backstep
