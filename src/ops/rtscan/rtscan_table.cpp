// RtScanTable: build (encoding, sieving vectors, one BVH of cubes per column group) on Vulkan, and
// the table's accessors. select is in rtscan_select.cpp.
#include "raydb/rtscan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "backend/optix/optix.hpp"
#include "backend/vk/blas.hpp"
#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/radix_sort.hpp"
#include "ops/rtscan/gpu_encoding.hpp"
#include "ops/rtscan/rtscan_impl.hpp"

namespace raydb {

const char* to_string(RtScanMode mode) {
  switch (mode) {
    case RtScanMode::rtscan:
      return "rtscan";
    case RtScanMode::rtc3:
      return "rtc3";
    case RtScanMode::rtc1:
      return "rtc1";
    case RtScanMode::rtindex:
      return "rtindex";
  }
  return "?";
}

Result<RtScanMode> parse_rtscan_mode(const std::string& text) {
  for (RtScanMode m : {RtScanMode::rtscan, RtScanMode::rtc3, RtScanMode::rtc1, RtScanMode::rtindex})
    if (text == to_string(m)) return m;
  return Error(Errc::invalid_argument,
               fmt::format("unknown RTScan mode '{}' (rtscan, rtc3, rtc1, rtindex)", text));
}

namespace detail {

using rtscan::Box;
using rtscan::KeyInterval;

namespace {
double host_ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
constexpr VkPipelineStageFlags kAll = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;

}  // namespace

void RtScanImpl::plan_groups() {
  auto& gs = options.groups;
  if (options.mode == RtScanMode::rtindex) gs.clear();  // one column per BVH
  if (gs.empty()) {
    uint32_t size = options.mode == RtScanMode::rtc1 || options.mode == RtScanMode::rtindex ? 1 : 3;
    for (uint32_t c = 0; c < cols; c += size) {
      std::vector<uint32_t> g;
      for (uint32_t k = c; k < std::min(cols, c + size); ++k) g.push_back(k);
      gs.push_back(g);
    }
  }
  std::vector<int> seen(cols, 0);
  for (const auto& g : gs) {
    if (g.empty() || g.size() > 3)
      throw Error(Errc::invalid_argument,
                  fmt::format("a column group holds 1 to 3 columns, not {}", g.size()));
    for (uint32_t c : g) {
      if (c >= cols)
        throw Error(
            Errc::invalid_argument,
            fmt::format("a column group names column {} but the table has {} columns", c, cols));
      if (seen[c]++)
        throw Error(Errc::invalid_argument,
                    fmt::format("column {} is in more than one column group", c));
    }
  }
  for (uint32_t c = 0; c < cols; ++c)
    if (!seen[c])
      throw Error(Errc::invalid_argument, fmt::format("column {} is in no column group", c));
  for (const auto& g : gs) groups.push_back(Group{g, {}, {}, nullptr, {}});
}

void RtScanImpl::pick_lattice() {
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = 0;
  for (const auto& r : key_range) lo = std::min(lo, r.lo), hi = std::max(hi, r.hi);
  double range = n == 0 ? 1.0 : double(hi - std::min(lo, hi)) + 1;
  if (options.interval < 0 || options.spacing < 0 || options.segment < 0 || options.epsilon < 0)
    throw Error(Errc::invalid_argument, "RTScan's I, S, L and epsilon must not be negative");
  double widest = 0;  // the largest pitch of any group
  for (Group& g : groups) {
    Lattice& l = g.lattice;
    // A one-column group's cubes lie on one line, crossed by rays perpendicular to it, one per
    // pitch I: each ray meets about I / (range / rows) cubes, one after another. The 3-D default
    // (range / 1200) gave 1200 rays of 83,000 hits each at 1e8 rows (a 3+1 query: 159 ms on an
    // H100, against 0.6 ms for 2+2), and pitch 1 a ray per key unit (rtc1 over 2^32 values: 1.3e9
    // rays). About 32 rows per ray keeps both the rays and each ray's work short.
    double fallback = g.columns.size() == 1
                          ? std::max(1.0, 32.0 * range / double(std::max<uint64_t>(n, 1)))
                          : std::max(1.0, range / 1200);
    l.interval = options.interval > 0 ? options.interval : fallback;
    widest = std::max(widest, l.interval);
  }
  // Cube bounds and ray origins reach about I past the largest key (a lattice row sits half a
  // pitch inside a box, a cube reaches half a width out), so the float32 rounding the epsilon
  // covers is that of hi + I, not of hi alone: with I far above the keys (a coarse lattice over
  // small keys) an epsilon sized by the keys let rays pass outside cubes they should cross.
  double reach = double(hi) + widest;
  int bits = reach < 1 ? 0 : std::ilogb(reach) + 1;
  epsilon = options.epsilon > 0 ? options.epsilon : std::max(0.5, std::ldexp(1.0, bits - 21));
  for (Group& g : groups) {
    Lattice& l = g.lattice;
    double width = l.interval + epsilon;
    l.spacing = options.spacing > 0 ? options.spacing : l.interval;
    l.segment = options.segment > 0 ? options.segment : std::max(range / 90, width);
    // A gap as wide as a cube could hold one that no segment crosses.
    if (l.spacing >= width)
      throw Error(Errc::invalid_argument,
                  fmt::format("RTScan's spacing S = {} must be below the cube width I + epsilon = "
                              "{} (column group of {} column(s))",
                              l.spacing, width, g.columns.size()));
    l.half_width = width / 2;
  }
  triangle_half = std::max(0.5, epsilon);
}

void RtScanImpl::build_sieves() {
  VkContext& c = *ctx;
  sieves.resize(cols);
  CommandBatch cb(c);
  GpuTimer timer(c, 2);
  timer.reset(cb.cmd());
  // Host encoding: borders from the host's mapping table, uploaded; GPU encoding: the device's.
  std::vector<Buffer> borders(cols), staging(cols);
  std::vector<uint64_t> counts(cols);
  for (uint32_t k = 0; k < cols; ++k) {
    Sieve& s = sieves[k];
    if (device_tables.empty()) {
      s.borders = rtscan::sieve_borders(encoded[k].lo_codes(), n, options.bins);
      counts[k] = s.borders.size();
      borders[k] =
          Buffer(c, s.borders.size() * 8, kStorageUsage, MemoryUse::device, "rtscan sieve borders");
      record_upload(c, cb.cmd(), staging[k], borders[k], s.borders.data(), s.borders.size() * 8);
    } else {
      counts[k] = device_tables[k].border_count;
    }
    build_stats.bins_used.push_back(static_cast<uint32_t>(counts[k] - 1));
    uint64_t vectors = counts[k] - 2;
    s.vectors = Buffer(c, std::max<uint64_t>(vectors * words() * 4, 4), kStorageUsage,
                       MemoryUse::device, fmt::format("rtscan sieve vectors {}", k));
    build_stats.sieve_bytes += vectors * words() * 4;
  }
  memory_barrier(cb.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, c);
  uint32_t t0 = timer.mark(cb.cmd());
  for (uint32_t k = 0; k < cols; ++k) {
    uint64_t items = (counts[k] - 2) * words();
    const Buffer& b = device_tables.empty() ? borders[k] : device_tables[k].borders;
    RtScanVectorParams p{keys[k].address(),
                         b.address(),
                         sieves[k].vectors.address(),
                         items,
                         static_cast<uint32_t>(words()),
                         static_cast<uint32_t>(n)};
    kernel(c, ShaderId::rtscan_vectors, sizeof p).dispatch(cb.cmd(), &p, items);
  }
  uint32_t t1 = timer.mark(cb.cmd());
  cb.submit_and_wait();
  build_stats.sieve_ms = timer.ms(t0, t1);
}

void RtScanImpl::build_group(Group& g) {
  VkContext& c = *ctx;
  bool triangles = options.mode == RtScanMode::rtindex;
  Buffer prims(c, n * (triangles ? 36 : 24),
               kStorageUsage | VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR,
               MemoryUse::device, triangles ? "rtscan triangles" : "rtscan cubes");
  BuildRequest req;
  req.primitive_count = static_cast<uint32_t>(n);
  req.flags = VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR |
              VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_COMPACTION_BIT_KHR;
  // Triangles are not opaque, so that every one crossed reaches the any-hit shader, once.
  req.geometry = triangles ? triangle_geometry(prims.address(), req.primitive_count,
                                               VK_GEOMETRY_NO_DUPLICATE_ANY_HIT_INVOCATION_BIT_KHR)
                           : aabb_geometry(prims.address(), VK_GEOMETRY_OPAQUE_BIT_KHR);
  RtScanCubeParams p{{0, 0, 0},
                     prims.address(),
                     static_cast<uint32_t>(n),
                     static_cast<float>(triangles ? triangle_half : g.lattice.half_width)};
  for (size_t d = 0; d < g.columns.size(); ++d) p.keys[d] = keys[g.columns[d]].address();
  // The cubes (or triangles) are written by a kernel in the build's own submission, and timed
  // with it; they are freed before compaction.
  auto write_primitives = [&](VkCommandBuffer cmd) {
    kernel(c, triangles ? ShaderId::rtscan_triangles : ShaderId::rtscan_cubes, sizeof p)
        .dispatch(cmd, &p, n);
    memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                   VK_ACCESS_SHADER_READ_BIT, c);
  };
  BlasTimes times;
  g.blas = build_blas(c, BlasBuild{req, "rtscan BLAS", write_primitives}, times, &prims);
  build_stats.bvh_ms += times.prepare_ms + times.build_ms + times.compact_ms;

  // RtPipeline's hit group 0 takes triangles, 1 boxes.
  VkAccelerationStructureInstanceKHR inst = identity_instance(g.blas, triangles ? 0 : 1);
  double ms = 0;
  g.tlas = build_tlas(c, {&inst, 1}, "rtscan TLAS", ms);
  build_stats.bvh_ms += ms;
  build_stats.bvh_bytes += g.blas.bytes() + g.tlas.bytes();
  g.binding = std::make_unique<TlasBinding>(
      c, VK_SHADER_STAGE_RAYGEN_BIT_KHR | VK_SHADER_STAGE_COMPUTE_BIT);
  g.binding->bind(g.tlas.handle());
}

void RtScanImpl::build(std::span<const std::span<const uint32_t>> columns,
                       const RtScanDeviceColumns* device) {
  VkContext& c = *ctx;
  cols = static_cast<uint32_t>(device ? device->buffers.size() : columns.size());
  n = device ? device->rows : columns.empty() ? 0 : columns[0].size();
  for (uint32_t k = 0; k < cols && !device; ++k)
    if (columns[k].size() != n)
      throw Error(Errc::invalid_argument, fmt::format("column {} has {} rows but column 0 has {}",
                                                      k, columns[k].size(), n));
  if (n > 0xFFFFFFFEull)
    throw Error(Errc::limit_exceeded, "an RTScan table holds at most 2^32 - 2 rows");
  if (n > c.info.max_primitive_count)
    throw Error(Errc::limit_exceeded,
                fmt::format("{} rows are more cubes than the device's {} primitives per BLAS", n,
                            c.info.max_primitive_count));
  if (options.mode == RtScanMode::rtscan && (options.bins < 1 || options.bins > 4096))
    throw Error(Errc::invalid_argument,
                fmt::format("RTScan sieving takes 1 to 4096 bins, not {}", options.bins));
  plan_groups();

  // Keys: Uniform Encoding codes, or the values themselves.
  bool encode = options.mode == RtScanMode::rtscan;
  bool on_gpu = encode && options.gpu_encoding;
  if (device && !on_gpu)  // the keys' range or the CPU encoder would need them on the host
    throw Error(Errc::unsupported,
                "an RTScan table built from device buffers needs RtScanOptions::mode rtscan with "
                "gpu_encoding on");
  std::vector<std::span<const uint32_t>> key_spans(columns.begin(), columns.end());
  if (encode && !on_gpu) {
    auto t0 = std::chrono::steady_clock::now();
    for (uint32_t k = 0; k < cols; ++k) {
      encoded.push_back(raydb::rtscan::EncodedColumn::encode(columns[k]).value());
      key_spans[k] = encoded.back().codes();
    }
    build_stats.host_encode_ms = host_ms_since(t0);
  }
  {  // the values (GPU encoding) or keys to the device
    CommandBatch cb(c);
    std::vector<Buffer> staging(cols);
    GpuTimer timer(c, 2);
    timer.reset(cb.cmd());
    uint32_t t0 = timer.mark(cb.cmd());
    if (device) {
      // Host writes submitted earlier to this queue, or signalled through `wait`, come first.
      memory_barrier(cb.cmd(), kAll, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_TRANSFER_READ_BIT, c);
      for (const auto& [sem, value] : device->wait)
        cb.wait_for(sem, value, VK_PIPELINE_STAGE_TRANSFER_BIT);
      for (const auto& [sem, value] : device->signal) cb.signal(sem, value);
    }
    for (uint32_t k = 0; k < cols; ++k) {
      keys.emplace_back(c, std::max<uint64_t>(n * 4, 4), kStorageUsage, MemoryUse::device,
                        fmt::format("rtscan keys {}", k));
      if (device) {
        VkBufferCopy region{device->offsets[k], 0, n * 4};
        c.vk.vkCmdCopyBuffer(cb.cmd(), device->buffers[k], keys.back().handle(), 1, &region);
      } else if (n) {
        record_upload(c, cb.cmd(), staging[k], keys.back(), key_spans[k].data(), n * 4);
      }
    }
    memory_barrier(cb.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kAll,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT, c);
    uint32_t t1 = timer.mark(cb.cmd());
    cb.submit_and_wait();
    build_stats.upload_ms = timer.ms(t0, t1);
    build_stats.key_bytes = n * 4 * cols;
  }
  if (on_gpu)
    for (uint32_t k = 0; k < cols; ++k) {
      if (n == 0) {  // nothing to encode: the host plan's empty table
        encoded.push_back(raydb::rtscan::EncodedColumn::from_sorted_values({}).value());
        continue;
      }
      auto e = rtscan::encode_on_gpu(c, keys[k], n, options.bins);
      build_stats.encode_ms += e.gpu_ms;
      build_stats.host_encode_ms += e.host_ms;
      keys[k] = std::move(e.codes);
      device_tables.push_back(std::move(e));
    }
  for (uint32_t k = 0; k < cols; ++k) {
    if (n == 0) {
      key_range.push_back({0, -1});
    } else if (encode) {
      key_range.push_back({1, static_cast<int64_t>(n)});
    } else {
      auto [lo, hi] = std::minmax_element(key_spans[k].begin(), key_spans[k].end());
      key_range.push_back({*lo, *hi});
    }
    if (options.count_intersections) {  // a debugging aid: not part of the build a user waits for
      auto t0 = std::chrono::steady_clock::now();
      host_keys.push_back(on_gpu ? rtscan::download_words(c, keys[k], n)
                                 : std::vector<uint32_t>(key_spans[k].begin(), key_spans[k].end()));
      build_stats.counter_keys_ms += host_ms_since(t0);
    }
  }
  pick_lattice();
  if (n == 0) return;  // nothing to trace: every selection is empty
  if (options.mode == RtScanMode::rtscan) build_sieves();
  for (Group& g : groups) build_group(g);
  if (!device_tables.empty() && (device || options.plan_on_device)) prepare_device_plan();
  if (!device_plan) make_host_pipelines();
}

void RtScanImpl::make_host_pipelines() {
  VkContext& c = *ctx;
  if (rt || query_kernel) return;
  if (mode == TraversalMode::pipeline)
    rt = std::make_unique<RtPipeline>(
        c,
        RtShaders{
            ShaderId::rtscan_refine_rgen, ShaderId::rtscan_refine_rmiss,
            ShaderId::rtscan_refine_rahit, ShaderId::rtscan_refine_rchit,
            ShaderId::rtscan_refine_rint,
            // rtindex: triangles re-checked by any-hit; rtscan: cubes re-checked by the
            // intersection shader, which reports nothing.
            options.mode == RtScanMode::rtindex ? RtPrimitives::triangles : RtPrimitives::boxes,
            /*uses_any_hit=*/options.mode == RtScanMode::rtindex,
            /*uses_closest_hit=*/false},
        sizeof(RtScanRefineParams), groups[0].binding->layout());
  else
    query_kernel = std::make_unique<ComputePipeline>(
        c, ShaderId::rtscan_refine_query, sizeof(RtScanRefineParams), groups[0].binding->layout());
}

}  // namespace detail

using detail::guarded;
using detail::RtScanImpl;

Result<RtScanTable> RtScanTable::build(const Context& ctx,
                                       std::span<const std::span<const uint32_t>> columns,
                                       const RtScanOptions& options) {
  return guarded(ctx.vk(), [&]() -> RtScanTable {
    auto impl = std::make_unique<RtScanImpl>();
    impl->ctx = ctx.shared();
    impl->options = options;
    impl->mode = impl->ctx->resolve(options.traversal);
    // Before the Vulkan build, so that a missing OptiX costs no build.
    if (options.api == RayTracingApi::optix) detail::optix::require(ctx.vk());
    auto t0 = std::chrono::steady_clock::now();
    impl->build(columns);
    RtScanTable table(std::move(impl));
    detail::RtScanImpl& built = *table.impl_;
    if (options.api == RayTracingApi::optix) {  // the twin borrows the table's impl
      built.optix = std::make_unique<RtScanOptix>(RtScanOptix::build(table).value());
      built.build_stats.optix = built.optix->build_stats();
    }
    built.build_stats.wall_ms =
        std::max(0.0, detail::host_ms_since(t0) - built.build_stats.counter_keys_ms);
    return table;
  });
}

RtScanImpl& detail::rtscan_impl(RtScanTable& table) {
  return *table.impl_;
}

Result<Bitmap> RtScanTable::select(std::span<const Predicate> predicates) {
  return guarded(*impl_->ctx, [&] {
    if (impl_->optix) return impl_->optix->select(predicates).value();
    return Bitmap(impl_->select(predicates));
  });
}

uint64_t RtScanTable::rows() const {
  return impl_->n;
}
uint32_t RtScanTable::columns() const {
  return impl_->cols;
}
TraversalMode RtScanTable::traversal() const {
  return impl_->mode;
}
const RtScanOptions& RtScanTable::options() const {
  return impl_->options;
}
const RtScanBuildStats& RtScanTable::build_stats() const {
  return impl_->build_stats;
}
const RtScanQueryStats& RtScanTable::last_stats() const {
  return impl_->query_stats;
}
void RtScanTable::set_count_intersections(bool on) {
  impl_->options.count_intersections = on;
}

RtScanTable::RtScanTable(std::unique_ptr<RtScanImpl> impl) : impl_(std::move(impl)) {}
RtScanTable::RtScanTable(RtScanTable&&) noexcept = default;
RtScanTable& RtScanTable::operator=(RtScanTable&&) noexcept = default;
RtScanTable::~RtScanTable() = default;

}  // namespace raydb
