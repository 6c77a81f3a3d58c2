// One 16-byte record per indexed key, shared by every operator that keeps keys in key order:
// (key, row, value, 0) for 32-bit keys, (key lo, key hi, row, value) for 64-bit keys. An exact
// check, the row id and the value then cost one memory sector.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

layout(buffer_reference, scalar, buffer_reference_align = 16) readonly buffer RecordArray { uvec4 r[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer QueryArray32 { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer QueryArray64 { uint64_t v[]; };

struct KeyRecord {
  uint64_t key;
  uint row;
  uint value;
};

KeyRecord load_record(uint64_t records, uint i, bool key64) {
  uvec4 r = RecordArray(records).r[i];
  if (key64) return KeyRecord(uint64_t(r.x) | (uint64_t(r.y) << 32), r.z, r.w);
  return KeyRecord(uint64_t(r.x), r.y, r.z);
}

// Lookup q of a batch of points, or of (lo, hi) pairs when `ranges`, of the key width; a point
// is read as lo = hi. The OptiX programs' twin is load_key_query in backend/optix/key_record.cuh.
void load_key_query(uint64_t queries, uint q, bool ranges, bool key64, out uint64_t lo,
                    out uint64_t hi) {
  uint width = ranges ? 2u : 1u;
  if (key64) {
    lo = QueryArray64(queries).v[q * width];
    hi = QueryArray64(queries).v[q * width + width - 1u];
  } else {
    lo = uint64_t(QueryArray32(queries).v[q * width]);
    hi = uint64_t(QueryArray32(queries).v[q * width + width - 1u]);
  }
}
