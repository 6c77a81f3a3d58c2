// SsbCrystalCuda: the star-join baseline as CUDA kernels in Crystal's style. The host turns each
// query's dimension filters into bitmaps over the filter columns' codes; the GPU builds the
// perfect-hash tables from them and runs the fused probe (src/backend/cuda/ssb_crystal.cu).
#include <fmt/format.h>

#include "backend/vk/call_lock.hpp"
#include "ops/ssb/cuda/ssb_cuda.hpp"
#include "ops/ssb/ssb_params.hpp"
#include "ops/ssb/ssb_star_plan.hpp"
#include "raydb/ssb.hpp"

namespace raydb::ssb {

using namespace raydb::detail;
using detail::Attr;
using detail::Dim;

struct SsbCrystalCuda::Impl {
  std::shared_ptr<VkContext> ctx;
  detail::FlatTable flat;
  Buffer columns;   // star_columns()
  Buffer dim_data;  // per dimension its keys, then the codes of its attributes (row order)
  std::array<uint32_t, 4> key_offset{};
  std::array<uint32_t, detail::kAttrs> code_offset{};
  SsbKernelStats stats;

  static uint32_t words(uint64_t n) {
    if (n >= (uint64_t{1} << 32))
      throw Error(Errc::limit_exceeded,
                  fmt::format("SSB dimension data of {} words exceed 2^32 - 1", n));
    return static_cast<uint32_t>(n);
  }

  void upload_dimensions() {
    std::vector<uint32_t> data;
    for (int d = 0; d < 4; ++d) {
      Dim dim = static_cast<Dim>(d);
      const auto& keys = detail::dimension_keys(flat, dim);
      key_offset[d] = words(data.size());
      data.insert(data.end(), keys.begin(), keys.end());
      for (size_t a = 0; a < detail::kAttrs; ++a) {
        if (detail::dim_of(static_cast<Attr>(a)) != dim) continue;
        code_offset[a] = words(data.size());
        data.insert(data.end(), flat.codes[a].begin(), flat.codes[a].end());
      }
    }
    words(data.size());
    dim_data = cuda::kernel_buffer(*ctx, true, data.size() * 4, "ssb crystal dimensions");
    cuda::upload(*ctx, dim_data, data.data(), data.size() * 4);
  }

  ResultTable run(std::string_view query) {
    std::string name = canonical_query_name(query).value();
    detail::StarPlan plan = detail::plan_star(name, flat);
    detail::SsbCrystalQuery q;
    q.n = static_cast<uint32_t>(flat.n);
    q.aggregate = plan.aggregate;
    q.disc_lo = plan.disc_lo;
    q.disc_hi = plan.disc_hi;
    q.qty_lo = plan.qty_lo;
    q.qty_hi = plan.qty_hi;
    q.slots = static_cast<uint32_t>(plan.slots);
    std::vector<uint32_t> masks;
    uint64_t table_words = 0;
    for (int d = 0; d < 4; ++d) {
      if (plan.key_len[d] == 0) continue;
      Dim dim = static_cast<Dim>(d);
      detail::SsbCrystalDim& cd = q.dim[d];
      cd.rows = static_cast<uint32_t>(detail::dimension_keys(flat, dim).size());
      cd.key_min = plan.key_min[d];
      cd.key_len = plan.key_len[d];
      cd.keys = key_offset[d];
      cd.table = words(table_words);
      table_words += cd.key_len;
      for (const auto& f : plan.plan.filters) {
        if (detail::dim_of(f.attr) != dim) continue;
        if (cd.filters == 4) throw Error(Errc::internal, "SSB: over 4 filters on one dimension");
        cd.filter_codes[cd.filters] = code_offset[size_t(f.attr)];
        cd.filter_mask[cd.filters++] = words(masks.size());
        size_t at = masks.size();
        masks.resize(at + (f.selected.size() + 31) / 32, 0u);
        for (size_t c = 0; c < f.selected.size(); ++c)
          if (f.selected[c]) masks[at + c / 32] |= 1u << (c % 32);
      }
      for (size_t i = 0; i < plan.plan.group.size(); ++i) {
        if (detail::dim_of(plan.plan.group[i]) != dim) continue;
        if (cd.groups == 4) throw Error(Errc::internal, "SSB: over 4 groups on one dimension");
        cd.group_codes[cd.groups] = code_offset[size_t(plan.plan.group[i])];
        cd.group_stride[cd.groups++] = static_cast<uint32_t>(plan.stride[i]);
      }
    }
    q.table_words = words(table_words);
    q.mask_words = words(masks.size());
    cuda::SsbCrystalResult r = cuda::ssb_crystal(*ctx, columns, dim_data, masks, q);
    stats.kernel_ms = r.probe_ms;
    stats.build_ms = r.build_ms;
    return detail::finish_star(plan, flat, r.sums, r.counts);
  }
};

SsbCrystalCuda::SsbCrystalCuda(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SsbCrystalCuda::SsbCrystalCuda(SsbCrystalCuda&&) noexcept = default;
SsbCrystalCuda& SsbCrystalCuda::operator=(SsbCrystalCuda&&) noexcept = default;
SsbCrystalCuda::~SsbCrystalCuda() = default;

Result<SsbCrystalCuda> SsbCrystalCuda::create(const Context& ctx, const SsbTables& tables) {
  return guarded(ctx.vk(), [&] {
    const CudaSupport& s = ctx.cuda();
    if (!s.available) throw Error(Errc::unsupported, "CUDA not available: " + s.reason);
    auto impl = std::make_unique<Impl>();
    impl->ctx = ctx.shared();
    if (tables.lineorder.size() == 0)
      throw Error(Errc::invalid_argument, "the SSB lineorder table has no rows");
    impl->flat = detail::make_flat(tables);  // validates the foreign keys; dictionaries
    std::vector<uint32_t> cols = detail::star_columns(tables.lineorder);
    impl->columns = cuda::kernel_buffer(*impl->ctx, true, cols.size() * 4, "ssb crystal lineorder");
    cuda::upload(*impl->ctx, impl->columns, cols.data(), cols.size() * 4);
    impl->upload_dimensions();
    return SsbCrystalCuda(std::move(impl));
  });
}

Result<ResultTable> SsbCrystalCuda::run(std::string_view query) {
  return guarded(*impl_->ctx, [&] { return impl_->run(query); });
}
const SsbKernelStats& SsbCrystalCuda::last_stats() const {
  return impl_->stats;
}
uint64_t SsbCrystalCuda::column_bytes() const {
  return impl_->columns.size();
}

}  // namespace raydb::ssb
