#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#include "common/records.glsl"
#include "cgrx/cgrx_geometry.h"

// The cgRX layout's device work, by pc.stage:
//   0: each bucket's representative, its last (largest) key, out of the key-sorted records (the
//      host-data build reads these back and lays out triangles on the host: cgrx_layout.cpp).
//   1: the device build's scene (cgrx_build): what cgrx_scene() computes, in fixed slots so that
//      the primitive count is known without reading anything back: bucket b owns primitive b
//      (its representative), num_buckets + b (its row marker) and 2 num_buckets + b (its plane
//      marker); a slot the host layout would not fill holds a triangle no ray reaches (unused()).
//      Slots keep key order within each section, as on the host.
//      Also each mapped representative's gap (0xFFFFFFFF elsewhere, sorting last) and the counts.
//   2: one thread after the gaps are sorted: the ray window at kRayWindowQuantile (0.999) of the
//      representatives' gaps, in integers (floor(999 (m - 1) / 1000) equals the host's double
//      product's truncation for every m < 2^32: 0.999's rounding error moves it by < 1e-8).
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

// A slot the host layout leaves out: a triangle in the plane z = -4.5, which no ray reaches (every
// ray stays at z >= 0, cgrx_geometry.h). Not NaN vertices (Vulkan's inactive triangles): with
// them lavapipe's rays named wrong buckets and most lookups fell back to the bucket search.
void unused(uint64_t prim) {
  put_vertex(prim, 0u, -4.0f, -4.0f, -4.5f);
  put_vertex(prim, 1u, -3.0f, -4.0f, -4.5f);
  put_vertex(prim, 2u, -4.0f, -3.0f, -4.5f);
}

// The vertices are cgrx_layout.cpp's (representative, row_marker, plane_marker), in its order.
void scene(uint b) {
  uint64_t nb = uint64_t(pc.num_buckets);
  // 3 num_buckets <= 2^32 - 1 primitives (the host checks the device's limit first).
  U32Buf(pc.buckets).v[b] = b;
  U32Buf(pc.buckets).v[uint(nb) + b] = b;
  U32Buf(pc.buckets).v[2u * uint(nb) + b] = b;
  uint64_t key = U64Buf(pc.reps).v[b];
  uint64_t prev = b == 0u ? 0ul : U64Buf(pc.reps).v[b - 1u];
  bool first_of_key = b == 0u || prev != key;
  bool new_line = first_of_key && (b == 0u || rx_line(prev) != rx_line(key));
  bool new_plane = first_of_key && (b == 0u || rx_part_z(prev) != rx_part_z(key));
  float x = float(rx_part_x(key)), y = float(rx_part_y(key)), z = float(rx_part_z(key));
  if (first_of_key) {
    put_vertex(b, 0u, x - 0.5f, y + 0.5f, z - 0.5f);
    put_vertex(b, 1u, x - 0.5f, y - 0.5f, z - 0.5f);
    put_vertex(b, 2u, x + 0.5f, y, z + 0.5f);
    U32Buf(pc.gaps).v[b] = new_line ? rx_part_x(key) + 1u : rx_part_x(key) - rx_part_x(prev);
    atomicAdd(U32Buf(pc.stats).v[0], 1u);
  } else {
    unused(b);
    U32Buf(pc.gaps).v[b] = 0xFFFFFFFFu;
  }
  if (new_line) {
    put_vertex(nb + b, 0u, -1.5f, y, z - 0.5f);
    put_vertex(nb + b, 1u, -0.5f, y, z - 0.5f);
    put_vertex(nb + b, 2u, -1.0f, y, z + 0.5f);
    atomicAdd(U32Buf(pc.stats).v[1], 1u);
  } else {
    unused(nb + b);
  }
  if (new_plane) {
    put_vertex(2ul * nb + b, 0u, -1.5f, -1.5f, z);
    put_vertex(2ul * nb + b, 1u, -0.5f, -1.5f, z);
    put_vertex(2ul * nb + b, 2u, -1.0f, -0.5f, z);
    atomicAdd(U32Buf(pc.stats).v[2], 1u);
  } else {
    unused(2ul * nb + b);
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
    scene(b);
  } else if (b == 0u) {
    uint m = U32Buf(pc.stats).v[0];  // >= 1: bucket 0 is always mapped
    uint q = uint((uint64_t(m - 1u) * 999ul) / 1000ul);
    uint g = U32Buf(pc.gaps).v[q];
    U32Buf(pc.stats).v[3] = g >= RX_LINE_LENGTH ? 0u : g;
  }
}
