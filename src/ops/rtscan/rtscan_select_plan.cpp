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
// fill a large GPU (2^18) or a CPU implementation's threads and lanes (lavapipe: 4096), few
// enough that a launch whose plan holds few rays costs little (on lavapipe, 43,000 invocations
// that find no ray took 2 ms).
uint64_t max_plan_width(const VkContext& c) {
  return c.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? 4096 : uint64_t{1} << 18;
}
constexpr double kScale = double(uint64_t{1} << kRtScanPlanFraction);
constexpr uint64_t kRecordPredicateBytes = 65536;  // 4096 predicates
}  // namespace

void RtScanImpl::prepare_device_plan() {
  VkContext& c = *ctx;
  // The planner's fixed point holds keys (< 2^32) plus constants below 2^38, and needs pitches of
  // at least one fraction unit; other lattices are planned on the host.
  auto fits = [](double x) { return x * kScale >= 1 && x < 0x1p38; };
  std::vector<RtScanPlanGroup> plan_groups;
  std::vector<uint32_t> widths;
  std::vector<double> bounds;
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
    // its at most two boxes per column; one more line per axis than the exact count, as the
    // planner's rounded pitches may give.
    const double span = double(n - 1);
    const double lines = std::floor(span / l.interval) + 2;
    const double across = std::floor(2 * l.half_width / stride) + 2;
    const double along = std::floor((span + 2 * l.half_width) / stride) + 2;
    const double per_box = count == 1   ? lines * across
                           : count == 2 ? lines * lines * across
                                        : lines * lines * along;
    bounds.push_back(per_box * 2 * count);
    const double width = std::min(bounds.back(), double(max_plan_width(c)));
    widths.push_back(static_cast<uint32_t>((static_cast<uint64_t>(width) + 63) / 64 * 64));
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
  // vkCmdUpdateBuffer's limit; never reallocated, as recorded selections refer to it.
  plan_predicates =
      Buffer(c, kRecordPredicateBytes, kStorageUsage, MemoryUse::device, "rtscan plan predicates");
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
  plan_bound = std::move(bounds);
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

std::vector<uint32_t> RtScanImpl::pack_predicates(std::span<const Predicate> predicates) const {
  std::vector<uint32_t> packed;  // column, op, value, value2 per predicate (the planner's uvec4)
  for (const Predicate& p : predicates) {
    if (p.column >= cols)
      throw Error(
          Errc::invalid_argument,
          fmt::format("a predicate names column {} but the table has {} columns", p.column, cols));
    packed.insert(packed.end(), {p.column, static_cast<uint32_t>(p.op), p.value, p.value2});
  }
  return packed;
}

void RtScanImpl::record_planned(VkCommandBuffer cmd, std::span<const uint32_t> packed,
                                const Buffer& predicate_buffer,
                                std::span<const Buffer* const> bitmaps, GpuTimer* timer,
                                uint32_t* marks) {
  VkContext& c = *ctx;
  auto mark = [&](int i) {
    if (timer) marks[i] = timer->mark(cmd);
  };
  mark(0);
  RtScanPlanParams pp{plan_inputs.address(),
                      plan_inputs.address() + cols * sizeof(RtScanPlanColumn),
                      packed.empty() ? 0 : predicate_buffer.address(),
                      plan_out.address(),
                      cols,
                      static_cast<uint32_t>(groups.size()),
                      static_cast<uint32_t>(packed.size() / 4),
                      static_cast<uint32_t>(n),
                      0,
                      0};
  ComputePipeline& planner = kernel(c, ShaderId::rtscan_plan, sizeof pp);
  if (!packed.empty()) {  // the predicates' codes, one workgroup each
    planner.dispatch_groups(cmd, &pp, packed.size() / 4);
    memory_barrier(cmd, kAll, kRw, kAll, kRw, c);
  }
  pp.stage = 1;
  planner.dispatch_groups(cmd, &pp, 1);
  memory_barrier(cmd, kAll, kRw, kAll, kRw, c);
  auto group_plan = [&](size_t gi) {
    return plan_out.address() + sizeof(RtScanPlanStats) + gi * kRtScanGroupPlanBytes;
  };
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    RtScanSieveParams sp{};
    sp.bitmap = bitmaps[gi]->address();
    sp.words = static_cast<uint32_t>(words());
    sp.rows = static_cast<uint32_t>(n);
    sp.columns = static_cast<uint32_t>(groups[gi].columns.size());
    sp.plan = group_plan(gi);
    kernel(c, ShaderId::rtscan_sieve, sizeof sp).dispatch(cmd, &sp, words());
  }
  memory_barrier(cmd, kAll, kRw, kAll, kRw, c);
  mark(1);
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    RtScanPlanRefineParams rp{};
    for (size_t d = 0; d < g.columns.size(); ++d) rp.keys[d] = keys[g.columns[d]].address();
    rp.bitmap = bitmaps[gi]->address();
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
  mark(2);
  for (size_t gi = 1; gi < groups.size(); ++gi) {
    and_bitmap(cmd, bitmaps[0]->address(), bitmaps[gi]->address());
  }
  mark(3);
}

std::shared_ptr<BitmapImpl> RtScanImpl::select_planned(std::span<const Predicate> predicates) {
  VkContext& c = *ctx;
  query_stats = {};
  auto host_t0 = std::chrono::steady_clock::now();
  const std::vector<uint32_t> packed = pack_predicates(predicates);
  std::vector<std::shared_ptr<BitmapImpl>> bitmaps;
  std::vector<const Buffer*> words_of;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    bitmaps.push_back(new_bitmap(ctx, n, false));
    words_of.push_back(&bitmaps.back()->words);
  }
  CommandBatch cb(c);
  VkCommandBuffer cmd = cb.cmd();
  // A selection recorded into the host's command buffer and submitted earlier to this queue may
  // still read the predicates, plan and bitmaps this one rewrites.
  memory_barrier(cmd, kAll, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_TRANSFER_WRITE_BIT | kRw, c);
  const uint64_t predicate_bytes = packed.size() * 4;
  // Up to kRecordPredicateBytes through the table's buffer, inline in the command buffer; more
  // through a buffer of this call's.
  Buffer staging, large;
  const bool fits = predicate_bytes <= plan_predicates.size();
  if (!fits) {
    large = Buffer(c, predicate_bytes, kStorageUsage, MemoryUse::device, "rtscan plan predicates");
    record_upload(c, cmd, staging, large, packed.data(), predicate_bytes);
  } else if (predicate_bytes > 0) {
    c.vk.vkCmdUpdateBuffer(cmd, plan_predicates.handle(), 0, predicate_bytes, packed.data());
  }
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, c);
  GpuTimer timer(c, 4);
  timer.reset(cmd);
  uint32_t t[4] = {};
  record_planned(cmd, packed, fits ? plan_predicates : large, words_of, &timer, t);
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
  query_stats.sieve_ms = timer.ms(t[0], t[1]);  // the plan and the sieve
  query_stats.refine_ms = timer.ms(t[1], t[2]);
  query_stats.merge_ms = timer.ms(t[2], t[3]);
  bitmaps[0]->gpu_ms = query_stats.gpu_ms();
  return bitmaps[0];
}

bool RtScanImpl::recordable(size_t predicates) const {
  if (!device_plan || options.count_intersections || predicates * 16 > plan_predicates.size())
    return false;
  return std::all_of(plan_bound.begin(), plan_bound.end(),
                     [](double b) { return b <= double(0xFFFFFFFFu); });
}

void RtScanImpl::record_select(VkCommandBuffer cmd, std::span<const Predicate> predicates,
                               VkBuffer bitmap, VkDeviceSize offset) {
  VkContext& c = *ctx;
  if (!device_plan || options.count_intersections)
    throw Error(Errc::unsupported,
                "rtscan_record_select needs a selection planned on the device: a table built with "
                "gpu_encoding, count_intersections off, and lattice constants I, L + S and "
                "I + epsilon in [2^-24, 2^38)");
  for (size_t gi = 0; gi < groups.size(); ++gi)
    if (plan_bound[gi] > double(0xFFFFFFFFu))
      throw Error(Errc::limit_exceeded,
                  fmt::format("column group {}'s refine boxes could need up to {:.0f} rays, more "
                              "than 2^32 - 1, which a recorded selection cannot report: raise the "
                              "interval I or the segment length L, or use rtscan_submit_select",
                              gi, plan_bound[gi]));
  const std::vector<uint32_t> packed = pack_predicates(predicates);
  if (packed.size() * 4 > plan_predicates.size())
    throw Error(Errc::limit_exceeded,
                fmt::format("rtscan_record_select takes at most {} predicates, not {}",
                            plan_predicates.size() / 16, predicates.size()));
  if (record_bitmaps.empty())  // made once: earlier recordings may still refer to them
    for (size_t gi = 0; gi < groups.size(); ++gi)
      record_bitmaps.emplace_back(c, words() * 4, kStorageUsage, MemoryUse::device,
                                  fmt::format("rtscan recorded bitmap {}", gi));
  std::vector<const Buffer*> words_of;
  for (const Buffer& b : record_bitmaps) words_of.push_back(&b);
  query_stats = {};
  // Earlier work in `cmd` or on the queue (the host's writes, or an earlier recorded selection's
  // reads of the predicates and plan) comes first.
  memory_barrier(cmd, kAll, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_TRANSFER_WRITE_BIT | kRw, c);
  if (!packed.empty())
    c.vk.vkCmdUpdateBuffer(cmd, plan_predicates.handle(), 0, packed.size() * 4, packed.data());
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, c);
  record_planned(cmd, packed, plan_predicates, words_of, nullptr, nullptr);
  memory_barrier(cmd, kAll, kRw, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
  VkBufferCopy region{0, offset, words() * 4};
  c.vk.vkCmdCopyBuffer(cmd, record_bitmaps[0].handle(), bitmap, 1, &region);
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kAll,
                 VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT, c);
}

}  // namespace raydb::detail
