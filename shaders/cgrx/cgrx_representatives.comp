#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#include "common/records.glsl"
#include "cgrx/cgrx_geometry.h"

// The cgRX layout's device work, by pc.stage:
//   0: each bucket's representative, its last (largest) key, out of the key-sorted records (the
//      host-data build reads these back and lays out triangles on the host: cgrx_layout.cpp).
//   1: the device build (cgrx_build): which of its bucket's three primitives cgrx_scene() lays
//      out (representative, row marker, plane marker), as 0/1 in three sections of pc.slots
//      (bucket b at b, num_buckets + b, 2 num_buckets + b), the counts, and each mapped
//      representative's gap (0xFFFFFFFF elsewhere, so that they sort last).
//   2: after the host's commands turned pc.slots into an exclusive prefix sum and sorted the
//      gaps: each laid-out primitive at its position, which is the host layout's (sections in
//      order, key order within each), so the first representatives + row markers + plane
//      markers triangles are cgrx_scene()'s. Thread 0 also takes the ray window at
//      kRayWindowQuantile (0.999) of the representatives' gaps, in integers:
//      floor(999 (m - 1) / 1000) equals the host's truncated double product for every m < 2^32
//      (0.999's rounding error moves it by < 1e-8, never across an integer).
// Not Vulkan's inactive (NaN) triangles to pad 3 num_buckets slots instead of counting: with
// them, lavapipe's rays named wrong buckets and most lookups fell back to the bucket search.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer U64Buf { uint64_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Buf { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) writeonly buffer VertexOut { vec3 v; };

layout(push_constant, scalar) uniform CgrxRepParams {
  uint64_t records;    // key order
  uint64_t reps;       // one key per bucket
  uint64_t triangles;  // stage 1: 3 num_buckets triangles, 9 floats each
  uint64_t buckets;    // stage 1: per primitive, the bucket its hit names
  uint64_t gaps;       // stages 1 and 2: per bucket
  uint64_t slots;      // stages 1 and 2: 3 num_buckets flags, then their exclusive prefix sum
  uint64_t stats;      // stages 1 and 2: representatives, row markers, plane markers, ray window
  uint num_records;
  uint num_buckets;
  uint bucket_shift;
  uint key64;
  uint stage;
  uint pad0;
}
pc;

// Triangles past 2^32 floats: an address, not an index (array indices are 32-bit).
void put_vertex(uint64_t prim, uint v, float x, float y, float z) {
  VertexOut(pc.triangles + (prim * 3ul + uint64_t(v)) * 12ul).v = vec3(x, y, z);
}

struct Bucket {
  uint64_t key, prev;
  bool first_of_key, new_line, new_plane;
};

// cgrx_scene()'s decisions for bucket b.
Bucket bucket_of(uint b) {
  Bucket r;
  r.key = U64Buf(pc.reps).v[b];
  r.prev = b == 0u ? 0ul : U64Buf(pc.reps).v[b - 1u];
  r.first_of_key = b == 0u || r.prev != r.key;
  r.new_line = r.first_of_key && (b == 0u || rx_line(r.prev) != rx_line(r.key));
  r.new_plane = r.first_of_key && (b == 0u || rx_part_z(r.prev) != rx_part_z(r.key));
  return r;
}

// 3 num_buckets <= 2^32 - 1 primitives: the host checks the device's limit first.
void flags(uint b) {
  uint nb = pc.num_buckets;
  Bucket r = bucket_of(b);
  U32Buf(pc.slots).v[b] = r.first_of_key ? 1u : 0u;
  U32Buf(pc.slots).v[nb + b] = r.new_line ? 1u : 0u;
  U32Buf(pc.slots).v[2u * nb + b] = r.new_plane ? 1u : 0u;
  if (r.first_of_key) {
    uint x = rx_part_x(r.key);
    U32Buf(pc.gaps).v[b] = r.new_line ? x + 1u : x - rx_part_x(r.prev);
    atomicAdd(U32Buf(pc.stats).v[0], 1u);
  } else {
    U32Buf(pc.gaps).v[b] = 0xFFFFFFFFu;
  }
  if (r.new_line) atomicAdd(U32Buf(pc.stats).v[1], 1u);
  if (r.new_plane) atomicAdd(U32Buf(pc.stats).v[2], 1u);
}

// The vertices are cgrx_layout.cpp's (representative, row_marker, plane_marker), in its order.
void scatter(uint b) {
  uint nb = pc.num_buckets;
  Bucket r = bucket_of(b);
  float x = float(rx_part_x(r.key)), y = float(rx_part_y(r.key)), z = float(rx_part_z(r.key));
  if (r.first_of_key) {
    uint p = U32Buf(pc.slots).v[b];
    put_vertex(p, 0u, x - 0.5f, y + 0.5f, z - 0.5f);
    put_vertex(p, 1u, x - 0.5f, y - 0.5f, z - 0.5f);
    put_vertex(p, 2u, x + 0.5f, y, z + 0.5f);
    U32Buf(pc.buckets).v[p] = b;
  }
  if (r.new_line) {
    uint p = U32Buf(pc.slots).v[nb + b];
    put_vertex(p, 0u, -1.5f, y, z - 0.5f);
    put_vertex(p, 1u, -0.5f, y, z - 0.5f);
    put_vertex(p, 2u, -1.0f, y, z + 0.5f);
    U32Buf(pc.buckets).v[p] = b;
  }
  if (r.new_plane) {
    uint p = U32Buf(pc.slots).v[2u * nb + b];
    put_vertex(p, 0u, -1.5f, -1.5f, z);
    put_vertex(p, 1u, -0.5f, -1.5f, z);
    put_vertex(p, 2u, -1.0f, -0.5f, z);
    U32Buf(pc.buckets).v[p] = b;
  }
  if (b == 0u) {
    uint m = U32Buf(pc.stats).v[0];  // >= 1: bucket 0 is always mapped
    uint q = uint((uint64_t(m - 1u) * 999ul) / 1000ul);
    uint g = U32Buf(pc.gaps).v[q];
    U32Buf(pc.stats).v[3] = g >= RX_LINE_LENGTH ? 0u : g;
  }
}

void main() {
  uint b = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (b >= pc.num_buckets) return;
  if (pc.stage == 0u) {
    // 64-bit: near 2^32 keys, (b + 1) * bucket size may not fit in 32 bits.
    uint last = uint(min(uint64_t(b + 1u) << pc.bucket_shift, uint64_t(pc.num_records))) - 1u;
    U64Buf(pc.reps).v[b] = load_record(pc.records, last, pc.key64 != 0u).key;
  } else if (pc.stage == 1u) {
    flags(b);
  } else {
    scatter(b);
  }
}
