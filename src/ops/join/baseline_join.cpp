// The baseline joins (shaders/join/): the build side sorted on the GPU (CUB where CUDA is
// available, the Vulkan radix sort otherwise, through KeyRecordBuilder) or put in a HashIndex;
// the probe side sorted too for the sort-merge join, in row order for the others. A counting
// pass finds each probe key's run of matching build rows and the totals (sort_join.comp by binary
// search, hash_join_count.glsl by probing the table); for pairs, an exclusive scan of the run
// lengths places each probe key's pairs in an output of exactly the counted size (sort_join.comp's
// EXPAND, for all three).
#include <fmt/format.h>

#include <cstring>
#include <optional>

#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "backend/vk/radix_sort.hpp"
#include "ops/common/key_records.hpp"
#include "ops/hash/hash_table.hpp"
#include "ops/join/join_expand.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/join.hpp"

namespace raydb {
namespace detail {

// Mirrors shaders/join/hash_join_count.glsl.
struct HashJoinCountParams {
  uint64_t slots, payloads, probe_keys, starts, offsets, totals;
  uint32_t mask, num_probe, probe_offset, num_in_dispatch, flags, pad0;
};
static_assert(sizeof(HashJoinCountParams) == 72);

constexpr uint32_t kHashUnique = 1, kHashSum = 2;

namespace {

void check_sides(KeySpan build, std::span<const uint32_t> values, KeySpan probe) {
  if (build.width != probe.width)
    throw Error(Errc::invalid_argument,
                fmt::format("join sides have {}-bit and {}-bit keys; both must have the same width",
                            to_string(build.width), to_string(probe.width)));
  validate_key_column(build, values);
  validate_key_column(probe, {});
}

// One join's device state: the build side laid out (sorted or hashed), the per-probe runs, the
// totals.
class SortJoinRun {
 public:
  SortJoinRun(const Context& ctx, BaselineJoin kind, KeySpan build,
              std::span<const uint32_t> values, KeySpan probe, JoinStats& stats)
      : c_(ctx.vk()), kind_(kind), probe_(probe), stats_(stats) {
    const bool key64 = probe.width == KeyWidth::bits64;
    p_.num_build = static_cast<uint32_t>(build.size);
    p_.num_probe = static_cast<uint32_t>(probe.size);
    p_.flags = (key64 ? kFlagKey64 : 0u) | (probe_sorted() ? kFlagProbeSorted : 0u);
    if (kind == BaselineJoin::hash) {
      hash_.emplace(HashIndex::build(ctx, build, values).value());
      table_ = hash_table_view(*hash_);
      stats_.index_ms = hash_->build_stats().sort_ms + hash_->build_stats().insert_ms;
      p_.build_records = table_.payloads;
      p_.flags |= table_.unique ? kFlagRowIsStart : kFlagRunPayload;
      return;
    }
    KeyRecordBuilder builder(c_);
    build_ = builder.build(build, values, true, "join build side", SortedKeys::owned);
    stats_.index_ms = build_.sort_ms;
    if (probe_sorted()) {
      probe_sorted_ = builder.build(probe, {}, true, "join probe side", SortedKeys::owned);
      stats_.probe_sort_ms = probe_sorted_.sort_ms;
    }
    p_.build_keys = build_.sorted_keys.address();
    p_.build_records = build_.records.address();
  }

  // The counting pass: returns (pairs, value sum over the pairs).
  JoinAggregate count(bool sum) {
    const uint64_t n = probe_.size;
    starts_ = Buffer(c_, n * 4, kStorageUsage, MemoryUse::device, "join run starts");
    offsets_ = Buffer(c_, n * 4, kStorageUsage, MemoryUse::device, "join run lengths");
    Buffer totals(c_, 16, kStorageUsage, MemoryUse::device, "join totals");
    Buffer totals_host(c_, 16, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                       "join totals readback");
    CommandBatch batch(c_);
    VkCommandBuffer cmd = batch.cmd();
    Buffer staging;
    if (!probe_sorted()) {
      probe_keys_ = Buffer(c_, probe_.bytes(), kStorageUsage, MemoryUse::device, "join probe keys");
      record_upload(c_, cmd, staging, probe_keys_, probe_.data, probe_.bytes());
    }
    c_.vk.vkCmdFillBuffer(cmd, totals.handle(), 0, 16, 0);
    memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c_);
    GpuTimer timer(c_, 2);
    timer.reset(cmd);
    uint32_t t0 = timer.mark(cmd);
    SortJoinParams p = p_;
    if (probe_sorted()) {
      p.probe_keys = probe_sorted_.sorted_keys.address();
      p.probe_records = probe_sorted_.records.address();
    } else {
      p.probe_keys = probe_keys_.address();
    }
    p.starts = starts_.address();
    p.offsets = offsets_.address();
    p.totals = totals.address();
    p.mode = kind_ == BaselineJoin::sort_merge ? kModeMerge : kModeCount;
    if (kind_ == BaselineJoin::hash) {
      HashJoinCountParams h{table_.slots,
                            table_.payloads,
                            p.probe_keys,
                            p.starts,
                            p.offsets,
                            p.totals,
                            table_.mask,
                            p.num_probe,
                            0,
                            0,
                            (table_.unique ? kHashUnique : 0u) | (sum ? kHashSum : 0u),
                            0};
      ComputePipeline& k = kernel(
          c_, p.flags & kFlagKey64 ? ShaderId::hash_join_count64 : ShaderId::hash_join_count32,
          sizeof(h));
      const uint64_t slice = k.max_items();
      for (uint64_t first = 0; first < probe_.size; first += slice) {
        h.probe_offset = static_cast<uint32_t>(first);
        h.num_in_dispatch = static_cast<uint32_t>(std::min(slice, probe_.size - first));
        k.dispatch(cmd, &h, h.num_in_dispatch);
      }
    } else {
      if (sum) p.flags |= kFlagSum;
      dispatch_slices(cmd, p);
    }
    uint32_t t1 = timer.mark(cmd);
    memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c_);
    VkBufferCopy region{0, 0, 16};
    c_.vk.vkCmdCopyBuffer(cmd, totals.handle(), totals_host.handle(), 1, &region);
    batch.submit_and_wait();
    stats_.count_ms = timer.ms(t0, t1);
    totals_host.invalidate();
    uint64_t t[2];
    std::memcpy(t, totals_host.mapped(), 16);
    stats_.matches = t[0];
    probe_params_ = p;
    return {t[0], t[1]};
  }

  // After count(): every pair, written by the GPU into an output of exactly `total` pairs.
  std::vector<JoinPair> pairs(uint64_t total) {
    return expand_pairs(c_, probe_params_, total, stats_.collect_ms);
  }

 private:
  bool probe_sorted() const {
    return kind_ == BaselineJoin::sort_merge || kind_ == BaselineJoin::sort_search;
  }
  void dispatch_slices(VkCommandBuffer cmd, SortJoinParams p) {
    if (p.mode == kModeMerge) {
      const uint64_t steps = uint64_t{p.num_build} + p.num_probe;
      dispatch_sort_join(c_, cmd, p, (steps + kMergeSteps - 1) / kMergeSteps);
    } else {
      dispatch_sort_join(c_, cmd, p, p.num_probe);
    }
  }

  VkContext& c_;
  BaselineJoin kind_;
  KeySpan probe_;
  JoinStats& stats_;
  KeyRecords build_, probe_sorted_;
  std::optional<HashIndex> hash_;
  HashTableView table_;
  Buffer probe_keys_, starts_, offsets_;
  SortJoinParams p_{};
  SortJoinParams probe_params_{};
};

}  // namespace
}  // namespace detail

const char* to_string(BaselineJoin kind) {
  switch (kind) {
    case BaselineJoin::sort_merge:
      return "sort_merge";
    case BaselineJoin::sort_search:
      return "sort_search";
    case BaselineJoin::sorted_array:
      return "sorted_array";
    case BaselineJoin::hash:
      return "hash";
  }
  return "?";
}

Result<std::vector<JoinPair>> baseline_join(const Context& ctx, BaselineJoin kind,
                                            KeySpan build_keys, KeySpan probe_keys,
                                            JoinStats* stats) {
  return detail::guarded(ctx.vk(), [&]() -> std::vector<JoinPair> {
    detail::check_sides(build_keys, {}, probe_keys);
    JoinStats st;
    std::vector<JoinPair> out;
    if (build_keys.size > 0 && probe_keys.size > 0) {
      detail::SortJoinRun run(ctx, kind, build_keys, {}, probe_keys, st);
      out = run.pairs(run.count(false).matches);
    }
    if (stats) *stats = st;
    return out;
  });
}

Result<JoinAggregate> baseline_join_aggregate(const Context& ctx, BaselineJoin kind,
                                              KeySpan build_keys,
                                              std::span<const uint32_t> build_values,
                                              KeySpan probe_keys, JoinStats* stats) {
  return detail::guarded(ctx.vk(), [&]() -> JoinAggregate {
    detail::check_sides(build_keys, build_values, probe_keys);
    JoinStats st;
    JoinAggregate a;
    if (build_keys.size > 0 && probe_keys.size > 0) {
      detail::SortJoinRun run(ctx, kind, build_keys, build_values, probe_keys, st);
      a = run.count(true);
    }
    if (stats) *stats = st;
    return a;
  });
}

}  // namespace raydb
