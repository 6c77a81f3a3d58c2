#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#include "common/records.glsl"
#include "common/rx_mapping.h"

// Turns a key column into BLAS build input on the GPU: per key its triangle (rx_key_triangle) or
// box (rx_key_box) from common/rx_mapping.h, which the OptiX build uses too. All coordinates are
// exact float32 values.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) writeonly buffer FloatArray { float v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer U32Array { uint v[]; };

layout(push_constant, scalar) uniform RxBuildParams {
  uint64_t records;  // per primitive (key, row, value) records, common/records.glsl
  uint64_t primitives;  // triangles (9 floats) or boxes (6 floats), one per primitive of this chunk
  // compress_duplicates: the record of each primitive (the first of its key's run); 0: primitive
  // p is record p
  uint64_t primitive_records;
  uint first;       // first primitive of this chunk
  uint count;       // primitives in this chunk
  uint flags;       // RX_FLAG_KEY64 | RX_FLAG_AABBS
  uint pad0;
}
pc;

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (i >= pc.count) return;
  uint p = pc.first + i;
  if (pc.primitive_records != 0ul) p = U32Array(pc.primitive_records).v[p];
  uint64_t k = load_record(pc.records, p, (pc.flags & RX_FLAG_KEY64) != 0u).key;
  FloatArray out_ = FloatArray(pc.primitives);
  if ((pc.flags & RX_FLAG_AABBS) != 0u) {
    RxBox b = rx_key_box(k);
    uint o = i * 6u;
    out_.v[o + 0u] = b.lo.x; out_.v[o + 1u] = b.lo.y; out_.v[o + 2u] = b.lo.z;
    out_.v[o + 3u] = b.hi.x; out_.v[o + 4u] = b.hi.y; out_.v[o + 5u] = b.hi.z;
  } else {
    RxTriangle t = rx_key_triangle(k);
    uint o = i * 9u;
    out_.v[o + 0u] = t.a.x; out_.v[o + 1u] = t.a.y; out_.v[o + 2u] = t.a.z;
    out_.v[o + 3u] = t.b.x; out_.v[o + 4u] = t.b.y; out_.v[o + 5u] = t.b.z;
    out_.v[o + 6u] = t.c.x; out_.v[o + 7u] = t.c.y; out_.v[o + 8u] = t.c.z;
  }
}
