// What the joins share: sort_join.comp's push constants and its EXPAND pass, which turns
// per-probe-key runs of build records (start, length) into (build row, probe row) pairs; the
// aggregate of one index lookup per probe key; the limit on pairs one pass writes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backend/vk/buffer.hpp"
#include "raydb/join.hpp"

namespace raydb::detail {

// Mirrors shaders/join/sort_join.comp.
struct SortJoinParams {
  uint64_t build_keys, build_records, probe_keys, probe_records, starts, offsets, totals, pairs;
  uint32_t num_build, num_probe, probe_offset, num_in_dispatch, total_pairs, mode, flags, pad0;
};
static_assert(sizeof(SortJoinParams) == 96);

constexpr uint32_t kModeCount = 0, kModeExpand = 1, kModeMerge = 2;
// Merged elements (build and probe keys) per invocation of kModeMerge: MERGE_STEPS in the shader.
constexpr uint32_t kMergeSteps = 8;
constexpr uint32_t kFlagKey64 = 1, kFlagProbeSorted = 2, kFlagSum = 4, kFlagRowIsStart = 8,
                   kFlagRunPayload = 16;

// sort_join.comp over `invocations` invocations (one per probe key; kModeMerge: one per
// kMergeSteps merged keys), in slices of the most one dispatch takes.
void dispatch_sort_join(VkContext& c, VkCommandBuffer cmd, SortJoinParams p, uint64_t invocations);

// The matches and build-value sum (mod 2^64) of one index lookup per probe key.
JoinAggregate sum_lookups(std::span<const RxLookup> per_key);

// Errc::limit_exceeded when `pairs` is more than one pass writes (2^32 - 2: the device's pair
// counter is 32-bit), naming what to do instead.
void check_pair_count(uint64_t pairs);

// After a counting pass: `p` names the build records, the probe records (kFlagProbeSorted), the
// per-probe run starts and, in p.offsets (the buffer `offsets`), the run lengths, which this scans
// in place. Writes all `total` pairs on the GPU and reads them back; `ms` is the GPU time of the
// scan and the expand. Errc::limit_exceeded for more than 2^32 - 2 pairs.
std::vector<JoinPair> expand_pairs(VkContext& c, SortJoinParams p, uint64_t total, double& ms);

}  // namespace raydb::detail
