#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// After the key sort: writes one 16-byte record per key (common/records.glsl) with its key, row id
// and value, and counts adjacent equal keys in the sorted column (zero means the
// keys are unique, and point lookups may stop at their first hit). Optionally copies the keys in
// record order into a column of their own.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Array { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer U64Array { uint64_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 16) writeonly buffer RecordsOut { uvec4 r[]; };
layout(push_constant, scalar) uniform KeyRecordParams {
  uint64_t prim_keys;    // key of record p
  uint64_t rows;         // row id of record p; 0: p itself
  uint64_t values;       // value column in row order; 0: none (values are 0)
  uint64_t records;      // output
  uint64_t sorted_keys;  // the keys in ascending order, for the duplicate check
  uint64_t duplicates;   // one counter
  uint64_t keys_out;     // 0: none; else where record p's key also goes (a dense key column)
  uint n;
  uint key64;
}
pc;

uint64_t key_at(uint64_t column, uint i) {
  return pc.key64 != 0u ? U64Array(column).v[i] : uint64_t(U32Array(column).v[i]);
}

void main() {
  uint p = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (p >= pc.n) return;
  uint64_t key = key_at(pc.prim_keys, p);
  uint row = pc.rows == 0ul ? p : U32Array(pc.rows).v[p];
  uint value = pc.values == 0ul ? 0u : U32Array(pc.values).v[row];
  RecordsOut(pc.records).r[p] = pc.key64 != 0u ? uvec4(uint(key), uint(key >> 32), row, value)
                                                 : uvec4(uint(key), row, value, 0u);
  if (pc.keys_out != 0ul) {
    if (pc.key64 != 0u)
      U64Array(pc.keys_out).v[p] = key;
    else
      U32Array(pc.keys_out).v[p] = uint(key);
  }
  if (p == 0u) return;
  // Read first: an all-duplicate column would otherwise send every thread to one atomic.
  if (key_at(pc.sorted_keys, p) == key_at(pc.sorted_keys, p - 1u) && U32Array(pc.duplicates).v[0] == 0u)
    atomicAdd(U32Array(pc.duplicates).v[0], 1u);
}
