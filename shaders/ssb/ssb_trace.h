// The SSB engine's ray and any-hit work written once for every API (RTCUDB's Algorithm 1): the
// Z interval a ray covers, and the count that adds a hit row to its group exactly once. Compiled
// as GLSL (ssb_common.glsl) and as CUDA (the OptiX programs, ssb_programs.cu).
//
// The includer defines first, for the current launch:
//   bool ssb_claim_row(RDB_U32 row)      sets the row's flag atomically; true when this call did
//   RDB_I64 ssb_row_value(RDB_U32 row)   the row's aggregated value (multiplier applied)
//   RDB_U32 ssb_row_group(RDB_U32 row)   the row's group code
//   void ssb_group_add(RDB_U32 group, RDB_I64 sum, RDB_U32 count)   atomic adds to one group
//   bool ssb_per_row_atomics()           the paper's atomics per row instead of runs
#ifndef RAYDB_SSB_TRACE_H
#define RAYDB_SSB_TRACE_H

#include "common/shared_types.h"

#if defined(__CUDACC__)
#define SSB_FN __device__ __forceinline__
#else
#define SSB_FN
#endif

// A ray runs along +Z from half a code below z_lo to half a code above z_hi: triangles sit on
// integer Z codes below 2^23, so both ends are exact and never graze a triangle.
SSB_FN float ssb_ray_start(RDB_U32 z_lo) {
  return float(z_lo) - 0.5f;
}
SSB_FN float ssb_ray_length(RDB_U32 z_lo, RDB_U32 z_hi) {
  return float(z_hi - z_lo) + 1.0f;
}

// The rows one ray counted for one group, not yet added to the group's sums: consecutive hits
// of one group cost one pair of atomics (Q1.x have a single group, which every row of every ray
// would otherwise hit). The ray's payload.
struct SsbRun {
  RDB_U32 group;  // 0xFFFFFFFF: none yet
  RDB_U32 count;
  RDB_I64 sum;
};

SSB_FN SsbRun ssb_run_start() {
  SsbRun run;
  run.group = 0xFFFFFFFFu;
  run.count = 0u;
  run.sum = RDB_I64(0);
  return run;
}

SSB_FN void ssb_run_flush(RDB_INOUT(SsbRun) run) {
  if (run.count == 0u) return;
  ssb_group_add(run.group, run.sum, run.count);
  run.count = 0u;
  run.sum = RDB_I64(0);
}

// The first hit of a row claims it and adds its value to its group (through the ray's run);
// later hits (from any ray) add nothing. Sums wrap as two's complement, so the order of the
// additions does not change them.
SSB_FN void ssb_count_row(RDB_U32 row, RDB_INOUT(SsbRun) run) {
  if (!ssb_claim_row(row)) return;
  RDB_I64 value = ssb_row_value(row);
  RDB_U32 group = ssb_row_group(row);
  if (ssb_per_row_atomics()) {
    ssb_group_add(group, value, 1u);
    return;
  }
  if (group != run.group) {
    ssb_run_flush(run);
    run.group = group;
  }
  run.sum += value;
  run.count += 1u;
}

#endif
