// gdb's signal numbers (the remote protocol's), which differ from Linux's.
#pragma once

namespace backstep::gdb {

int to_gdb_signal(int linux_signal);
int to_linux_signal(int gdb_signal);  // 0 when gdb's signal has no Linux twin

inline constexpr int kGdbSigTrap = 5;
inline constexpr int kGdbSigInt = 2;

}  // namespace backstep::gdb
