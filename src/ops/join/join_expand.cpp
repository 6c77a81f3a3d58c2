// The joins' EXPAND pass (shaders/join/sort_join.comp): an exclusive scan of the run lengths gives
// each probe key its place in an output of exactly the counted size, then each probe key copies
// its run of build rows there.
#include "ops/join/join_expand.hpp"

#include <fmt/format.h>

#include <cstring>

#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "backend/vk/radix_sort.hpp"

namespace raydb::detail {

void dispatch_sort_join(VkContext& c, VkCommandBuffer cmd, SortJoinParams p, uint64_t invocations) {
  ComputePipeline& k = kernel(c, ShaderId::sort_join, sizeof(SortJoinParams));
  const uint64_t slice = k.max_items();
  const uint64_t n = invocations;
  for (uint64_t first = 0; first < n; first += slice) {
    p.probe_offset = static_cast<uint32_t>(first);
    p.num_in_dispatch = static_cast<uint32_t>(std::min(slice, n - first));
    k.dispatch(cmd, &p, p.num_in_dispatch);
  }
}

JoinAggregate sum_lookups(std::span<const RxLookup> per_key) {
  JoinAggregate a;
  for (const RxLookup& r : per_key) {
    a.matches += r.count;
    a.build_value_sum += r.sum;
  }
  return a;
}

void check_pair_count(uint64_t pairs) {
  if (pairs > 0xFFFFFFFEull)
    throw Error(Errc::limit_exceeded,
                fmt::format("the join has {} pairs, more than the 2^32 - 1 one pass can write; "
                            "use the aggregate or split the probe side",
                            pairs));
}

std::vector<JoinPair> expand_pairs(VkContext& c, SortJoinParams p, uint64_t total, double& ms) {
  check_pair_count(total);
  std::vector<JoinPair> out(total);
  ms = 0;
  if (total == 0) return out;
  Buffer pairs(c, total * 8, kStorageUsage, MemoryUse::device, "join pairs");
  Buffer pairs_host(c, total * 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                    "join pairs readback");
  RadixSort scan(c);
  RadixSort::Temps temps;
  CommandBatch batch(c);
  VkCommandBuffer cmd = batch.cmd();
  GpuTimer timer(c, 2);
  timer.reset(cmd);
  uint32_t t0 = timer.mark(cmd);
  scan.record_exclusive_scan(cmd, p.offsets, p.num_probe, temps);
  compute_barrier(c, cmd);
  p.mode = kModeExpand;
  p.flags &= ~kFlagSum;
  p.pairs = pairs.address();
  p.total_pairs = static_cast<uint32_t>(total);
  dispatch_sort_join(c, cmd, p, p.num_probe);
  uint32_t t1 = timer.mark(cmd);
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
  VkBufferCopy region{0, 0, total * 8};
  c.vk.vkCmdCopyBuffer(cmd, pairs.handle(), pairs_host.handle(), 1, &region);
  batch.submit_and_wait();
  ms = timer.ms(t0, t1);
  pairs_host.invalidate();
  static_assert(sizeof(JoinPair) == 8);
  std::memcpy(out.data(), pairs_host.mapped(), total * 8);
  return out;
}

}  // namespace raydb::detail
