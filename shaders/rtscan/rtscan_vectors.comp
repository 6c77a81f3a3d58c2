#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// Sieving vectors of one column: vector v (0-based, for border v + 1) has bit r set when
// key[r] < borders[v + 1]. One invocation per (vector, word); bits past the last row stay 0.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer Keys { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer Borders { uint64_t b[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) writeonly buffer Words { uint w[]; };

layout(push_constant, scalar) uniform RtScanVectorParams {
  uint64_t keys;
  uint64_t borders;  // X_0 .. X_m; vectors for X_1 .. X_{m-1}
  uint64_t vectors;  // (m - 1) * words words, vector after vector
  uint64_t items;    // (m - 1) * words
  uint words;
  uint rows;
}
pc;

void main() {
  uint64_t item = uint64_t((gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u +
                           gl_LocalInvocationID.x);
  if (item >= pc.items) return;
  uint v = uint(item / uint64_t(pc.words));
  uint w = uint(item % uint64_t(pc.words));
  uint64_t border = Borders(pc.borders).b[v + 1u];
  Keys keys = Keys(pc.keys);
  uint word = 0u;
  uint first = w * 32u;
  uint n = min(32u, pc.rows - first);
  for (uint t = 0u; t < n; ++t)
    if (uint64_t(keys.v[first + t]) < border) word |= 1u << t;
  Words(pc.vectors + item * 4ul).w[0] = word;  // items may pass 2^32
}
