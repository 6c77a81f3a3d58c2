#version 460
#include "dpbis/dpbis_common.glsl"

// The column's values in the clustered order: position j takes the value of the row sorted there
// (dpbis_cluster_keys.comp's sort), so each bin's values lie together in row order.
layout(local_size_x = 64) in;
layout(push_constant, scalar) uniform DpBisClusterParams {
  uint64_t from;   // row id of each clustered position
  uint64_t table;  // the column in row order
  uint64_t to;     // the clustered values
  uint n;
  uint pad0;
}
pc;

void main() {
  uint j = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (j >= pc.n) return;
  U32Array(pc.to).v[j] = U32Array(pc.table).v[U32Array(pc.from).v[j]];
}
