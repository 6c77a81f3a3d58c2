// Key columns and query batches as non-owning views. Keys are unsigned 32- or 64-bit integers;
// the width travels with the view, so one API serves both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace raydb {

enum class KeyWidth : uint8_t { bits32 = 32, bits64 = 64 };

/// An inclusive range [lo, hi] of keys: one range lookup.
template <class Key>
struct KeyRange {
  Key lo;  ///< inclusive
  Key hi;  ///< inclusive; lo > hi is rejected
};
using Range32 = KeyRange<uint32_t>;
using Range64 = KeyRange<uint64_t>;

/// A view of keys (a key column, or point-lookup keys).
struct KeySpan {
  const void* data = nullptr;         ///< the first key (not owned; must outlive the call)
  size_t size = 0;                    ///< number of keys
  KeyWidth width = KeyWidth::bits32;  ///< 32- or 64-bit keys

  KeySpan() = default;  ///< No keys.
  /// A view of 32-bit keys.
  KeySpan(std::span<const uint32_t> s) : data(s.data()), size(s.size()), width(KeyWidth::bits32) {}
  /// A view of 64-bit keys.
  KeySpan(std::span<const uint64_t> s) : data(s.data()), size(s.size()), width(KeyWidth::bits64) {}
  /// A view of a vector's 32-bit keys (the vector must outlive the view).
  KeySpan(const std::vector<uint32_t>& v) : KeySpan(std::span<const uint32_t>(v)) {}
  /// A view of a vector's 64-bit keys (the vector must outlive the view).
  KeySpan(const std::vector<uint64_t>& v) : KeySpan(std::span<const uint64_t>(v)) {}

  /// Key `i`, widened to 64 bits; `i` < size (unchecked).
  uint64_t operator[](size_t i) const {
    return width == KeyWidth::bits64 ? static_cast<const uint64_t*>(data)[i]
                                     : static_cast<const uint32_t*>(data)[i];
  }
  /// Bytes the keys take.
  size_t bytes() const { return size * (width == KeyWidth::bits64 ? 8 : 4); }
};

/// A view of [lo, hi] range queries.
struct RangeSpan {
  const void* data = nullptr;         ///< the first range (not owned; must outlive the call)
  size_t size = 0;                    ///< number of ranges
  KeyWidth width = KeyWidth::bits32;  ///< Range32 or Range64

  RangeSpan() = default;  ///< No ranges.
  /// A view of 32-bit ranges.
  RangeSpan(std::span<const Range32> s) : data(s.data()), size(s.size()), width(KeyWidth::bits32) {}
  /// A view of 64-bit ranges.
  RangeSpan(std::span<const Range64> s) : data(s.data()), size(s.size()), width(KeyWidth::bits64) {}
  /// A view of a vector's 32-bit ranges (the vector must outlive the view).
  RangeSpan(const std::vector<Range32>& v) : RangeSpan(std::span<const Range32>(v)) {}
  /// A view of a vector's 64-bit ranges (the vector must outlive the view).
  RangeSpan(const std::vector<Range64>& v) : RangeSpan(std::span<const Range64>(v)) {}

  /// Range `i`'s lower end, widened to 64 bits; `i` < size (unchecked).
  uint64_t lo(size_t i) const {
    return width == KeyWidth::bits64 ? static_cast<const Range64*>(data)[i].lo
                                     : static_cast<const Range32*>(data)[i].lo;
  }
  /// Range `i`'s upper end (inclusive), widened to 64 bits.
  uint64_t hi(size_t i) const {
    return width == KeyWidth::bits64 ? static_cast<const Range64*>(data)[i].hi
                                     : static_cast<const Range32*>(data)[i].hi;
  }
  /// Bytes the ranges take.
  size_t bytes() const { return size * (width == KeyWidth::bits64 ? 16 : 8); }
};

inline const char* to_string(KeyWidth w) {
  return w == KeyWidth::bits64 ? "64" : "32";
}

}  // namespace raydb
