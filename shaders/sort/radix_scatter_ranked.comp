#version 460
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "sort/radix_common.glsl"

// Moves one tile's elements to their sorted places, stably, as radix_scatter.comp does, but with
// few barriers and written in runs. radix_scatter.comp ranks 256 elements a round behind three
// barriers and writes each to its own place; on an H100 it took 0.2 ms a pass for 4 Mi keys,
// ten times the histogram, and at 128 Mi keys its scattered 4-byte writes cost a 32-byte sector
// each. Here:
// 1. Subgroup g owns a contiguous part of the tile and takes it gl_SubgroupSize elements at a
//    time. Lanes with equal digits find one another with eight ballots (one per digit bit); the
//    lowest of them adds their number to the subgroup's counter for that digit (two 16-bit
//    counters a word, so that 32 subgroups' counters fit in the staging memory) and shares the
//    count before them. Within the tile an element's rank among equal digits is then: the counts
//    of the subgroups before its own, the count before its step, the lanes below it in the step.
// 2. The tile is sorted by digit in shared memory, and each invocation writes out consecutive
//    sorted elements: runs of equal digits (16 on average) go to consecutive addresses.
// Needs subgroups of 8 to 128 lanes that divide the workgroup (RadixSort checks), ballots,
// shuffles and adds; radix_scatter.comp is the fallback.
shared uint staging[RADIX_TILE];         // the subgroups' digit counters, then the sorted tile
shared uint digit_base[RADIX_DIGITS];    // where this tile's elements of a digit go in the output
shared uint digit_start[RADIX_DIGITS];   // where they start in the tile's sorted order
shared uint subgroup_total[RADIX_THREADS / 8u];

const uint kCounterWords = RADIX_DIGITS / 2u;  // one subgroup's counters

uint counter(uint subgroup, uint d) {
  return (staging[subgroup * kCounterWords + (d >> 1u)] >> ((d & 1u) * 16u)) & 0xFFFFu;
}

// The 32-bit half of a key that holds this pass's digit (the whole key when keys are 32-bit).
uint digit_half(uint64_t key) { return pc.shift >= 32u ? uint(key >> 32u) : uint(key); }
uint digit_in_half(uint half_key) { return (half_key >> (pc.shift & 31u)) & 0xFFu; }

void main() {
  const uint t = gl_LocalInvocationIndex;
  const uint tile = tile_index();
  const uint g = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  const uint part = RADIX_TILE / gl_NumSubgroups;  // elements each subgroup owns
  const uint tile_first = tile * RADIX_TILE;
  const uint valid_count = min(RADIX_TILE, pc.n - tile_first);

  for (uint k = t; k < RADIX_TILE; k += RADIX_THREADS) staging[k] = 0u;
  digit_base[t] = U32Array(pc.hist).v[t * pc.num_tiles + tile];

  // All loads first, so that they are in flight together.
  uint64_t keys[RADIX_ITEMS];
  uint rows[RADIX_ITEMS];
  uint valid = 0u;  // bit r: element r exists
  for (uint r = 0u; r < RADIX_ITEMS; ++r) {
    const uint p = g * part + r * gl_SubgroupSize + lane;
    const uint i = tile_first + p;
    keys[r] = 0ul;
    rows[r] = i;
    if (p < valid_count) {
      valid |= 1u << r;
      keys[r] = load_key(i);
      if (pc.rows_in != 0ul) rows[r] = U32Array(pc.rows_in).v[i];
    }
  }
  barrier();

  // 1. Ranks among equal digits, within the subgroup's part.
  uint pos[RADIX_ITEMS];
  for (uint r = 0u; r < RADIX_ITEMS; ++r) {
    const bool present = ((valid >> r) & 1u) != 0u;
    const uint d = digit_of(keys[r]);
    uvec4 peers = subgroupBallot(present);
    for (uint b = 0u; b < 8u; ++b) {
      const bool set = ((d >> b) & 1u) != 0u;
      const uvec4 votes = subgroupBallot(set);
      peers &= set ? votes : ~votes;
    }
    const uint below = subgroupBallotExclusiveBitCount(peers);
    const uint same = subgroupBallotBitCount(peers);
    const uint leader = present ? subgroupBallotFindLSB(peers) : lane;
    uint before = 0u;
    if (present && lane == leader) {
      const uint shift = (d & 1u) * 16u;
      before = (atomicAdd(staging[g * kCounterWords + (d >> 1u)], same << shift) >> shift) & 0xFFFFu;
    }
    pos[r] = subgroupShuffle(before, leader) + below;
  }
  barrier();

  // Each subgroup's counters become the counts of the subgroups before it (both halves of a word
  // at once: no half exceeds the tile, so no carry crosses); their sums are the tile's counts.
  if (t < kCounterWords) {
    uint running = 0u;
    for (uint s = 0u; s < gl_NumSubgroups; ++s) {
      const uint c = staging[s * kCounterWords + t];
      staging[s * kCounterWords + t] = running;
      running += c;
    }
    digit_start[2u * t] = running & 0xFFFFu;
    digit_start[2u * t + 1u] = running >> 16u;
  }
  barrier();
  // Exclusive scan of the tile's counts over the digits.
  const uint q = g * gl_SubgroupSize + lane;  // this invocation's digit
  const uint count = digit_start[q];
  const uint in_subgroup = subgroupExclusiveAdd(count);
  const uint total = subgroupAdd(count);
  if (lane == 0u) subgroup_total[g] = total;
  barrier();
  uint start = in_subgroup;
  for (uint s = 0u; s < g; ++s) start += subgroup_total[s];
  digit_start[q] = start;
  barrier();

  for (uint r = 0u; r < RADIX_ITEMS; ++r) {
    const uint d = digit_of(keys[r]);
    pos[r] += digit_start[d] + counter(g, d);
  }
  barrier();  // the counters are read; staging now holds sorted elements

  // 2. Sorted in shared memory, written out in order: the half of the key with the digit first,
  // which gives each sorted element its destination, then the other half, then the row ids.
  uint dest[RADIX_ITEMS];
  for (uint r = 0u; r < RADIX_ITEMS; ++r)
    if (((valid >> r) & 1u) != 0u) staging[pos[r]] = digit_half(keys[r]);
  barrier();
  const uint digit_word = pc.key64 != 0u && pc.shift >= 32u ? 1u : 0u;
  const uint key_words = pc.key64 != 0u ? 2u : 1u;
  for (uint r = 0u; r < RADIX_ITEMS; ++r) {
    const uint j = r * RADIX_THREADS + t;
    if (j < valid_count) {
      const uint half_key = staging[j];
      const uint d = digit_in_half(half_key);
      dest[r] = digit_base[d] + j - digit_start[d];
      U32Array(pc.keys_out).v[dest[r] * key_words + digit_word] = half_key;
    }
  }
  barrier();
  if (pc.key64 != 0u) {
    for (uint r = 0u; r < RADIX_ITEMS; ++r)
      if (((valid >> r) & 1u) != 0u)
        staging[pos[r]] = pc.shift >= 32u ? uint(keys[r]) : uint(keys[r] >> 32u);
    barrier();
    for (uint r = 0u; r < RADIX_ITEMS; ++r) {
      const uint j = r * RADIX_THREADS + t;
      if (j < valid_count) U32Array(pc.keys_out).v[dest[r] * 2u + (1u - digit_word)] = staging[j];
    }
    barrier();
  }
  for (uint r = 0u; r < RADIX_ITEMS; ++r)
    if (((valid >> r) & 1u) != 0u) staging[pos[r]] = rows[r];
  barrier();
  for (uint r = 0u; r < RADIX_ITEMS; ++r) {
    const uint j = r * RADIX_THREADS + t;
    if (j < valid_count) U32Array(pc.rows_out).v[dest[r]] = staging[j];
  }
}
