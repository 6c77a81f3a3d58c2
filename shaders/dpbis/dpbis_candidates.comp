#version 460
#include "dpbis/dpbis_common.glsl"

// Algorithm 2: the values of the boundary bins, checked exactly (lo <= v <= hi, bounds included),
// set their rows' bits through the row ids. Both boundary bins in one dispatch (one launch and
// one tail less per predicate): invocations first cover the 16-byte chunks of [begin0, end0),
// then those of [begin1, end1). Each loads the 4 values and the 4 row ids of its chunk as two
// 16-byte loads, both issued before the compare (the row id was a load that waited on the value
// before); positions outside its range are skipped. Sorted values and row ids are padded to whole
// chunks and start 16-byte aligned.
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer U32x4Array { uvec4 v[]; };
layout(push_constant, scalar) uniform DpBisCandidatesParams {
  uint64_t sorted;
  uint64_t rows;
  uint64_t bitmap;
  uint begin0;  // sorted positions [begin0, end0) and [begin1, end1): the boundary bins
  uint end0;
  uint begin1;
  uint end1;
  uint lo;
  uint hi;
}
pc;

// 16-byte chunks that hold positions of [begin, end).
uint chunks(uint begin, uint end) {
  return end > begin ? (end - 1u) / 4u + 1u - begin / 4u : 0u;
}

void main() {
  uint q = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  uint begin = pc.begin0, end = pc.end0;
  uint first = chunks(begin, end);
  if (q >= first) {
    q -= first;
    begin = pc.begin1;
    end = pc.end1;
    if (q >= chunks(begin, end)) return;
  }
  uint chunk = begin / 4u + q;
  uvec4 v = U32x4Array(pc.sorted).v[chunk];
  uvec4 r = U32x4Array(pc.rows).v[chunk];
  for (uint j = 0u; j < 4u; ++j) {
    uint p = chunk * 4u + j;
    if (p < begin || p >= end || v[j] < pc.lo || v[j] > pc.hi) continue;
    atomicOr(U32Array(pc.bitmap).v[r[j] >> 5u], 1u << (r[j] & 31u));
  }
}
