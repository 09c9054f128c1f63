#include "engine/core/int3_patches.h"

#include "engine/core/task.h"

namespace backstep {
namespace {

constexpr uint8_t kInt3 = 0xcc;

}  // namespace

bool Int3Patches::insert(Task& task, uint64_t addr) {
  if (originals_.count(addr)) return true;
  uint8_t original;
  if (task.read_some(remote_ptr<void>(addr), &original, 1) != 1) return false;
  task.write_bytes(remote_ptr<void>(addr), &kInt3, 1);
  originals_[addr] = original;
  return true;
}

bool Int3Patches::remove(Task& task, uint64_t addr) {
  auto it = originals_.find(addr);
  if (it == originals_.end()) return false;
  task.write_bytes(remote_ptr<void>(addr), &it->second, 1);
  originals_.erase(it);
  return true;
}

void Int3Patches::remove_all(Task& task) {
  // All written before any is forgotten: a write that throws (the process
  // died) leaves the list as it was.
  for (const auto& [addr, original] : originals_) task.write_bytes(remote_ptr<void>(addr), &original, 1);
  originals_.clear();
}

void Int3Patches::hide(uint64_t addr, uint8_t* bytes, std::size_t len) const {
  // Those at addr .. addr + len, without wrapping past the top of memory.
  auto it = originals_.lower_bound(addr);
  for (; it != originals_.end() && it->first - addr < len; ++it) bytes[it->first - addr] = it->second;
}

}  // namespace backstep
