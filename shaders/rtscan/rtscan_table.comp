#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// Uniform Encoding's mapping table on the GPU, in two passes over the sorted values.
// stage 0: starts[i] = 1 where a new value begins (i == 0 or sorted[i] != sorted[i - 1]), else 0.
// (An exclusive prefix sum then turns starts into each distinct value's slot in the table.)
// stage 1: a row that starts a value writes it and its first code (i + 1) to that slot; the last
// row writes the number of distinct values, so the host reads one word before the table.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer Words { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer RwWords { uint v[]; };

layout(push_constant, scalar) uniform RtScanTableParams {
  uint64_t sorted_values;
  uint64_t slots;     // stage 0: the start flags; stage 1: their exclusive prefix sum
  uint64_t values;    // distinct values (stage 1)
  uint64_t lo_codes;  // first code of each distinct value (stage 1)
  uint64_t distinct;  // one word: the number of distinct values (stage 1)
  uint rows;
  uint stage;
}
pc;

bool starts_value(uint i) {
  Words s = Words(pc.sorted_values);
  return i == 0u || s.v[i] != s.v[i - 1u];
}

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (i >= pc.rows) return;
  bool start = starts_value(i);
  if (pc.stage == 0u) {
    RwWords(pc.slots).v[i] = start ? 1u : 0u;
    return;
  }
  uint slot = RwWords(pc.slots).v[i];
  if (start) {
    RwWords(pc.values).v[slot] = Words(pc.sorted_values).v[i];
    RwWords(pc.lo_codes).v[slot] = i + 1u;
  }
  if (i == pc.rows - 1u) RwWords(pc.distinct).v[0] = slot + (start ? 1u : 0u);
}
