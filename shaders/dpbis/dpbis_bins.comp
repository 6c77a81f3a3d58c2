#version 460
#include "dpbis/dpbis_common.glsl"

// Bin k starts at the first sorted position holding a value greater than the value at rank
// k * n / bins - 1, so equal values never straddle two bins; a value more frequent than a bin's
// share leaves the bins it swallows empty. starts[bins] = n.
layout(local_size_x = 64) in;
layout(push_constant, scalar) uniform DpBisBinsParams {
  uint64_t sorted;
  uint64_t starts;  // bins + 1 entries
  uint n;
  uint bins;        // at most 256
}
pc;

void main() {
  uint k = gl_GlobalInvocationID.x;
  if (k > pc.bins) return;
  U32Array starts = U32Array(pc.starts);
  if (k == 0u || pc.n == 0u) {
    starts.v[k] = k == 0u ? 0u : pc.n;
    return;
  }
  if (k == pc.bins) {
    starts.v[k] = pc.n;
    return;
  }
  uint rank = uint((uint64_t(k) * uint64_t(pc.n)) / uint64_t(pc.bins));
  if (rank == 0u) {
    starts.v[k] = 0u;
    return;
  }
  uint v = U32Array(pc.sorted).v[rank - 1u];
  uint first = rank, count = pc.n - rank;  // upper bound of v in [rank, n)
  while (count > 0u) {
    uint step = count / 2u;
    uint mid = first + step;
    if (U32Array(pc.sorted).v[mid] <= v) {
      first = mid + 1u;
      count -= step + 1u;
    } else {
      count = step;
    }
  }
  starts.v[k] = first;
}
