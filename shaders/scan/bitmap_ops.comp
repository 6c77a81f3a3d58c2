#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// Word-parallel bitmap operations: a = a AND b, a = a OR b, a = NOT a (bits past `rows` stay 0),
// and per-word population counts for counting and compaction.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer WordArray { uint w[]; };

#define BITMAP_AND 0u
#define BITMAP_OR 1u
#define BITMAP_NOT 2u
#define BITMAP_POPCOUNT 3u  // b[i] = bitCount(a[i])

layout(push_constant, scalar) uniform BitmapOpParams {
  uint64_t a;
  uint64_t b;
  uint words;
  uint rows;
  uint op;
  uint pad0;
}
pc;

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (i >= pc.words) return;
  WordArray a = WordArray(pc.a);
  WordArray b = WordArray(pc.b);
  if (pc.op == BITMAP_AND) {
    a.w[i] &= b.w[i];
  } else if (pc.op == BITMAP_OR) {
    a.w[i] |= b.w[i];
  } else if (pc.op == BITMAP_NOT) {
    uint valid = pc.rows - i * 32u;
    uint mask = valid >= 32u ? 0xFFFFFFFFu : ((1u << valid) - 1u);
    a.w[i] = ~a.w[i] & mask;
  } else {
    b.w[i] = bitCount(a.w[i]);
  }
}
