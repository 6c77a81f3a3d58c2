#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// Full scan: a conjunction of predicates over uint32 columns into a bitmap. A workgroup of 64
// threads owns 2048 rows (64 bitmap words): thread t reads rows t, t + 64, ... so that loads are
// coalesced, and sets its bits in shared words, which it then writes out whole; no global atomics.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer U32Array { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) writeonly buffer WordArray { uint w[]; };

// One predicate: a column's address and lo <= value <= hi (every comparison is rewritten so).
struct ScanPredicate {
  uint64_t column;
  uint lo;
  uint hi;
};
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer PredicateArray { ScanPredicate p[]; };

// Mirrors raydb::detail::FullScanParams.
layout(push_constant, scalar) uniform FullScanParams {
  uint64_t predicates;
  uint64_t bitmap;
  uint rows;
  uint num_predicates;
}
pc;

shared uint result[64];
shared uint match[64];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint base = group * 2048u;
  uint word_first = base + t * 32u;  // first row of the word thread t owns
  uint in_word = word_first >= pc.rows ? 0u : min(32u, pc.rows - word_first);
  result[t] = in_word == 32u ? 0xFFFFFFFFu : ((1u << in_word) - 1u);
  for (uint k = 0u; k < pc.num_predicates; ++k) {
    ScanPredicate p = PredicateArray(pc.predicates).p[k];
    U32Array col = U32Array(p.column);
    match[t] = 0u;
    barrier();
    for (uint i = 0u; i < 32u; ++i) {
      uint local = i * 64u + t;
      uint row = base + local;
      if (row < pc.rows) {
        uint v = col.v[row];
        if (v >= p.lo && v <= p.hi) atomicOr(match[local >> 5u], 1u << (local & 31u));
      }
    }
    barrier();
    result[t] &= match[t];
    barrier();
  }
  uint word = group * 64u + t;
  if (word * 32u < pc.rows) WordArray(pc.bitmap).w[word] = result[t];
}
