// RtScanTable::select on Vulkan: rewrite the predicates, sieve, Matrix RT Refine and merge.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "backend/cuda/cuda.hpp"
#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "common/parallel.hpp"
#include "ops/rtscan/rtscan_impl.hpp"
#include "raydb/rtscan.hpp"

namespace raydb::detail {

using rtscan::Box;
using rtscan::KeyInterval;

namespace {
double host_ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
constexpr VkPipelineStageFlags kAll = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
constexpr VkAccessFlags kRw = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
}  // namespace

void RtScanImpl::and_bitmap(VkCommandBuffer cmd, VkDeviceAddress dst, VkDeviceAddress src) {
  VkContext& c = *ctx;
  BitmapOpParams p{dst, src, static_cast<uint32_t>(words()), static_cast<uint32_t>(n), kAnd, 0};
  kernel(c, ShaderId::bitmap_ops, sizeof p).dispatch(cmd, &p, bitmap_op_items(words()));
  memory_barrier(cmd, kAll, kRw, kAll, kRw, c);
}

std::shared_ptr<BitmapImpl> RtScanImpl::select(std::span<const Predicate> predicates,
                                               const RtScanExternalRefine* external) {
  if (device_plan && !external && !options.count_intersections) return select_planned(predicates);
  VkContext& c = *ctx;
  if (!device_tables.empty()) host_tables();
  if (!external && n > 0) make_host_pipelines();
  query_stats = {};
  auto host_t0 = std::chrono::steady_clock::now();
  // The accepted keys per column (several predicates on one column intersect).
  std::vector<KeyInterval> t(cols, KeyInterval{0, 0xFFFFFFFF});
  std::vector<bool> constrained(cols, false);
  for (const Predicate& p : predicates) {
    if (p.column >= cols)
      throw Error(
          Errc::invalid_argument,
          fmt::format("a predicate names column {} but the table has {} columns", p.column, cols));
    Predicate q = options.mode == RtScanMode::rtscan ? encoded[p.column].rewrite(p) : p;
    auto accepted = accepted_interval(q);
    KeyInterval a = accepted ? KeyInterval{accepted->first, accepted->second} : KeyInterval{1, 0};
    t[p.column] = {std::max(t[p.column].lo, a.lo), std::min(t[p.column].hi, a.hi)};
    constrained[p.column] = true;
  }
  bool none = n == 0;
  for (uint32_t k = 0; k < cols && !none; ++k) {
    t[k] = {std::max(t[k].lo, key_range[k].lo), std::min(t[k].hi, key_range[k].hi)};
    none = t[k].empty();
  }
  const bool shared = external != nullptr;  // bitmaps the other API writes
  auto out = new_bitmap(ctx, n, shared);
  if (none) {
    query_stats.host_rewrite_ms = host_ms_since(host_t0);
    CommandBatch cb(c);
    if (out->word_count())
      c.vk.vkCmdFillBuffer(cb.cmd(), out->words.handle(), 0, out->word_count() * 4, 0);
    cb.submit_and_wait();
    return out;
  }

  // Per group: the sieve's approximation and the refine boxes.
  struct GroupPlan {
    RtScanSieveParams sieve{};
    std::vector<Box> boxes;
    std::vector<rtscan::Lattice> lattices;
    std::shared_ptr<BitmapImpl> bitmap;
  };
  std::vector<GroupPlan> plans(groups.size());
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    GroupPlan& plan = plans[gi];
    plan.bitmap = gi == 0 ? out : new_bitmap(ctx, n, shared);
    plan.sieve.bitmap = plan.bitmap->words.address();
    plan.sieve.words = static_cast<uint32_t>(words());
    plan.sieve.rows = static_cast<uint32_t>(n);
    plan.sieve.columns = static_cast<uint32_t>(g.columns.size());
    std::vector<KeyInterval> gt, ga;
    for (size_t d = 0; d < g.columns.size(); ++d) {
      uint32_t k = g.columns[d];
      gt.push_back(t[k]);
      if (!constrained[k]) {
        ga.push_back(t[k]);  // the whole column: nothing to sieve or refine
      } else if (options.mode != RtScanMode::rtscan) {
        ga.push_back({1, 0});  // no sieving: the approximation is empty, the box is refined whole
        plan.sieve.empty |= 1u << d;
      } else {
        const Sieve& s = sieves[k];
        auto [a, b] = rtscan::nearest_borders(s.borders, t[k]);
        uint64_t m = s.borders.size() - 1;
        uint64_t stride = words() * 4;
        if (a >= b) {
          plan.sieve.empty |= 1u << d;
        } else {
          plan.sieve.upper[d] = b == m ? 0 : s.vectors.address() + (b - 1) * stride;
          plan.sieve.lower[d] = a == 0 ? 0 : s.vectors.address() + (a - 1) * stride;
        }
        ga.push_back(a >= b ? KeyInterval{1, 0} : KeyInterval{s.borders[a], s.borders[b] - 1});
      }
    }
    plan.boxes = rtscan::refine_boxes(gt, ga);
    uint32_t ray_axis = g.columns.size() == 3 ? 3 : g.columns.size() == 2 ? 2 : 1;
    for (const Box& box : plan.boxes) {
      if (options.mode == RtScanMode::rtindex) {  // one ray along X over the whole range
        rtscan::Lattice l;
        l.axis = 0, l.cross0 = 1, l.cross1 = 2;
        l.n_cross0 = l.n_cross1 = l.n_segments = 1;
        l.origin = {double(box.axis[0].lo) - 2 * triangle_half, 0.0, 0.0};
        l.segment = double(box.axis[0].hi - box.axis[0].lo) + 4 * triangle_half;
        plan.lattices.push_back(l);
      } else {
        plan.lattices.push_back(rtscan::make_lattice(box, ray_axis, g.lattice.interval,
                                                     g.lattice.segment + g.lattice.spacing,
                                                     g.lattice.half_width));
      }
      if (plan.lattices.back().rays() > 0xFFFFFFFFull)
        throw Error(
            Errc::limit_exceeded,
            fmt::format("a refine box needs {} rays, more than 2^32 - 1: raise the "
                        "interval I ({}) or the segment length L ({})",
                        plan.lattices.back().rays(), g.lattice.interval, g.lattice.segment));
      query_stats.rays += plan.lattices.back().rays();
    }
    query_stats.refine_boxes += plan.boxes.size();
  }
  query_stats.host_rewrite_ms = host_ms_since(host_t0);

  Buffer counter;
  if (options.count_intersections)
    counter = cuda::kernel_buffer(c, shared, 4, "rtscan intersection count");
  // Every refine box of every group as one launch of its lattice's rays.
  std::vector<RtScanRefineLaunch> launches;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    GroupPlan& plan = plans[gi];
    for (size_t b = 0; b < plan.boxes.size(); ++b) {
      const rtscan::Lattice& l = plan.lattices[b];
      RtScanRefineLaunch launch;
      launch.group = gi;
      launch.rays = l.rays();
      RtScanRefineParams& p = launch.params;
      for (size_t d = 0; d < g.columns.size(); ++d) {
        p.keys[d] = keys[g.columns[d]].address();
        p.lo[d] = static_cast<uint32_t>(t[g.columns[d]].lo);
        p.hi[d] = static_cast<uint32_t>(t[g.columns[d]].hi);
      }
      launch.bitmap = &plan.bitmap->words;
      p.bitmap = plan.bitmap->words.address();
      launch.counter = counter ? &counter : nullptr;
      p.counter = counter ? counter.address() : 0;
      for (int d = 0; d < 3; ++d) p.origin[d] = static_cast<float>(l.origin[d]);
      p.n_cross0 = static_cast<uint32_t>(l.n_cross0);
      p.n_cross1 = static_cast<uint32_t>(l.n_cross1);
      p.n_segments = static_cast<uint32_t>(l.n_segments);
      p.axis = l.axis;
      p.cross0 = l.cross0;
      p.cross1 = l.cross1;
      p.interval = static_cast<float>(g.lattice.interval);
      p.segment = static_cast<float>(l.segment > 0 ? l.segment : g.lattice.segment);
      p.stride = static_cast<float>(g.lattice.segment + g.lattice.spacing);
      launches.push_back(launch);
    }
  }

  // Sieve, refine and merge in one command buffer; with an external refine, the sieve's commands
  // are submitted first, the other API's work waits for them on the GPU (the shared timeline), and
  // the merge's commands wait for it.
  auto sieve_batch = std::make_unique<CommandBatch>(c);
  VkCommandBuffer cmd = sieve_batch->cmd();
  if (counter) {
    c.vk.vkCmdFillBuffer(cmd, counter.handle(), 0, 4, 0);
    memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kAll, kRw, c);
  }
  GpuTimer timer(c, 4);
  std::unique_ptr<GpuTimer> merge_timer;  // external refine: the merge's batch has its own
  timer.reset(cmd);
  uint32_t t0 = timer.mark(cmd);
  for (auto& plan : plans)
    kernel(c, ShaderId::rtscan_sieve, sizeof(RtScanSieveParams))
        .dispatch(cmd, &plan.sieve, words());
  memory_barrier(cmd, kAll, kRw, kAll, kRw, c);
  uint32_t t1 = timer.mark(cmd);
  std::unique_ptr<CommandBatch> merge_batch;
  double external_refine_ms = 0;
  if (external) {
    cuda::cuda_after(c, *sieve_batch);
    sieve_batch->submit();
    external_refine_ms = (*external)(launches);
    merge_batch = std::make_unique<CommandBatch>(c);
    cuda::vulkan_after(c, *merge_batch);
    cmd = merge_batch->cmd();
    merge_timer = std::make_unique<GpuTimer>(c, 2);
    merge_timer->reset(cmd);
  } else {
    for (const RtScanRefineLaunch& launch : launches) {
      const Group& g = groups[launch.group];
      RtScanRefineParams p = launch.params;
      uint64_t slice =
          mode == TraversalMode::pipeline ? rt->max_width() : query_kernel->max_items();
      for (uint64_t first = 0; first < launch.rays; first += slice) {
        p.ray_offset = static_cast<uint32_t>(first);
        p.num_rays = static_cast<uint32_t>(std::min(slice, launch.rays - first));
        if (mode == TraversalMode::pipeline)
          rt->trace(cmd, &p, p.num_rays, g.binding->set());
        else
          query_kernel->dispatch(cmd, &p, p.num_rays, g.binding->set());
      }
    }
  }
  memory_barrier(cmd, kAll, kRw, kAll, kRw, c);
  GpuTimer& mt = merge_timer ? *merge_timer : timer;
  uint32_t t2 = mt.mark(cmd);
  for (size_t gi = 1; gi < plans.size(); ++gi) {
    and_bitmap(cmd, out->words.address(), plans[gi].bitmap->words.address());
  }
  uint32_t t3 = mt.mark(cmd);
  if (counter)
    memory_barrier(cmd, kAll, kRw, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
  Buffer readback;
  if (counter) {
    readback = Buffer(c, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                      "rtscan count readback");
    VkBufferCopy r{0, 0, 4};
    c.vk.vkCmdCopyBuffer(cmd, counter.handle(), readback.handle(), 1, &r);
  }
  if (merge_batch) {
    merge_batch->submit_and_wait();
    sieve_batch->wait();
  } else {
    sieve_batch->submit_and_wait();
  }
  query_stats.sieve_ms = timer.ms(t0, t1);
  query_stats.refine_ms = external ? external_refine_ms : timer.ms(t1, t2);
  query_stats.merge_ms = mt.ms(t2, t3);
  out->gpu_ms = query_stats.gpu_ms();
  if (counter) {
    readback.invalidate();
    query_stats.intersections = *readback.as<uint32_t>();
  }
  if (counter && !host_keys.empty()) {
    // Rows inside at least one refine box (the paper's refined rows).
    std::vector<uint64_t> inside(host_threads(), 0);
    parallel_slices(n, host_threads(), [&](size_t b, size_t e, unsigned th) {
      for (size_t r = b; r < e; ++r) {
        bool in = false;
        for (size_t gi = 0; gi < groups.size() && !in; ++gi)
          for (const Box& box : plans[gi].boxes) {
            bool all = true;
            for (size_t d = 0; d < groups[gi].columns.size() && all; ++d) {
              int64_t v = host_keys[groups[gi].columns[d]][r];
              all = v >= box.axis[d].lo && v <= box.axis[d].hi;
            }
            if (all) {
              in = true;
              break;
            }
          }
        inside[th] += in;
      }
    });
    for (uint64_t x : inside) query_stats.refined_rows += x;
  }
  return out;
}

}  // namespace raydb::detail
