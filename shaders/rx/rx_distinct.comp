#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#include "common/records.glsl"

// Duplicate-key compression (RxBuildOptions::compress_duplicates): one primitive per distinct key,
// at the first record of each run of equal keys in the key-sorted records. Two passes around an
// exclusive scan (RadixSort::record_exclusive_scan):
//   mode 0: starts[p] = 1 if record p begins a run of equal keys, else 0;
//   (scan: starts[p] = how many runs begin before p = the primitive of record p's run)
//   mode 1: index[starts[p]] = p for every run start p, and count = the number of runs.
// Mode 1 recomputes "p starts a run" from the keys, since the scan overwrote the flags.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Array { uint v[]; };

layout(push_constant, scalar) uniform RxDistinctParams {
  uint64_t records;  // key-sorted records, common/records.glsl
  uint64_t starts;   // one uint per record
  uint64_t index;    // mode 1: first record of each distinct key (room for every record)
  uint64_t count;    // mode 1: one uint, the number of distinct keys
  uint n;            // records
  uint key64;
  uint mode;
  uint pad0;
}
pc;

bool run_start(uint p) {
  if (p == 0u) return true;
  return load_record(pc.records, p, pc.key64 != 0u).key !=
         load_record(pc.records, p - 1u, pc.key64 != 0u).key;
}

void main() {
  uint p = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (p >= pc.n) return;
  bool start = run_start(p);
  if (pc.mode == 0u) {
    U32Array(pc.starts).v[p] = start ? 1u : 0u;
    return;
  }
  uint slot = U32Array(pc.starts).v[p];
  if (start) U32Array(pc.index).v[slot] = p;
  if (p == pc.n - 1u) U32Array(pc.count).v[0] = slot + (start ? 1u : 0u);
}
