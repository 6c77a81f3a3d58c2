#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// Uniform Encoding's mapping table and the sieving borders on the GPU, so that neither has to
// come back to the host (refine_plan.hpp's sieve_borders is the host's twin of stages 2 and 3).
// stage 0: starts[i] = 1 where a new value begins (i == 0 or sorted[i] != sorted[i - 1]), else 0.
// (An exclusive prefix sum then turns starts into each distinct value's slot in the table.)
// stage 1: a row that starts a value writes it and its first code (i + 1) to that slot; the last
// row writes the number of distinct values d.
// stage 2, one invocation per bin i: X'_i, the code at rank floor(i * rows / bins) moved back to
// its value's first code (a binary search over the d first codes), and whether it differs from
// X'_{i-1} (equal borders collapse, so a value never straddles two bins).
// (An exclusive prefix sum turns the flags into each kept border's index.)
// stage 3: kept borders go to their index as int64 (what rtscan_vectors.comp reads); the last bin
// also writes X_m = rows + 1 and the number of borders, m + 1.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer Words { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer RwWords { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer Borders {
  int64_t b[];
};

// Mirrors RtScanTableParams in gpu_encoding.cpp.
layout(push_constant, scalar) uniform RtScanTableParams {
  uint64_t sorted_values;
  uint64_t slots;     // stage 0: the start flags; stage 1: their exclusive prefix sum
  uint64_t values;    // distinct values (stage 1)
  uint64_t lo_codes;  // first code of each distinct value (stage 1)
  uint64_t distinct;  // two words: d (stage 1), then the number of borders m + 1 (stage 3)
  uint64_t bin_codes; // X'_i per bin (stages 2, 3)
  uint64_t bin_slots; // stage 2: keep flags; stage 3: their exclusive prefix sum
  uint64_t borders;   // X_0 .. X_m (stage 3), bins + 1 int64 at most
  uint rows;
  uint stage;
  uint bins;
  uint pad;
}
pc;

bool starts_value(uint i) {
  Words s = Words(pc.sorted_values);
  return i == 0u || s.v[i] != s.v[i - 1u];
}

// The first code of the value holding code `code` (1 <= code <= rows): the last first code
// <= code, as the host's upper_bound - 1.
uint first_code_of(uint code) {
  Words lo = Words(pc.lo_codes);
  uint a = 0u, b = Words(pc.distinct).v[0];  // lo[a] <= code < lo[b] (lo[d] = past the end)
  while (b - a > 1u) {
    uint mid = a + (b - a) / 2u;
    if (lo.v[mid] <= code)
      a = mid;
    else
      b = mid;
  }
  return lo.v[a];
}

uint bin_border(uint i) {
  return first_code_of(uint(uint64_t(i) * uint64_t(pc.rows) / uint64_t(pc.bins)) + 1u);
}

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (pc.stage >= 2u) {
    if (i >= pc.bins) return;
    if (pc.stage == 2u) {
      uint x = bin_border(i);
      RwWords(pc.bin_codes).v[i] = x;
      RwWords(pc.bin_slots).v[i] = i == 0u || bin_border(i - 1u) != x ? 1u : 0u;
      return;
    }
    uint x = RwWords(pc.bin_codes).v[i];
    uint slot = RwWords(pc.bin_slots).v[i];
    bool keep = i == 0u || RwWords(pc.bin_codes).v[i - 1u] != x;
    if (keep) Borders(pc.borders).b[slot] = int64_t(x);
    if (i == pc.bins - 1u) {
      uint m = slot + (keep ? 1u : 0u);
      Borders(pc.borders).b[m] = int64_t(pc.rows) + 1l;
      RwWords(pc.distinct).v[1] = m + 1u;
    }
    return;
  }
  if (i >= pc.rows) return;
  bool start = starts_value(i);
  if (pc.stage == 0u) {
    RwWords(pc.slots).v[i] = start ? 1u : 0u;
    return;
  }
  uint slot = RwWords(pc.slots).v[i];
  if (start) {
    RwWords(pc.values).v[slot] = Words(pc.sorted_values).v[i];
    RwWords(pc.lo_codes).v[slot] = i + 1u;
  }
  if (i == pc.rows - 1u) RwWords(pc.distinct).v[0] = slot + (start ? 1u : 0u);
}
