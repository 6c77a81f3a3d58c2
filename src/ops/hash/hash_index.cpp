// HashIndex: the open-addressing hash table baseline on Vulkan compute.
#include "raydb/hash_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "backend/vk/call_lock.hpp"
#include "backend/vk/spare_buffers.hpp"
#include "ops/common/device_io.hpp"
#include "ops/common/key_records.hpp"
#include "ops/common/lookup_batch.hpp"
#include "ops/common/query_slices.hpp"
#include "ops/hash/hash_table.hpp"
#include "ops/rx/rx_params.hpp"
#include "raydb/device_indexes.hpp"

namespace raydb {
namespace detail {

// Mirrors shaders/baselines/hash_build.glsl.
struct HashBuildParams {
  uint64_t keys, records, slots;
  uint32_t n, mask, flags, pad0;
};
static_assert(sizeof(HashBuildParams) == 40);

// Mirrors shaders/baselines/hash_lookup.glsl.
struct HashLookupParams {
  uint64_t slots, payloads, queries, results;
  uint32_t mask, num_queries, query_offset, flags;
};
static_assert(sizeof(HashLookupParams) == 48);

// (key lo, key hi, ref, value): shaders/baselines/hash_common.glsl.
constexpr uint64_t kSlotBytes = 16;

struct HashIndexImpl {
  HashOptions options;
  std::shared_ptr<VkContext> ctx;
  KeyWidth width = KeyWidth::bits32;
  uint64_t n = 0, capacity = 0;
  bool unique = true;
  // Unique keys: the slots alone (row and value inline). Duplicates: the slots and the key-sorted
  // records, whose run starts hold each distinct key's precomputed result.
  Buffer payloads, slots;
  ComputePipeline* lookup_kernel = nullptr;  // the context's (kernel()): builds compile nothing
  std::unique_ptr<LookupBatch> batch;
  HashBuildStats build_stats;
  RxProbeStats probe_stats;
  // hash_submit_lookup's last submission; destroyed first, so it waits before the rest goes.
  std::shared_ptr<void> pending_submission;

  // With `source` (hash_build), the keys come from the host's buffers: k.data and v are unused.
  void build(KeySpan k, std::span<const uint32_t> v, const DeviceColumnSource* source = nullptr) {
    VkContext& c = *ctx;
    if (!source) validate_key_column(k, v);
    width = k.width;
    n = k.size;
    const bool key64 = width == KeyWidth::bits64;
    capacity = std::bit_ceil(std::max<uint64_t>(16, 2 * n));
    if (capacity > (uint64_t{1} << 32))
      throw Error(Errc::limit_exceeded, fmt::format("{} keys need more than 2^32 hash slots", n));
    KeyRecordBuilder builder(c, options.backend);
    // The sort groups equal keys into runs, so each distinct key is inserted (and its run summed)
    // by one invocation; the dense sorted keys tell the run boundaries. The slots (2 GiB for 2^26
    // keys, ~3 ms to make on an H100) are made while the GPU works (key_records.hpp).
    KeyRecords r = builder.build(k, v, true, "hash", SortedKeys::lent, source, [&] {
      slots = Buffer(c, capacity * kSlotBytes, kStorageUsage, MemoryUse::device, "hash slots");
    });
    unique = r.unique;
    ComputePipeline& insert =
        kernel(c, key64 ? ShaderId::hash_build64 : ShaderId::hash_build32, sizeof(HashBuildParams));
    HashBuildParams p{r.sorted_keys.address(),
                      r.records.address(),
                      slots.address(),
                      static_cast<uint32_t>(n),
                      static_cast<uint32_t>(capacity - 1),
                      unique ? RX_FLAG_FIRST_HIT_ONLY : 0u,
                      0};
    CommandBatch cb(c);
    GpuTimer timer(c, 2);
    timer.reset(cb.cmd());
    uint32_t t0 = timer.mark(cb.cmd());
    c.vk.vkCmdFillBuffer(cb.cmd(), slots.handle(), 0, VK_WHOLE_SIZE,
                         0xFFFFFFFFu);  // every slot empty
    memory_barrier(cb.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
    insert.dispatch(cb.cmd(), &p, n);
    uint32_t t1 = timer.mark(cb.cmd());
    cb.submit_and_wait();
    // With unique keys the slots hold everything a lookup returns: the records go.
    if (!unique) payloads = std::move(r.records);
    c.release_later(std::move(r.records));
    SpareBuffers::keep(c, SpareSlot::sort_keys, std::move(r.sorted_keys));  // for the next build
    build_stats = {
        r.upload_ms, r.sort_ms, timer.ms(t0, t1), capacity, slots.size() + payloads.size(),
        r.unique};
    lookup_kernel = &kernel(c, key64 ? ShaderId::hash_lookup64 : ShaderId::hash_lookup32,
                            sizeof(HashLookupParams));
    batch = std::make_unique<LookupBatch>(c);
    // The pipelined lookups' slots, made now so that the first lookup call allocates nothing.
    batch->reserve_pipeline(n, key64 ? 8 : 4);
  }

  void probe(const QueryBatch& q, RxLookup* out) {
    if (q.ranges)
      throw Error(Errc::unsupported,
                  "a hash index answers point lookups only; use RxIndex or SortedIndex for ranges");
    validate_queries(q, width);
    probe_stats = batch->run_kernel(q, *lookup_kernel, lookup_params(), out);
  }

  // The kernel's push constants, without the batch's own fields.
  HashLookupParams lookup_params() const {
    return {slots.address(),
            payloads ? payloads.address() : 0,
            0,
            0,
            static_cast<uint32_t>(capacity - 1),
            0,
            0,
            unique ? RX_FLAG_FIRST_HIT_ONLY : 0u};
  }

  // Records point lookups from and into device addresses (hash_record_lookup), in dispatches of
  // at most max_items() lookups; query_offset indexes both the queries and the results.
  void record_points(VkCommandBuffer cmd, VkDeviceAddress queries, VkDeviceAddress results,
                     uint64_t count) {
    HashLookupParams p = lookup_params();
    p.queries = queries;
    p.results = results;
    record_in_slices(p, count, lookup_kernel->max_items(),
                     [&](HashLookupParams& s) { lookup_kernel->dispatch(cmd, &s, s.num_queries); });
  }
};

HashTableView hash_table_view(const HashIndex& index) {
  const HashIndexImpl& i = *index.impl_;
  return {i.slots.address(), i.payloads ? i.payloads.address() : 0,
          static_cast<uint32_t>(i.capacity - 1), i.unique, i.n};
}

}  // namespace detail

using detail::DeviceIndexAccess;
using detail::guarded;
using detail::HashIndexImpl;
using detail::QueryBatch;

HashIndex::HashIndex(std::unique_ptr<HashIndexImpl> impl) : impl_(std::move(impl)) {}
HashIndex::HashIndex(HashIndex&&) noexcept = default;
HashIndex& HashIndex::operator=(HashIndex&&) noexcept = default;
HashIndex::~HashIndex() = default;

Result<HashIndex> HashIndex::build(const Context& ctx, KeySpan keys,
                                   std::span<const uint32_t> values, const HashOptions& options) {
  return guarded(ctx.vk(), [&]() -> HashIndex {
    auto impl = std::make_unique<HashIndexImpl>();
    impl->ctx = ctx.shared();
    impl->options = options;
    impl->build(keys, values);
    return HashIndex(std::move(impl));
  });
}

Status HashIndex::lookup(KeySpan points, std::span<RxLookup> out) {
  return detail::lookup_into(*impl_, QueryBatch::points(points), out);
}

Result<std::vector<RxLookup>> HashIndex::lookup(KeySpan points) {
  return detail::lookup_vector(*impl_, QueryBatch::points(points));
}

uint64_t HashIndex::size() const {
  return impl_->n;
}
KeyWidth HashIndex::key_width() const {
  return impl_->width;
}
const HashBuildStats& HashIndex::build_stats() const {
  return impl_->build_stats;
}
const RxProbeStats& HashIndex::last_stats() const {
  return impl_->probe_stats;
}

// Device-resident data (raydb/device_indexes.hpp).

namespace {

void record_hash_lookups(HashIndexImpl& impl, VkCommandBuffer cmd, const DeviceSpan& queries,
                         const DeviceSpan& results) {
  detail::VkContext& c = *impl.ctx;
  detail::check_lookup_spans(impl.width, queries, results);
  impl.probe_stats = {};
  detail::record_between_barriers(c, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, [&] {
    impl.record_points(cmd, detail::address_of(c, queries), detail::address_of(c, results),
                       queries.count);
  });
}

}  // namespace

Result<HashIndex> hash_build(const Context& ctx, KeyWidth width, const DeviceSpan& keys,
                             const DeviceSpan& values, const HashOptions& options,
                             const DeviceSync& sync) {
  return guarded(ctx.vk(), [&]() -> HashIndex {
    detail::DeviceColumnSource source = detail::build_source(ctx.vk(), width, keys, values, sync);
    auto impl = std::make_unique<HashIndexImpl>();
    impl->ctx = ctx.shared();
    impl->options = options;
    KeySpan sizes;  // no host data: the size and width only
    sizes.size = keys.count;
    sizes.width = width;
    impl->build(sizes, {}, &source);
    return DeviceIndexAccess::make<HashIndex>(std::move(impl));
  });
}

Status hash_record_lookup(HashIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
                          const DeviceSpan& results) {
  HashIndexImpl& impl = DeviceIndexAccess::impl(index);
  return guarded(*impl.ctx, [&] {
    detail::check_command_buffer(cmd, "hash_record_lookup");
    record_hash_lookups(impl, cmd, queries, results);
  });
}

Status hash_submit_lookup(HashIndex& index, const DeviceSpan& queries, const DeviceSpan& results,
                          const DeviceSync& sync) {
  HashIndexImpl& impl = DeviceIndexAccess::impl(index);
  return guarded(*impl.ctx, [&] {
    impl.pending_submission.reset();  // the previous one is done with its command buffer
    impl.pending_submission = detail::submit_device_work(
        impl.ctx, sync, "hash_submit_lookup",
        [&](VkCommandBuffer cmd) { record_hash_lookups(impl, cmd, queries, results); });
  });
}

}  // namespace raydb
