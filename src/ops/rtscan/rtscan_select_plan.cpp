// RtScanTable's selections planned on the device (GPU encoding): rtscan_plan.comp rewrites the
// predicates over the device's mapping tables, picks the sieving borders and lays the refine
// lattices; the sieve and the refine read that plan, so neither the mapping table nor the borders
// come to the host. What does come back: 16 bytes of counts (rays, refine boxes, overflow), after
// the selection's fence.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "backend/vk/commands.hpp"
#include "ops/rtscan/rtscan_impl.hpp"

namespace raydb::detail {

namespace {
double host_ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
constexpr VkPipelineStageFlags kAll = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
constexpr VkAccessFlags kRw = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
// A refine launch strides over its group's rays with at most this many invocations: enough to
// fill a large GPU, few enough that a launch whose plan holds few rays costs little.
constexpr uint64_t kMaxPlanWidth = uint64_t{1} << 18;
constexpr double kScale = double(uint64_t{1} << kRtScanPlanFraction);
}  // namespace

void RtScanImpl::prepare_device_plan() {
  VkContext& c = *ctx;
  // The planner's fixed point holds keys (< 2^32) plus constants below 2^38, and needs pitches of
  // at least one fraction unit; other lattices are planned on the host.
  auto fits = [](double x) { return x * kScale >= 1 && x < 0x1p38; };
  std::vector<RtScanPlanGroup> plan_groups;
  std::vector<uint32_t> widths;
  for (const Group& g : groups) {
    const Lattice& l = g.lattice;
    const double stride = l.segment + l.spacing;
    if (!fits(l.interval) || !fits(stride) || !fits(2 * l.half_width)) return;
    RtScanPlanGroup pg{};
    const auto count = static_cast<uint32_t>(g.columns.size());
    for (uint32_t d = 0; d < count; ++d) pg.columns[d] = g.columns[d];
    pg.count = count;
    pg.ray_axis = count == 3 ? 3 : count == 2 ? 2 : 1;  // as RtScanImpl::select
    // Pitches rounded down and the reach before and past a box rounded up: never fewer lines or
    // segments than the exact lattice needs.
    pg.interval = static_cast<uint64_t>(std::floor(l.interval * kScale));
    pg.stride = static_cast<uint64_t>(std::floor(stride * kScale));
    pg.width = static_cast<uint64_t>(std::ceil(2 * l.half_width * kScale));
    pg.half_width = static_cast<uint64_t>(std::llround(l.half_width * kScale));
    pg.half_interval = static_cast<uint64_t>(std::llround(0.5 * l.interval * kScale));
    plan_groups.push_back(pg);
    // The most rays a box of this group can need (every used axis spanning all n codes), times
    // its at most two boxes per column.
    const double span = double(n - 1);
    const double lines = std::floor(span / l.interval) + 1;
    const double across = std::floor(2 * l.half_width / stride) + 1;
    const double along = std::floor((span + 2 * l.half_width) / stride) + 1;
    const double per_box = count == 1   ? lines * across
                           : count == 2 ? lines * lines * across
                                        : lines * lines * along;
    const double bound = std::min(per_box * 2 * count, double(kMaxPlanWidth));
    widths.push_back(static_cast<uint32_t>((static_cast<uint64_t>(bound) + 63) / 64 * 64));
  }
  std::vector<RtScanPlanColumn> plan_columns(cols);
  for (uint32_t k = 0; k < cols; ++k) {
    const rtscan::GpuEncoding& e = device_tables[k];
    plan_columns[k] = {e.values.address(),          e.lo_codes.address(), e.borders.address(),
                       sieves[k].vectors.address(), e.distinct,           e.border_count};
  }
  const uint64_t column_bytes = plan_columns.size() * sizeof(RtScanPlanColumn);
  const uint64_t group_bytes = plan_groups.size() * sizeof(RtScanPlanGroup);
  plan_inputs =
      Buffer(c, column_bytes + group_bytes, kStorageUsage, MemoryUse::device, "rtscan plan inputs");
  plan_out = Buffer(c,
                    sizeof(RtScanPlanStats) + groups.size() * kRtScanGroupPlanBytes +
                        cols * kRtScanPlanScratchBytes,
                    kStorageUsage, MemoryUse::device, "rtscan plan");
  plan_counts = Buffer(c, sizeof(RtScanPlanStats), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       MemoryUse::readback, "rtscan plan counts readback");
  {
    CommandBatch cb(c);
    Buffer staging_columns, staging_groups;
    record_upload(c, cb.cmd(), staging_columns, plan_inputs, plan_columns.data(), column_bytes);
    record_upload(c, cb.cmd(), staging_groups, plan_inputs, plan_groups.data(), group_bytes,
                  column_bytes);
    cb.submit_and_wait();
  }
  if (mode == TraversalMode::pipeline) {
    rt_plan = std::make_unique<RtPipeline>(
        c,
        RtShaders{ShaderId::rtscan_refine_plan_rgen, ShaderId::rtscan_refine_rmiss,
                  ShaderId::rtscan_refine_rahit, ShaderId::rtscan_refine_rchit,
                  ShaderId::rtscan_refine_plan_rint, RtPrimitives::boxes,
                  /*uses_any_hit=*/false, /*uses_closest_hit=*/false},
        sizeof(RtScanPlanRefineParams), groups[0].binding->layout());
    for (uint32_t& w : widths) w = std::min(w, rt_plan->max_width() / 64 * 64);
  } else {
    query_plan_kernel = std::make_unique<ComputePipeline>(c, ShaderId::rtscan_refine_plan_query,
                                                          sizeof(RtScanPlanRefineParams),
                                                          groups[0].binding->layout());
  }
  plan_width = std::move(widths);
  device_plan = true;
}

void RtScanImpl::host_tables() {
  if (!encoded.empty() || device_tables.empty()) return;
  VkContext& c = *ctx;
  for (uint32_t k = 0; k < cols; ++k) {
    const rtscan::GpuEncoding& e = device_tables[k];
    encoded.push_back(rtscan::download_table(c, e, n));
    std::vector<uint32_t> w = rtscan::download_words(c, e.borders, uint64_t{e.border_count} * 2);
    sieves[k].borders.resize(e.border_count);
    std::memcpy(sieves[k].borders.data(), w.data(), w.size() * 4);
  }
}

std::shared_ptr<BitmapImpl> RtScanImpl::select_planned(std::span<const Predicate> predicates) {
  VkContext& c = *ctx;
  query_stats = {};
  auto host_t0 = std::chrono::steady_clock::now();
  std::vector<uint32_t> packed;  // column, op, value, value2 per predicate (the planner's uvec4)
  for (const Predicate& p : predicates) {
    if (p.column >= cols)
      throw Error(
          Errc::invalid_argument,
          fmt::format("a predicate names column {} but the table has {} columns", p.column, cols));
    packed.insert(packed.end(), {p.column, static_cast<uint32_t>(p.op), p.value, p.value2});
  }
  std::vector<std::shared_ptr<BitmapImpl>> bitmaps;
  for (size_t gi = 0; gi < groups.size(); ++gi) bitmaps.push_back(new_bitmap(ctx, n, false));

  CommandBatch cb(c);
  VkCommandBuffer cmd = cb.cmd();
  const uint64_t predicate_bytes = packed.size() * 4;
  Buffer staging;
  if (predicate_bytes > 0) {
    if (plan_predicates.size() < predicate_bytes)
      plan_predicates =
          Buffer(c, predicate_bytes, kStorageUsage, MemoryUse::device, "rtscan plan predicates");
    if (predicate_bytes <= 65536)  // vkCmdUpdateBuffer's limit: no staging buffer
      c.vk.vkCmdUpdateBuffer(cmd, plan_predicates.handle(), 0, predicate_bytes, packed.data());
    else
      record_upload(c, cmd, staging, plan_predicates, packed.data(), predicate_bytes);
    memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, c);
  }
  GpuTimer timer(c, 4);
  timer.reset(cmd);
  uint32_t t0 = timer.mark(cmd);
  RtScanPlanParams pp{plan_inputs.address(),
                      plan_inputs.address() + cols * sizeof(RtScanPlanColumn),
                      predicate_bytes > 0 ? plan_predicates.address() : 0,
                      plan_out.address(),
                      cols,
                      static_cast<uint32_t>(groups.size()),
                      static_cast<uint32_t>(predicates.size()),
                      static_cast<uint32_t>(n)};
  kernel(c, ShaderId::rtscan_plan, sizeof pp).dispatch(cmd, &pp, 1);
  memory_barrier(cmd, kAll, kRw, kAll, kRw, c);
  auto group_plan = [&](size_t gi) {
    return plan_out.address() + sizeof(RtScanPlanStats) + gi * kRtScanGroupPlanBytes;
  };
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    RtScanSieveParams sp{};
    sp.bitmap = bitmaps[gi]->words.address();
    sp.words = static_cast<uint32_t>(words());
    sp.rows = static_cast<uint32_t>(n);
    sp.columns = static_cast<uint32_t>(groups[gi].columns.size());
    sp.plan = group_plan(gi);
    kernel(c, ShaderId::rtscan_sieve, sizeof sp).dispatch(cmd, &sp, words());
  }
  memory_barrier(cmd, kAll, kRw, kAll, kRw, c);
  uint32_t t1 = timer.mark(cmd);
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    RtScanPlanRefineParams rp{};
    for (size_t d = 0; d < g.columns.size(); ++d) rp.keys[d] = keys[g.columns[d]].address();
    rp.bitmap = bitmaps[gi]->words.address();
    rp.plan = group_plan(gi);
    rp.interval = static_cast<float>(g.lattice.interval);
    rp.segment = static_cast<float>(g.lattice.segment);
    rp.stride = static_cast<float>(g.lattice.segment + g.lattice.spacing);
    rp.width = plan_width[gi];
    if (mode == TraversalMode::pipeline)
      rt_plan->trace(cmd, &rp, rp.width, g.binding->set());
    else
      query_plan_kernel->dispatch(cmd, &rp, rp.width, g.binding->set());
  }
  memory_barrier(cmd, kAll, kRw, kAll, kRw, c);
  uint32_t t2 = timer.mark(cmd);
  for (size_t gi = 1; gi < groups.size(); ++gi) {
    BitmapOpParams p{bitmaps[0]->words.address(),
                     bitmaps[gi]->words.address(),
                     static_cast<uint32_t>(words()),
                     static_cast<uint32_t>(n),
                     kAnd,
                     0};
    kernel(c, ShaderId::bitmap_ops, sizeof p).dispatch(cmd, &p, bitmap_op_items(words()));
    memory_barrier(cmd, kAll, kRw, kAll, kRw, c);
  }
  uint32_t t3 = timer.mark(cmd);
  memory_barrier(cmd, kAll, kRw, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
  VkBufferCopy counts{0, 0, sizeof(RtScanPlanStats)};
  c.vk.vkCmdCopyBuffer(cmd, plan_out.handle(), plan_counts.handle(), 1, &counts);
  query_stats.host_rewrite_ms = host_ms_since(host_t0);  // packing and recording: no rewrite
  cb.submit_and_wait();
  plan_counts.invalidate();
  RtScanPlanStats stats;
  std::memcpy(&stats, plan_counts.mapped(), sizeof stats);
  if (stats.overflow)
    throw Error(Errc::limit_exceeded,
                fmt::format("the refine boxes of a column group need more than 2^32 - 1 rays in "
                            "all ({} for the query): raise the interval I or the segment length L",
                            stats.rays));
  query_stats.rays = stats.rays;
  query_stats.refine_boxes = stats.boxes;
  query_stats.sieve_ms = timer.ms(t0, t1);  // the plan and the sieve
  query_stats.refine_ms = timer.ms(t1, t2);
  query_stats.merge_ms = timer.ms(t2, t3);
  bitmaps[0]->gpu_ms = query_stats.gpu_ms();
  return bitmaps[0];
}

}  // namespace raydb::detail
