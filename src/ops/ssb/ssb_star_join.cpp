// SsbStarJoin: the Crystal-style baseline. The host folds each query's dimension filters and
// group-by columns into one perfect-hash table per dimension; one fused kernel joins, filters and
// aggregates every lineorder row.
#include <fmt/format.h>

#include <cstring>

#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "ops/ssb/ssb_encoding.hpp"
#include "ops/ssb/ssb_params.hpp"
#include "ops/ssb/ssb_star_plan.hpp"
#include "raydb/ssb.hpp"

namespace raydb::ssb {

using namespace raydb::detail;
using detail::Attr;
using detail::Dim;

struct SsbStarJoin::Impl {
  std::shared_ptr<VkContext> ctx;
  detail::FlatTable flat;
  Buffer columns;
  SsbKernelStats stats;

  ResultTable run(std::string_view query) {
    VkContext& c = *ctx;
    std::string name = canonical_query_name(query).value();
    detail::StarPlan plan = detail::plan_star(name, flat);
    uint64_t gspace = plan.slots;

    detail::SsbStarJoinParams p{};
    p.n = static_cast<uint32_t>(flat.n);
    p.aggregate = plan.aggregate;
    p.disc_lo = plan.disc_lo;
    p.disc_hi = plan.disc_hi;
    p.qty_lo = plan.qty_lo;
    p.qty_hi = plan.qty_hi;
    std::vector<uint32_t> tables;
    for (int d = 0; d < 4; ++d) {
      if (plan.key_len[d] == 0) continue;
      Dim dim = static_cast<Dim>(d);
      const auto& k = detail::dimension_keys(flat, dim);
      p.dim_offset[d] = static_cast<uint32_t>(tables.size());
      p.dim_min[d] = plan.key_min[d];
      p.dim_len[d] = plan.key_len[d];
      tables.resize(tables.size() + p.dim_len[d], detail::kStarNone);
      for (uint32_t row = 0; row < k.size(); ++row)
        if (uint32_t share = detail::star_share(plan, flat, dim, row); share != detail::kStarNone)
          tables[p.dim_offset[d] + (k[row] - p.dim_min[d])] = share;
    }
    if (tables.empty()) tables.push_back(detail::kStarNone);

    Buffer dims(c, tables.size() * 4, kStorageUsage, MemoryUse::device, "ssb star-join tables");
    Buffer sums(c, gspace * 8, kStorageUsage, MemoryUse::device, "ssb star-join sums");
    Buffer counts(c, gspace * 4, kStorageUsage, MemoryUse::device, "ssb star-join counts");
    Buffer readback(c, gspace * 12, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                    "ssb star-join readback");
    p.columns = columns.address();
    p.dims = dims.address();
    p.sums = sums.address();
    p.counts = counts.address();
    CommandBatch batch(c);
    VkCommandBuffer cmd = batch.cmd();
    Buffer staging;
    record_upload(c, cmd, staging, dims, tables.data(), tables.size() * 4);
    c.vk.vkCmdFillBuffer(cmd, sums.handle(), 0, VK_WHOLE_SIZE, 0);
    c.vk.vkCmdFillBuffer(cmd, counts.handle(), 0, VK_WHOLE_SIZE, 0);
    memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
    GpuTimer timer(c, 2);
    timer.reset(cmd);
    uint32_t t0 = timer.mark(cmd);
    kernel(c, ShaderId::ssb_star_join, sizeof p).dispatch(cmd, &p, flat.n);
    uint32_t t1 = timer.mark(cmd);
    memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
    VkBufferCopy s{0, 0, gspace * 8}, k{0, gspace * 8, gspace * 4};
    c.vk.vkCmdCopyBuffer(cmd, sums.handle(), readback.handle(), 1, &s);
    c.vk.vkCmdCopyBuffer(cmd, counts.handle(), readback.handle(), 1, &k);
    memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT, c);
    batch.submit_and_wait();
    stats.kernel_ms = timer.ms(t0, t1);
    readback.invalidate();
    std::vector<int64_t> sum(gspace);
    std::vector<uint32_t> count(gspace);
    std::memcpy(sum.data(), readback.mapped(), gspace * 8);
    std::memcpy(count.data(), readback.as<char>() + gspace * 8, gspace * 4);

    return detail::finish_star(plan, flat, sum, count);
  }
};

SsbStarJoin::SsbStarJoin(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SsbStarJoin::SsbStarJoin(SsbStarJoin&&) noexcept = default;
SsbStarJoin& SsbStarJoin::operator=(SsbStarJoin&&) noexcept = default;
SsbStarJoin::~SsbStarJoin() = default;

Result<SsbStarJoin> SsbStarJoin::create(const Context& ctx, const SsbTables& tables) {
  return guarded(ctx.vk(), [&] {
    auto impl = std::make_unique<Impl>();
    impl->ctx = ctx.shared();
    if (!impl->ctx->info.buffer_int64_atomics)
      throw Error(Errc::unsupported,
                  fmt::format("device '{}' lacks shaderBufferInt64Atomics (64-bit group sums)",
                              impl->ctx->info.name));
    if (tables.lineorder.size() == 0)
      throw Error(Errc::invalid_argument, "the SSB lineorder table has no rows");
    impl->flat = detail::make_flat(tables);  // validates the foreign keys; dictionaries
    std::vector<uint32_t> cols = detail::star_columns(tables.lineorder);
    impl->columns = Buffer(*impl->ctx, cols.size() * 4, kStorageUsage, MemoryUse::device,
                           "ssb lineorder columns");
    CommandBatch batch(*impl->ctx);
    Buffer staging;
    record_upload(*impl->ctx, batch.cmd(), staging, impl->columns, cols.data(), cols.size() * 4);
    memory_barrier(batch.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, *impl->ctx);
    batch.submit_and_wait();
    return SsbStarJoin(std::move(impl));
  });
}

Result<ResultTable> SsbStarJoin::run(std::string_view query) {
  return guarded(*impl_->ctx, [&] { return impl_->run(query); });
}
const SsbKernelStats& SsbStarJoin::last_stats() const {
  return impl_->stats;
}
uint64_t SsbStarJoin::column_bytes() const {
  return impl_->columns.size();
}

}  // namespace raydb::ssb
