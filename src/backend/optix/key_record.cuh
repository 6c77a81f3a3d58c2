// The 16-byte key records and the lookups of shaders/common/records.glsl as the OptiX programs
// read them. Records:
// (key, row, value, 0) for 32-bit keys, (key lo, key hi, row, value) for 64-bit keys, one load.
#pragma once

#include <cstdint>

struct KeyRecord {
  uint64_t key;
  uint32_t row;
  uint32_t value;
};

__device__ __forceinline__ KeyRecord load_key_record(uint64_t records, uint32_t i, bool key64) {
  uint4 r = reinterpret_cast<const uint4*>(records)[i];
  if (key64) return KeyRecord{uint64_t(r.x) | (uint64_t(r.y) << 32), r.z, r.w};
  return KeyRecord{uint64_t(r.x), r.y, r.z};
}

// Lookup q of a batch of points, or of (lo, hi) pairs when `ranges`, of the key width; a point is
// read as lo = hi. The twin of load_key_query in shaders/common/records.glsl.
__device__ __forceinline__ void load_key_query(uint64_t queries, uint32_t q, bool ranges,
                                               bool key64, uint64_t& lo, uint64_t& hi) {
  uint32_t width = ranges ? 2u : 1u;
  if (key64) {
    const uint64_t* v = reinterpret_cast<const uint64_t*>(queries);
    lo = v[q * width];
    hi = v[q * width + width - 1u];
  } else {
    const uint32_t* v = reinterpret_cast<const uint32_t*>(queries);
    lo = v[q * width];
    hi = v[q * width + width - 1u];
  }
}
