#version 460
// The star-join baseline in Crystal's style: one fused pass over lineorder per query. Each
// dimension is a perfect-hash table (indexed by key - min key) holding, per key, NONE when the
// row fails the query's filters on that dimension, else its share of the group index; lineorder's
// own filters (Q1.x discount and quantity) are ranges. Matching rows add their value to their
// group with 64-bit atomics.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 64) in;

layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer U32s { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Counts { uint c[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Sums { uint64_t s[]; };

// Mirrors raydb::ssb::detail::SsbStarJoinParams.
layout(push_constant, scalar) uniform SsbStarJoinParams {
  uint64_t columns;  // lineorder, column-major, n rows each: orderdate, custkey, suppkey,
                     // partkey, quantity, discount, extendedprice, revenue, supplycost
  uint64_t dims;     // the dimension tables, one after the other
  uint64_t sums, counts;
  uint n, aggregate;  // 0: extendedprice * discount, 1: revenue, 2: revenue - supplycost
  uint dim_offset[4], dim_min[4], dim_len[4];  // date, customer, supplier, part; len 0: unused
  uint disc_lo, disc_hi, qty_lo, qty_hi;
}
pc;

const uint kNone = 0xFFFFFFFFu;

void main() {
  uint r = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u +
           gl_LocalInvocationID.x;
  if (r >= pc.n) return;
  U32s col = U32s(pc.columns);
  uint g = 0u;
  for (uint d = 0u; d < 4u; ++d) {
    if (pc.dim_len[d] == 0u) continue;
    uint idx = col.v[d * pc.n + r] - pc.dim_min[d];  // wraps past dim_len below the minimum
    if (idx >= pc.dim_len[d]) return;
    uint share = U32s(pc.dims).v[pc.dim_offset[d] + idx];
    if (share == kNone) return;
    g += share;
  }
  uint qty = col.v[4u * pc.n + r], disc = col.v[5u * pc.n + r];
  if (qty < pc.qty_lo || qty > pc.qty_hi || disc < pc.disc_lo || disc > pc.disc_hi) return;
  int64_t value;
  if (pc.aggregate == 0u)
    value = int64_t(col.v[6u * pc.n + r]) * int64_t(disc);
  else if (pc.aggregate == 1u)
    value = int64_t(col.v[7u * pc.n + r]);
  else
    value = int64_t(col.v[7u * pc.n + r]) - int64_t(col.v[8u * pc.n + r]);
  atomicAdd(Sums(pc.sums).s[g], uint64_t(value));
  atomicAdd(Counts(pc.counts).c[g], 1u);
}
