// Key columns and query batches as non-owning views. Keys are unsigned 32- or 64-bit integers;
// the width travels with the view, so one API serves both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace raydb {

enum class KeyWidth : uint8_t { bits32 = 32, bits64 = 64 };

template <class Key>
struct KeyRange {
  Key lo;  // inclusive
  Key hi;  // inclusive; lo > hi is rejected
};
using Range32 = KeyRange<uint32_t>;
using Range64 = KeyRange<uint64_t>;

// A view of keys (a key column, or point-lookup keys).
struct KeySpan {
  const void* data = nullptr;
  size_t size = 0;
  KeyWidth width = KeyWidth::bits32;

  KeySpan() = default;
  KeySpan(std::span<const uint32_t> s) : data(s.data()), size(s.size()), width(KeyWidth::bits32) {}
  KeySpan(std::span<const uint64_t> s) : data(s.data()), size(s.size()), width(KeyWidth::bits64) {}
  KeySpan(const std::vector<uint32_t>& v) : KeySpan(std::span<const uint32_t>(v)) {}
  KeySpan(const std::vector<uint64_t>& v) : KeySpan(std::span<const uint64_t>(v)) {}

  uint64_t operator[](size_t i) const {
    return width == KeyWidth::bits64 ? static_cast<const uint64_t*>(data)[i]
                                     : static_cast<const uint32_t*>(data)[i];
  }
  size_t bytes() const { return size * (width == KeyWidth::bits64 ? 8 : 4); }
};

// A view of [lo, hi] range queries.
struct RangeSpan {
  const void* data = nullptr;
  size_t size = 0;
  KeyWidth width = KeyWidth::bits32;

  RangeSpan() = default;
  RangeSpan(std::span<const Range32> s) : data(s.data()), size(s.size()), width(KeyWidth::bits32) {}
  RangeSpan(std::span<const Range64> s) : data(s.data()), size(s.size()), width(KeyWidth::bits64) {}
  RangeSpan(const std::vector<Range32>& v) : RangeSpan(std::span<const Range32>(v)) {}
  RangeSpan(const std::vector<Range64>& v) : RangeSpan(std::span<const Range64>(v)) {}

  uint64_t lo(size_t i) const {
    return width == KeyWidth::bits64 ? static_cast<const Range64*>(data)[i].lo
                                     : static_cast<const Range32*>(data)[i].lo;
  }
  uint64_t hi(size_t i) const {
    return width == KeyWidth::bits64 ? static_cast<const Range64*>(data)[i].hi
                                     : static_cast<const Range32*>(data)[i].hi;
  }
  size_t bytes() const { return size * (width == KeyWidth::bits64 ? 16 : 8); }
};

inline const char* to_string(KeyWidth w) {
  return w == KeyWidth::bits64 ? "64" : "32";
}

}  // namespace raydb
