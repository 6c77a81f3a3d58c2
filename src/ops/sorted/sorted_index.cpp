// SortedIndex: the sorted-array + binary-search baseline on Vulkan compute.
#include "raydb/sorted_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "backend/vk/call_lock.hpp"
#include "backend/vk/limits.hpp"
#include "ops/common/device_io.hpp"
#include "ops/common/key_records.hpp"
#include "ops/common/lookup_batch.hpp"
#include "ops/common/query_slices.hpp"
#include "ops/rx/rx_params.hpp"
#include "raydb/device_indexes.hpp"

namespace raydb {
namespace detail {

// Mirrors shaders/baselines/sorted_lookup.glsl.
struct SortedLookupParams {
  uint64_t keys, fences, records, queries, results;
  uint32_t n, m, num_queries, query_offset, flags, pad0;
};
static_assert(sizeof(SortedLookupParams) == 64);

// Mirrors the SORTED_LINES kernels of shaders/baselines/sorted_lookup.glsl.
constexpr uint32_t kMaxSampledLevels = 5;  // 2^32 keys / 32^5 = 4 <= kTopKeys
struct SortedLinesParams {
  uint64_t keys, samples, records, queries, results;
  uint32_t n, levels, num_queries, query_offset, flags;
  uint32_t level_size[kMaxSampledLevels + 1];
  uint32_t level_first[kMaxSampledLevels + 1];
  uint32_t pad0;
};
static_assert(sizeof(SortedLinesParams) == 112);

// Mirrors the SORTED_FENCES kernel of shaders/baselines/sorted_lookup.glsl.
struct SortedFenceParams {
  uint64_t keys, fences;
  uint32_t n, m, stride, pad0;
};
static_assert(sizeof(SortedFenceParams) == 32);

// SortedLayout::lines: keys per node (SORTED_NODE), and the most keys the top level, searched by
// binary search alone, may hold. A divergent load costs one L1 wavefront per distinct 128-byte
// line the subgroup touches: over <= 256 32-bit keys (8 lines) a binary search's loads cost at
// most 8 each, ~2 per lookup in all, less than one more node level (one wavefront and ~10
// instructions per lookup); over 2048 keys its last six loads would cost ~1 each per lookup.
constexpr uint64_t kNodeKeys = 32;
constexpr uint64_t kTopKeys = 256;

// Keys per fence: one 64-byte block of the key column (SORTED_BLOCK in sorted_lookup.glsl).
constexpr uint64_t block_keys(KeyWidth w) {
  return w == KeyWidth::bits64 ? 8 : 16;
}

struct SortedIndexImpl {
  std::shared_ptr<VkContext> ctx;
  KeyWidth width = KeyWidth::bits32;
  SortedLayout layout = SortedLayout::fences;
  uint64_t n = 0, m = 0;
  // fences: the search runs over `fences` (every block_keys()-th key), then one 64-byte block of
  // `keys` (dense, 4 or 8 bytes a key). lines: `fences` holds the sampled levels one after the
  // other (level_size / level_first). Only the hits read `records`.
  Buffer keys, fences, records;
  uint32_t levels = 0;
  uint32_t level_size[kMaxSampledLevels + 1] = {};
  uint32_t level_first[kMaxSampledLevels + 1] = {};
  ComputePipeline* lookup_kernel = nullptr;  // the context's (kernel()): builds compile nothing
  std::unique_ptr<LookupBatch> batch;
  SortedBuildStats build_stats;
  RxProbeStats probe_stats;
  // sorted_submit_lookup's last submission; destroyed first, so it waits before the rest goes.
  std::shared_ptr<void> pending_submission;

  // With `source` (sorted_build), the keys come from the host's buffers: k.data and v are unused.
  void build(KeySpan k, std::span<const uint32_t> v, const SortedOptions& options,
             const DeviceColumnSource* source = nullptr) {
    if (!source) validate_key_column(k, v);
    layout = options.layout;
    if (layout != SortedLayout::fences && layout != SortedLayout::lines)
      throw Error(Errc::invalid_argument, "SortedOptions::layout is neither fences nor lines");
    if (layout == SortedLayout::lines) check_subgroup_support();
    width = k.width;
    n = k.size;
    KeyRecordBuilder builder(*ctx, options.backend);
    KeyRecords r = builder.build(k, v, true, "sorted", SortedKeys::owned, source);
    keys = std::move(r.sorted_keys);
    records = std::move(r.records);
    const bool wide = width == KeyWidth::bits64;
    if (layout == SortedLayout::fences) {
      build_fences();
      lookup_kernel = &kernel(*ctx, wide ? ShaderId::sorted_lookup64 : ShaderId::sorted_lookup32,
                              sizeof(SortedLookupParams));
    } else {
      build_levels();
      lookup_kernel = &kernel(*ctx, wide ? ShaderId::sorted_lines64 : ShaderId::sorted_lines32,
                              sizeof(SortedLinesParams));
    }
    build_stats = {r.upload_ms, r.sort_ms, keys.size() + fences.size() + records.size(), r.unique};
    build_stats.layout = layout;
    build_stats.sampled_levels = levels;
    batch = std::make_unique<LookupBatch>(*ctx);
    // The pipelined lookups' slots, made now so that the first lookup call allocates nothing.
    batch->reserve_pipeline(n, wide ? 8 : 4);
  }

  // The node search is a subgroup operation (shuffle, min / max / add) in a compute shader.
  void check_subgroup_support() const {
    if (!has_subgroup_operations(*ctx, VK_SUBGROUP_FEATURE_BASIC_BIT |
                                           VK_SUBGROUP_FEATURE_SHUFFLE_BIT |
                                           VK_SUBGROUP_FEATURE_ARITHMETIC_BIT))
      throw Error(Errc::unsupported,
                  "SortedLayout::lines needs subgroup basic, shuffle and arithmetic "
                  "operations in compute shaders; this device lacks them (use fences)");
  }

  ComputePipeline& fence_kernel() const {
    return kernel(*ctx,
                  width == KeyWidth::bits64 ? ShaderId::sorted_fences64 : ShaderId::sorted_fences32,
                  sizeof(SortedFenceParams));
  }

  // Fills `fences` with the sampled levels: level i + 1 holds every kNodeKeys-th key of level i
  // (level 0 = the keys), until a level has at most kTopKeys keys.
  void build_levels() {
    VkContext& c = *ctx;
    const uint64_t key_bytes = width == KeyWidth::bits64 ? 8 : 4;
    levels = 0;
    level_size[0] = static_cast<uint32_t>(n);
    uint64_t total = 0;
    for (uint64_t size = n; size > kTopKeys;) {
      size = (size + kNodeKeys - 1) / kNodeKeys;
      ++levels;
      if (levels > kMaxSampledLevels)
        throw Error(Errc::internal, "sorted index: more sampled levels than the kernel holds");
      level_first[levels] = static_cast<uint32_t>(total);
      level_size[levels] = static_cast<uint32_t>(size);
      total += size;
    }
    m = total;
    if (levels == 0) return;
    fences = Buffer(c, total * key_bytes, kStorageUsage, MemoryUse::device, "sorted levels");
    ComputePipeline& gather = fence_kernel();
    CommandBatch cb(c);
    for (uint32_t i = 1; i <= levels; ++i) {
      if (i > 1)  // level i reads level i - 1, written by the previous dispatch
        memory_barrier(cb.cmd(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, c);
      const uint64_t src =
          i == 1 ? keys.address() : fences.address() + uint64_t{level_first[i - 1]} * key_bytes;
      SortedFenceParams p{src,
                          fences.address() + uint64_t{level_first[i]} * key_bytes,
                          level_size[i - 1],
                          level_size[i],
                          static_cast<uint32_t>(kNodeKeys),
                          0};
      gather.dispatch(cb.cmd(), &p, level_size[i]);
    }
    cb.submit_and_wait();
  }

  void build_fences() {
    VkContext& c = *ctx;
    const uint64_t key_bytes = width == KeyWidth::bits64 ? 8 : 4;
    m = (n + block_keys(width) - 1) / block_keys(width);
    if (m == 0) return;
    fences = Buffer(c, m * key_bytes, kStorageUsage, MemoryUse::device, "sorted fences");
    ComputePipeline& gather = fence_kernel();
    SortedFenceParams p{keys.address(),
                        fences.address(),
                        static_cast<uint32_t>(n),
                        static_cast<uint32_t>(m),
                        static_cast<uint32_t>(block_keys(width)),
                        0};
    CommandBatch cb(c);
    gather.dispatch(cb.cmd(), &p, m);
    cb.submit_and_wait();
  }

  // The kernel's push constants for a batch of lookups, without the batch's own fields.
  // Unique keys let a point lookup stop at the lower bound: one search, one record.
  uint32_t lookup_flags(bool ranges) const {
    return ranges ? RX_FLAG_RANGES : build_stats.unique_keys ? RX_FLAG_FIRST_HIT_ONLY : 0u;
  }
  SortedLinesParams lines_params(uint32_t flags) const {
    SortedLinesParams p{keys.address(),
                        fences.address(),
                        records.address(),
                        0,
                        0,
                        static_cast<uint32_t>(n),
                        levels,
                        0,
                        0,
                        flags};
    std::copy(std::begin(level_size), std::end(level_size), p.level_size);
    std::copy(std::begin(level_first), std::end(level_first), p.level_first);
    return p;
  }
  SortedLookupParams fence_params(uint32_t flags) const {
    return {keys.address(),
            fences.address(),
            records.address(),
            0,
            0,
            static_cast<uint32_t>(n),
            static_cast<uint32_t>(m),
            0,
            0,
            flags,
            0};
  }

  // Records lookups from and into device addresses (sorted_record_lookup), in dispatches
  // of at most max_items() lookups; query_offset indexes both the queries and the results.
  void record_queries(VkCommandBuffer cmd, VkDeviceAddress queries, VkDeviceAddress results,
                      uint64_t count, bool ranges) {
    auto dispatch_all = [&](auto p) {
      p.queries = queries;
      p.results = results;
      record_in_slices(p, count, lookup_kernel->max_items(),
                       [&](auto& s) { lookup_kernel->dispatch(cmd, &s, s.num_queries); });
    };
    if (layout == SortedLayout::lines)
      dispatch_all(lines_params(lookup_flags(ranges)));
    else
      dispatch_all(fence_params(lookup_flags(ranges)));
  }

  void probe(const QueryBatch& q, RxLookup* out) {
    validate_queries(q, width);
    const uint32_t flags = lookup_flags(q.ranges);
    if (layout == SortedLayout::lines) {
      probe_stats = batch->run_kernel(q, *lookup_kernel, lines_params(flags), out);
      return;
    }
    SortedLookupParams p = fence_params(flags);
    probe_stats = batch->run_kernel(q, *lookup_kernel, p, out);
  }
};

}  // namespace detail

using detail::capture;
using detail::DeviceIndexAccess;
using detail::guarded;
using detail::QueryBatch;
using detail::SortedIndexImpl;

SortedIndex::SortedIndex(std::unique_ptr<SortedIndexImpl> impl) : impl_(std::move(impl)) {}
SortedIndex::SortedIndex(SortedIndex&&) noexcept = default;
SortedIndex& SortedIndex::operator=(SortedIndex&&) noexcept = default;
SortedIndex::~SortedIndex() = default;

const char* to_string(SortedLayout layout) {
  switch (layout) {
    case SortedLayout::fences:
      return "fences";
    case SortedLayout::lines:
      return "lines";
  }
  return "?";
}

Result<SortedLayout> parse_sorted_layout(std::string_view name) {
  return capture([&] {
    if (name == "fences") return SortedLayout::fences;
    if (name == "lines") return SortedLayout::lines;
    throw Error(Errc::invalid_argument,
                fmt::format("unknown sorted layout '{}' (fences, lines)", name));
  });
}

Result<SortedIndex> SortedIndex::build(const Context& ctx, KeySpan keys,
                                       std::span<const uint32_t> values,
                                       const SortedOptions& options) {
  return guarded(ctx.vk(), [&]() -> SortedIndex {
    auto impl = std::make_unique<SortedIndexImpl>();
    impl->ctx = ctx.shared();
    impl->build(keys, values, options);
    return SortedIndex(std::move(impl));
  });
}

Status SortedIndex::lookup(KeySpan points, std::span<RxLookup> out) {
  return detail::lookup_into(*impl_, QueryBatch::points(points), out);
}

Result<std::vector<RxLookup>> SortedIndex::lookup(KeySpan points) {
  return detail::lookup_vector(*impl_, QueryBatch::points(points));
}

Status SortedIndex::lookup_ranges(RangeSpan ranges, std::span<RxLookup> out) {
  return detail::lookup_into(*impl_, QueryBatch::of(ranges), out);
}

Result<std::vector<RxLookup>> SortedIndex::lookup_ranges(RangeSpan ranges) {
  return detail::lookup_vector(*impl_, QueryBatch::of(ranges));
}

uint64_t SortedIndex::size() const {
  return impl_->n;
}
KeyWidth SortedIndex::key_width() const {
  return impl_->width;
}
const SortedBuildStats& SortedIndex::build_stats() const {
  return impl_->build_stats;
}
const RxProbeStats& SortedIndex::last_stats() const {
  return impl_->probe_stats;
}

// Device-resident data (raydb/device_indexes.hpp).

namespace {

void record_sorted_lookups(SortedIndexImpl& impl, VkCommandBuffer cmd, const DeviceSpan& queries,
                           const DeviceSpan& results, bool ranges) {
  detail::VkContext& c = *impl.ctx;
  detail::check_lookup_spans(impl.width, queries, results, ranges);
  impl.probe_stats = {};
  detail::record_between_barriers(c, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, [&] {
    impl.record_queries(cmd, detail::address_of(c, queries), detail::address_of(c, results),
                        queries.count, ranges);
  });
}

Status record(SortedIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
              const DeviceSpan& results, bool ranges, const char* fn) {
  SortedIndexImpl& impl = DeviceIndexAccess::impl(index);
  return guarded(*impl.ctx, [&] {
    detail::check_command_buffer(cmd, fn);
    record_sorted_lookups(impl, cmd, queries, results, ranges);
  });
}

Status submit(SortedIndex& index, const DeviceSpan& queries, const DeviceSpan& results,
              const DeviceSync& sync, bool ranges, const char* fn) {
  SortedIndexImpl& impl = DeviceIndexAccess::impl(index);
  return guarded(*impl.ctx, [&] {
    impl.pending_submission.reset();  // the previous one is done with its command buffer
    impl.pending_submission = detail::submit_device_work(
        impl.ctx, sync, fn,
        [&](VkCommandBuffer cmd) { record_sorted_lookups(impl, cmd, queries, results, ranges); });
  });
}

}  // namespace

Result<SortedIndex> sorted_build(const Context& ctx, KeyWidth width, const DeviceSpan& keys,
                                 const DeviceSpan& values, const SortedOptions& options,
                                 const DeviceSync& sync) {
  return guarded(ctx.vk(), [&]() -> SortedIndex {
    detail::DeviceColumnSource source = detail::build_source(ctx.vk(), width, keys, values, sync);
    auto impl = std::make_unique<SortedIndexImpl>();
    impl->ctx = ctx.shared();
    KeySpan sizes;  // no host data: the size and width only
    sizes.size = keys.count;
    sizes.width = width;
    impl->build(sizes, {}, options, &source);
    return DeviceIndexAccess::make<SortedIndex>(std::move(impl));
  });
}

Status sorted_record_lookup(SortedIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
                            const DeviceSpan& results) {
  return record(index, cmd, queries, results, false, "sorted_record_lookup");
}

Status sorted_submit_lookup(SortedIndex& index, const DeviceSpan& queries,
                            const DeviceSpan& results, const DeviceSync& sync) {
  return submit(index, queries, results, sync, false, "sorted_submit_lookup");
}

Status sorted_record_lookup_ranges(SortedIndex& index, VkCommandBuffer cmd,
                                   const DeviceSpan& ranges, const DeviceSpan& results) {
  return record(index, cmd, ranges, results, true, "sorted_record_lookup_ranges");
}

Status sorted_submit_lookup_ranges(SortedIndex& index, const DeviceSpan& ranges,
                                   const DeviceSpan& results, const DeviceSync& sync) {
  return submit(index, ranges, results, sync, true, "sorted_submit_lookup_ranges");
}

}  // namespace raydb
