#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// Compaction: each word writes the row ids of its set bits, in order, at its exclusive prefix of
// the word population counts. Row ids come out ascending.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer WordArray { uint w[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) writeonly buffer RowArray { uint r[]; };

layout(push_constant, scalar) uniform BitmapRowsParams {
  uint64_t bitmap;
  uint64_t offsets;  // exclusive prefix sums of the words' population counts
  uint64_t rows;     // output
  uint words;
  uint pad0;
}
pc;

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (i >= pc.words) return;
  uint bits = WordArray(pc.bitmap).w[i];
  uint at = WordArray(pc.offsets).w[i];
  while (bits != 0u) {
    uint b = findLSB(bits);
    RowArray(pc.rows).r[at++] = i * 32u + b;
    bits &= bits - 1u;
  }
}
