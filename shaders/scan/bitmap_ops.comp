#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// Word-parallel bitmap operations: a = a AND b, a = a OR b, a = NOT a (bits past `rows` stay 0),
// and per-word population counts for counting and compaction.
//
// Memory-bound: each invocation owns 4 consecutive words and moves them as one 16-byte load or
// store per bitmap (one 4-byte load per invocation kept too few bytes in flight to cover DRAM
// latency); the last invocation, whose words may run past the end, goes word by word. Bitmaps
// start 16-byte aligned (buffers are).
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer WordArray { uint w[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Word4Array { uvec4 v[]; };

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

// The bits of word i that lie before `rows`.
uint valid_bits(uint i) {
  uint valid = pc.rows - i * 32u;
  return valid >= 32u ? 0xFFFFFFFFu : ((1u << valid) - 1u);
}

uint apply(uint x, uint y, uint i) {
  if (pc.op == BITMAP_AND) return x & y;
  if (pc.op == BITMAP_OR) return x | y;
  return ~x & valid_bits(i);
}

void main() {
  uint q = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  uint first = q * 4u;
  if (first >= pc.words) return;
  if (pc.words - first >= 4u) {
    Word4Array a = Word4Array(pc.a);
    Word4Array b = Word4Array(pc.b);
    uvec4 x = a.v[q];
    if (pc.op == BITMAP_POPCOUNT) {
      b.v[q] = uvec4(bitCount(x));
    } else if (pc.op == BITMAP_NOT) {
      a.v[q] = ~x & uvec4(valid_bits(first), valid_bits(first + 1u), valid_bits(first + 2u),
                          valid_bits(first + 3u));
    } else {
      uvec4 y = b.v[q];
      a.v[q] = pc.op == BITMAP_AND ? x & y : x | y;
    }
    return;
  }
  WordArray a = WordArray(pc.a);
  WordArray b = WordArray(pc.b);
  for (uint i = first; i < pc.words; ++i) {
    if (pc.op == BITMAP_POPCOUNT)
      b.w[i] = bitCount(a.w[i]);
    else
      a.w[i] = apply(a.w[i], pc.op == BITMAP_NOT ? 0u : b.w[i], i);
  }
}
