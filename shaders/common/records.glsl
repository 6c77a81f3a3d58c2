// One 16-byte record per indexed key, shared by every operator that keeps keys in key order:
// (key, row, value, 0) for 32-bit keys, (key lo, key hi, row, value) for 64-bit keys. An exact
// check, the row id and the value then cost one memory sector.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

layout(buffer_reference, scalar, buffer_reference_align = 16) readonly buffer RecordArray { uvec4 r[]; };

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
