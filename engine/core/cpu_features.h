// The CPUID leaves that describe what a recording may have used. Without
// CPUID faulting the replayed program executes CPUID natively, so a replay
// on a CPU whose features differ is refused.
#pragma once

#include <string>
#include <vector>

#include "values/cpu_state.h"

namespace backstep {

// The feature leaves of the CPU backstep runs on, with the fields that vary
// between cores of one machine (APIC ids, core counts) masked out.
std::vector<CpuidLeaf> current_cpu_features();

// Empty if `recorded` and `current` agree; otherwise a description of the
// first differences.
std::string cpu_feature_mismatch(const std::vector<CpuidLeaf>& recorded,
                                 const std::vector<CpuidLeaf>& current);

}  // namespace backstep
