// The 16-byte key records of shaders/common/records.glsl as the OptiX programs read them:
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
