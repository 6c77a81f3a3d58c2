// CgrxJoin: a counting pass of cgRX lookups that also name each probe key's run of build records
// (src/ops/cgrx/cgrx_runs.hpp), then, for pairs, the joins' EXPAND pass (join_expand.hpp) over
// those runs: the pairs cost a copy per pair instead of a second pass of rays.
#include <fmt/format.h>

#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "ops/cgrx/cgrx_runs.hpp"
#include "ops/cgrx/cgrx_view.hpp"
#include "ops/join/join_expand.hpp"
#include "raydb/join.hpp"

namespace raydb {

namespace {

void check_width(const CgrxIndex& index, KeySpan probe) {
  if (index.key_width() != probe.width)
    throw Error(Errc::invalid_argument,
                fmt::format("join sides have {}-bit and {}-bit keys; both must have the same width",
                            to_string(index.key_width()), to_string(probe.width)));
}

}  // namespace

Result<CgrxJoin> CgrxJoin::build(const Context& ctx, KeySpan build_keys,
                                 std::span<const uint32_t> build_values,
                                 const CgrxBuildOptions& options) {
  return detail::guarded(ctx.vk(), [&]() -> CgrxJoin {
    return CgrxJoin(ctx, CgrxIndex::build(ctx, build_keys, build_values, options).value());
  });
}

double CgrxJoin::index_ms() const {
  const CgrxBuildStats& b = index_.build_stats();  // the OptiX path's with api = optix
  return b.build_ms() + b.sort_ms;
}

Result<std::vector<RxLookup>> CgrxJoin::lookup(KeySpan probe_keys) {
  return detail::guarded(*detail::cgrx_view(index_).ctx, [&]() -> std::vector<RxLookup> {
    check_width(index_, probe_keys);
    stats_ = {};
    std::vector<RxLookup> per_key(probe_keys.size);
    index_.lookup(probe_keys, per_key).value();
    stats_.count_ms = index_.last_stats().probe_ms;
    return per_key;
  });
}

Result<JoinAggregate> CgrxJoin::aggregate(KeySpan probe_keys) {
  return detail::guarded(*detail::cgrx_view(index_).ctx, [&]() -> JoinAggregate {
    std::vector<RxLookup> per_key = lookup(probe_keys).value();
    JoinAggregate a = detail::sum_lookups(per_key);
    stats_.matches = a.matches;
    return a;
  });
}

Result<std::vector<JoinPair>> CgrxJoin::pairs(KeySpan probe_keys) {
  return detail::guarded(*detail::cgrx_view(index_).ctx, [&]() -> std::vector<JoinPair> {
    using namespace detail;
    check_width(index_, probe_keys);
    stats_ = {};
    const uint64_t n = probe_keys.size;
    std::vector<RxLookup> runs(n);
    cgrx_lookup_runs(index_, probe_keys, runs).value();  // through OptiX with api = optix
    stats_.count_ms = index_.last_stats().probe_ms;
    uint64_t total = 0;
    std::vector<uint32_t> starts(n), lengths(n);
    for (uint64_t i = 0; i < n; ++i) {
      total += runs[i].count;
      starts[i] = runs[i].first_row;
      lengths[i] = runs[i].count;
    }
    stats_.matches = total;
    if (total == 0) return {};
    check_pair_count(total);  // before the runs go back to the device
    // The runs go back to the device for the expand pass (the counting pass's results come to the
    // host as every lookup's do; a device-resident result buffer would save this round trip).
    VkContext& c = ctx_.vk();
    Buffer starts_dev(c, n * 4, kStorageUsage, MemoryUse::device, "cgrx join run starts");
    Buffer lengths_dev(c, n * 4, kStorageUsage, MemoryUse::device, "cgrx join run lengths");
    {
      CommandBatch batch(c);
      Buffer s0, s1;
      record_upload(c, batch.cmd(), s0, starts_dev, starts.data(), n * 4);
      record_upload(c, batch.cmd(), s1, lengths_dev, lengths.data(), n * 4);
      memory_barrier(batch.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
      batch.submit_and_wait();
    }
    SortJoinParams p{};
    p.build_records = cgrx_records_address(index_);
    p.starts = starts_dev.address();
    p.offsets = lengths_dev.address();
    p.num_build = static_cast<uint32_t>(index_.size());
    p.num_probe = static_cast<uint32_t>(n);
    p.flags = probe_keys.width == KeyWidth::bits64 ? kFlagKey64 : 0u;
    return expand_pairs(c, p, total, stats_.collect_ms);
  });
}

}  // namespace raydb
