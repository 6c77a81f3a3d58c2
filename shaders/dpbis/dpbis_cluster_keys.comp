#version 460
#include "dpbis/dpbis_common.glsl"

// The sort key that clusters rows by bin (Refine::in_select over sieving vectors): row i's code in
// the top byte. RadixSort::record from bit 16 then sorts the rows by code, each bin's in row order,
// and its last pass leaves every 4096-row tile's position in each bin (docs/dpbis_refine.md).
layout(local_size_x = 64) in;
layout(push_constant, scalar) uniform DpBisClusterParams {
  uint64_t from;   // the codes, four a word
  uint64_t table;  // unused (dpbis_cluster_values.comp's layout)
  uint64_t to;     // one key per row
  uint n;
  uint pad0;
}
pc;

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (i >= pc.n) return;
  uint code = (U32Array(pc.from).v[code_word(i)] >> code_shift(i)) & 0xFFu;
  U32Array(pc.to).v[i] = code << 24u;
}
