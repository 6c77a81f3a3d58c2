// SsbStarJoin: the Crystal-style baseline. The host folds each query's dimension filters and
// group-by columns into one perfect-hash table per dimension; one fused kernel joins, filters and
// aggregates every lineorder row.
#include <fmt/format.h>

#include <cstring>
#include <limits>

#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "common/capture.hpp"
#include "ops/ssb/ssb_encoding.hpp"
#include "ops/ssb/ssb_params.hpp"
#include "raydb/ssb.hpp"

namespace raydb::ssb {

using namespace raydb::detail;
using detail::Attr;
using detail::Dim;

struct SsbStarJoin::Impl {
  std::shared_ptr<VkContext> ctx;
  detail::FlatTable flat;
  Buffer columns;
  double kernel_ms = 0;

  // Per dimension (date, customer, supplier, part): the keys, in row order.
  const std::vector<uint32_t>& keys(Dim d) const {
    const SsbTables& t = *flat.tables;
    switch (d) {
      case Dim::date:
        return t.date.datekey;
      case Dim::customer:
        return t.customer.key;
      case Dim::supplier:
        return t.supplier.key;
      default:
        return t.part.partkey;
    }
  }

  ResultTable run(std::string_view query) {
    VkContext& c = *ctx;
    std::string name = canonical_query_name(query).value();
    detail::QueryPlan plan = detail::plan_query(name, flat);
    constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

    // The group index: mixed radix over the group-by columns (every combination has a slot).
    uint64_t gspace = 1;
    std::vector<uint64_t> stride(plan.group.size());
    for (size_t i = plan.group.size(); i-- > 0;) {
      stride[i] = gspace;
      gspace *= flat.domain(plan.group[i]);
    }
    if (gspace >= (uint64_t{1} << 28))
      throw Error(Errc::limit_exceeded, fmt::format("SSB Q{}: too many group slots", name));

    detail::SsbStarJoinParams p{};
    p.n = static_cast<uint32_t>(flat.n);
    p.aggregate = plan.aggregate == detail::Aggregate::extprice_times_discount ? 0
                  : plan.aggregate == detail::Aggregate::revenue               ? 1
                                                                               : 2;
    p.disc_lo = p.qty_lo = 0;
    p.disc_hi = p.qty_hi = kNone;
    std::vector<uint32_t> tables;
    for (int d = 0; d < 4; ++d) {
      Dim dim = static_cast<Dim>(d);
      bool used = false;
      for (Attr a : plan.group) used = used || detail::dim_of(a) == dim;
      for (const auto& f : plan.filters) used = used || detail::dim_of(f.attr) == dim;
      if (!used) continue;
      const auto& k = keys(dim);
      uint32_t lo = *std::min_element(k.begin(), k.end()),
               hi = *std::max_element(k.begin(), k.end());
      if (uint64_t{hi} - lo >= (uint64_t{1} << 28))
        throw Error(Errc::limit_exceeded,
                    fmt::format("SSB dimension keys span {} values: too wide for a perfect hash",
                                uint64_t{hi} - lo + 1));
      p.dim_offset[d] = static_cast<uint32_t>(tables.size());
      p.dim_min[d] = lo;
      p.dim_len[d] = hi - lo + 1;
      tables.resize(tables.size() + p.dim_len[d], kNone);
      for (uint32_t row = 0; row < k.size(); ++row) {
        bool pass = true;
        for (const auto& f : plan.filters)
          if (detail::dim_of(f.attr) == dim)
            pass = pass && f.selected[flat.codes[size_t(f.attr)][row]];
        if (!pass) continue;
        uint64_t share = 0;
        for (size_t i = 0; i < plan.group.size(); ++i)
          if (detail::dim_of(plan.group[i]) == dim)
            share += flat.codes[size_t(plan.group[i])][row] * stride[i];
        tables[p.dim_offset[d] + (k[row] - lo)] = static_cast<uint32_t>(share);
      }
    }
    // lineorder's own filters (Q1.x) as value ranges.
    for (const auto& f : plan.filters) {
      if (detail::dim_of(f.attr) != Dim::lineorder) continue;
      uint32_t first = kNone, last = 0, count = 0;
      for (uint32_t code = 0; code < f.selected.size(); ++code)
        if (f.selected[code]) {
          uint32_t v = static_cast<uint32_t>(std::stoul(flat.value(f.attr, code)));
          first = std::min(first, v);
          last = std::max(last, v);
          ++count;
        }
      if (count == 0) first = 1, last = 0;  // nothing passes
      uint32_t& lo = f.attr == Attr::lo_discount ? p.disc_lo : p.qty_lo;
      uint32_t& hi = f.attr == Attr::lo_discount ? p.disc_hi : p.qty_hi;
      lo = first;
      hi = last;
    }
    if (tables.empty()) tables.push_back(kNone);

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
    kernel_ms = timer.ms(t0, t1);
    readback.invalidate();
    std::vector<int64_t> sum(gspace);
    std::vector<uint32_t> count(gspace);
    std::memcpy(sum.data(), readback.mapped(), gspace * 8);
    std::memcpy(count.data(), readback.as<char>() + gspace * 8, gspace * 4);

    // Every slot's tuple, so the RT engine's final ORDER BY and decoding apply unchanged.
    detail::EncodedQuery slots;
    slots.group_tuples.resize(gspace);
    for (uint64_t g = 0; g < gspace; ++g) {
      std::vector<uint32_t> tuple(plan.group.size());
      for (size_t i = 0; i < plan.group.size(); ++i)
        tuple[i] = static_cast<uint32_t>(g / stride[i] % flat.domain(plan.group[i]));
      slots.group_tuples[g] = std::move(tuple);
    }
    return detail::finish_query(plan, flat, slots, sum, count);
  }
};

SsbStarJoin::SsbStarJoin(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SsbStarJoin::SsbStarJoin(SsbStarJoin&&) noexcept = default;
SsbStarJoin& SsbStarJoin::operator=(SsbStarJoin&&) noexcept = default;
SsbStarJoin::~SsbStarJoin() = default;

Result<SsbStarJoin> SsbStarJoin::create(const Context& ctx, const SsbTables& tables) {
  return capture([&] {
    auto impl = std::make_unique<Impl>();
    impl->ctx = ctx.shared();
    if (!impl->ctx->info.buffer_int64_atomics)
      throw Error(Errc::unsupported,
                  fmt::format("device '{}' lacks shaderBufferInt64Atomics (64-bit group sums)",
                              impl->ctx->info.name));
    if (tables.lineorder.size() == 0)
      throw Error(Errc::invalid_argument, "the SSB lineorder table has no rows");
    impl->flat = detail::make_flat(tables);  // validates the foreign keys; dictionaries
    const LineorderColumns& lo = tables.lineorder;
    uint64_t n = lo.size();
    if (n * 9 >= (uint64_t{1} << 32))
      throw Error(Errc::limit_exceeded,
                  fmt::format("{} lineorder rows exceed the baseline's 2^32 / 9", n));
    std::vector<uint32_t> cols;
    cols.reserve(n * 9);
    for (const auto* col : {&lo.orderdate, &lo.custkey, &lo.suppkey, &lo.partkey, &lo.quantity,
                            &lo.discount, &lo.extendedprice, &lo.revenue, &lo.supplycost})
      cols.insert(cols.end(), col->begin(), col->end());
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
  return capture([&] { return impl_->run(query); });
}
double SsbStarJoin::last_kernel_ms() const {
  return impl_->kernel_ms;
}
uint64_t SsbStarJoin::column_bytes() const {
  return impl_->columns.size();
}

}  // namespace raydb::ssb
