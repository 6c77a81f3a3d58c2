// SortedIndex: the sorted-array + binary-search baseline on Vulkan compute.
#include "raydb/sorted_index.hpp"

#include <fmt/format.h>

#include "common/capture.hpp"
#include "ops/common/key_records.hpp"
#include "ops/common/lookup_batch.hpp"
#include "ops/rx/rx_params.hpp"

namespace raydb {
namespace detail {

// Mirrors shaders/baselines/sorted_lookup.glsl.
struct SortedLookupParams {
  uint64_t keys, fences, records, queries, results;
  uint32_t n, m, num_queries, query_offset, flags, pad0;
};
static_assert(sizeof(SortedLookupParams) == 64);

// Mirrors the SORTED_FENCES kernel of shaders/baselines/sorted_lookup.glsl.
struct SortedFenceParams {
  uint64_t keys, fences;
  uint32_t n, m;
};
static_assert(sizeof(SortedFenceParams) == 24);

// Keys per fence: one 64-byte block of the key column (SORTED_BLOCK in sorted_lookup.glsl).
constexpr uint64_t block_keys(KeyWidth w) {
  return w == KeyWidth::bits64 ? 8 : 16;
}

struct SortedIndexImpl {
  std::shared_ptr<VkContext> ctx;
  KeyWidth width = KeyWidth::bits32;
  uint64_t n = 0, m = 0;
  // The search runs over `fences` (every block_keys()-th key), then one 64-byte block of `keys`
  // (dense, 4 or 8 bytes a key); only the hits read `records`.
  Buffer keys, fences, records;
  std::unique_ptr<ComputePipeline> kernel;
  std::unique_ptr<LookupBatch> batch;
  SortedBuildStats build_stats;
  RxProbeStats probe_stats;

  void build(KeySpan k, std::span<const uint32_t> v) {
    validate_key_column(k, v);
    width = k.width;
    n = k.size;
    KeyRecordBuilder builder(*ctx);
    KeyRecords r = builder.build(k, v, true, "sorted", /*keep_sorted_keys=*/true);
    keys = std::move(r.sorted_keys);
    records = std::move(r.records);
    build_fences();
    build_stats = {r.upload_ms, r.sort_ms, keys.size() + fences.size() + records.size(), r.unique};
    kernel = std::make_unique<ComputePipeline>(
        *ctx, width == KeyWidth::bits64 ? ShaderId::sorted_lookup64 : ShaderId::sorted_lookup32,
        sizeof(SortedLookupParams));
    batch = std::make_unique<LookupBatch>(*ctx);
  }

  void build_fences() {
    VkContext& c = *ctx;
    const uint64_t key_bytes = width == KeyWidth::bits64 ? 8 : 4;
    m = (n + block_keys(width) - 1) / block_keys(width);
    if (m == 0) return;
    fences = Buffer(c, m * key_bytes, kStorageUsage, MemoryUse::device, "sorted fences");
    ComputePipeline gather(
        c, width == KeyWidth::bits64 ? ShaderId::sorted_fences64 : ShaderId::sorted_fences32,
        sizeof(SortedFenceParams));
    SortedFenceParams p{keys.address(), fences.address(), static_cast<uint32_t>(n),
                        static_cast<uint32_t>(m)};
    CommandBatch cb(c);
    gather.dispatch(cb.cmd(), &p, m);
    cb.submit_and_wait();
  }

  void probe(const QueryBatch& q, RxLookup* out) {
    validate_queries(q, width);
    // Unique keys let a point lookup stop at the lower bound: one search, one record.
    uint32_t flags = q.ranges                  ? RX_FLAG_RANGES
                     : build_stats.unique_keys ? RX_FLAG_FIRST_HIT_ONLY
                                               : 0u;
    SortedLookupParams p{keys.address(),
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
    probe_stats = batch->run_kernel(q, *kernel, p, out);
  }
};

}  // namespace detail

using detail::capture;
using detail::QueryBatch;
using detail::SortedIndexImpl;

SortedIndex::SortedIndex(std::unique_ptr<SortedIndexImpl> impl) : impl_(std::move(impl)) {}
SortedIndex::SortedIndex(SortedIndex&&) noexcept = default;
SortedIndex& SortedIndex::operator=(SortedIndex&&) noexcept = default;
SortedIndex::~SortedIndex() = default;

Result<SortedIndex> SortedIndex::build(const Context& ctx, KeySpan keys,
                                       std::span<const uint32_t> values) {
  return capture([&]() -> SortedIndex {
    auto impl = std::make_unique<SortedIndexImpl>();
    impl->ctx = ctx.shared();
    impl->build(keys, values);
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
const RxProbeStats& SortedIndex::last_probe() const {
  return impl_->probe_stats;
}

}  // namespace raydb
