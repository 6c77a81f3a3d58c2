// The join counting passes' totals (src/ops/join/sort_join.cpp): each invocation's pairs and value
// sum, reduced per workgroup of 64 and added to 64-bit totals (pairs lo, pairs hi, sum lo, sum hi)
// with 32-bit atomics: each adder sees whether its low word wrapped and carries that into the high
// word, so the words end as the exact sums mod 2^64. Every invocation of the workgroup must call
// join_add_totals (those without a probe key with zeros).

shared uint64_t join_group_pairs[64];
shared uint64_t join_group_sum[64];

void join_add_total(uint64_t totals, uint word, uint64_t x) {
  uint lo = uint(x), hi = uint(x >> 32);
  uint before = atomicAdd(JoinTotals(totals).v[word], lo);
  if (before + lo < before) hi += 1u;
  if (hi != 0u) atomicAdd(JoinTotals(totals).v[word + 1u], hi);
}

void join_add_totals(uint64_t totals, uint64_t pairs, uint64_t sum) {
  uint t = gl_LocalInvocationID.x;
  join_group_pairs[t] = pairs;
  join_group_sum[t] = sum;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1) {
    if (t < s) {
      join_group_pairs[t] += join_group_pairs[t + s];
      join_group_sum[t] += join_group_sum[t + s];
    }
    barrier();
  }
  if (t == 0u) {
    if (join_group_pairs[0] != 0ul) join_add_total(totals, 0u, join_group_pairs[0]);
    if (join_group_sum[0] != 0ul) join_add_total(totals, 2u, join_group_sum[0]);
  }
}
