// An address in a tracee's address space. Never dereferenced by backstep
// itself: memory goes through Task::read/write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace backstep {

template <typename T>
class remote_ptr {
 public:
  constexpr remote_ptr() = default;
  constexpr explicit remote_ptr(uint64_t addr) : addr_(addr) {}
  template <typename U>
  constexpr remote_ptr(remote_ptr<U> other) requires std::is_void_v<T> : addr_(other.as_int()) {}

  constexpr uint64_t as_int() const { return addr_; }
  constexpr bool is_null() const { return addr_ == 0; }
  constexpr explicit operator bool() const { return addr_ != 0; }

  // Pointer arithmetic in units of T (bytes for void).
  static constexpr std::size_t unit() {
    if constexpr (std::is_void_v<T>) return 1; else return sizeof(T);
  }
  constexpr remote_ptr operator+(int64_t n) const { return remote_ptr(addr_ + n * unit()); }
  constexpr remote_ptr operator-(int64_t n) const { return remote_ptr(addr_ - n * unit()); }
  template <typename U>
  constexpr remote_ptr<U> cast() const { return remote_ptr<U>(addr_); }

  constexpr auto operator<=>(const remote_ptr&) const = default;

 private:
  uint64_t addr_ = 0;
};

}  // namespace backstep
