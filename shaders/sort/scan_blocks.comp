#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// Exclusive prefix sum of uint counters in blocks of 4096 (256 threads x 16 consecutive values);
// each block's total goes to block_sums (when given) for the next level.
layout(local_size_x = 256) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Array { uint v[]; };
layout(push_constant, scalar) uniform ScanParams {
  uint64_t data;
  uint64_t block_sums;  // 0: single block, no totals needed
  uint count;
  uint pad0;
}
pc;

shared uint partial[256];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint block = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint first = block * 4096u + t * 16u;
  U32Array data = U32Array(pc.data);
  uint vals[16];
  uint sum = 0u;
  for (uint k = 0u; k < 16u; ++k) {
    uint i = first + k;
    vals[k] = i < pc.count ? data.v[i] : 0u;
    sum += vals[k];
  }
  partial[t] = sum;
  barrier();
  // Hillis-Steele inclusive scan of the 256 thread sums.
  for (uint off = 1u; off < 256u; off <<= 1u) {
    uint add = t >= off ? partial[t - off] : 0u;
    barrier();
    partial[t] += add;
    barrier();
  }
  uint running = partial[t] - sum;  // exclusive prefix of this thread's values
  for (uint k = 0u; k < 16u; ++k) {
    uint i = first + k;
    if (i < pc.count) data.v[i] = running;
    running += vals[k];
  }
  if (t == 255u && pc.block_sums != 0ul) U32Array(pc.block_sums).v[block] = partial[255];
}
