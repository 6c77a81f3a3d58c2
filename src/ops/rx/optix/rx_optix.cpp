// RxOptixIndex: the RX mapping through OptiX. Builds one GAS over the Vulkan index's records
// (imported into CUDA), with primitives from common/rx_mapping.h, makes a pipeline of the embedded
// rx_programs.cu, and launches one ray-generation thread per lookup, the twin of rx_probe.rgen.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <optix.h>
#include <optix_stubs.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "backend/cuda/runtime.hpp"
#include "backend/optix/device_memory.hpp"
#include "backend/optix/gas.hpp"
#include "backend/optix/optix_internal.hpp"
#include "backend/optix/program.hpp"
#include "backend/vk/commands.hpp"
#include "common/capture.hpp"
#include "ops/common/key_records.hpp"
#include "ops/common/lookup_batch.hpp"
#include "ops/rx/optix/rx_launch.h"
#include "ops/rx/optix/rx_optix.hpp"
#include "ops/rx/optix/rx_primitives.hpp"
#include "ops/rx/rx_params.hpp"
#include "ops/rx/rx_view.hpp"

extern const unsigned char raydb_optix_rx_programs[];
extern const unsigned long long raydb_optix_rx_programs_size;

namespace raydb::detail {

using optix::DeviceMemory;
using optix::MemoryTally;

struct RxOptixImpl {
  RxIndexView view;
  std::shared_ptr<VkContext> ctx;  // view.ctx: the context whose lock lookup_into takes
  RxOptixOptions variant;
  optix::State* st = nullptr;
  cudaStream_t stream = nullptr;
  bool boxes = false;
  MemoryTally memory;
  DeviceMemory gas;
  DeviceMemory ias;  // RxOptixOptions::two_level: one instance over the GAS
  OptixTraversableHandle handle = 0;
  // The index's records in cudaMalloc'd memory, which the programs read (optix::use_own_memory):
  // copied once at build; empty when Diagnostics::cuda_own_memory is off (the imported records).
  DeviceMemory own_records;
  // The index's records shared with CUDA when the index keeps them in Vulkan's own memory (built
  // with api = vulkan, which allocates ~10x faster): one copy, made by build().
  Buffer shared_copy;
  const Buffer& shared_records() const {
    return view.records->is_exportable() ? *view.records : shared_copy;
  }
  void share_records();

  optix::Program program;

  DeviceMemory queries_dev, results_dev;
  optix::LaunchBlocks<optix::RxLaunchParams> launches;
  DeviceMemory matches_dev, counter_dev;  // collect_rows: (query, row) pairs and their count
  RxBuildStats build_stats;
  RxProbeStats probe_stats;

  RxOptixImpl() = default;
  RxOptixImpl(const RxOptixImpl&) = delete;
  RxOptixImpl& operator=(const RxOptixImpl&) = delete;
  ~RxOptixImpl() {
    if (stream) cudaStreamSynchronize(stream);
  }

  void require_shared_records() const {
    if (!shared_records().is_exportable())
      throw Error(Errc::unsupported,
                  "the RX index's records are not shared with CUDA (was the Vulkan backend "
                  "forced, ContextOptions::backend or RAYDB_BACKEND=vulkan?); OptiX builds over "
                  "them");
  }

  // The records the programs read: the own copy, else the imported Vulkan buffer (none for an
  // empty index, whose launches trace nothing).
  void* records() const {
    if (own_records) return own_records.get();
    if (view.keys == 0 || !shared_records().is_exportable()) return nullptr;
    return cuda::device_ptr(*view.ctx, shared_records());
  }
  void copy_records();
  void build_gas();
  void build_ias();
  void make_pipeline();
  // One batch; `out` (may be null) receives one result per query; with `collect`, matching
  // (query, row) pairs go to `matches`, at most `capacity` of them, as RxIndex's probe.
  RxCollectResult probe(const QueryBatch& q, RxLookup* out, bool collect = false,
                        RxRowMatch* matches = nullptr, uint64_t capacity = 0);
};

void RxOptixImpl::share_records() {
  if (view.keys == 0 || view.records->is_exportable()) return;
  VkContext& c = *view.ctx;
  const uint64_t bytes = view.keys * kKeyRecordBytes;
  shared_copy = cuda::kernel_buffer(c, true, bytes, "RX records (shared copy for OptiX)");
  CommandBatch batch(c);
  VkBufferCopy region{0, 0, bytes};
  c.vk.vkCmdCopyBuffer(batch.cmd(), view.records->handle(), shared_copy.handle(), 1, &region);
  batch.submit_and_wait();
}

void RxOptixImpl::copy_records() {
  if (view.keys == 0 || !optix::use_own_memory(shared_records(), view.ctx->diagnostics)) return;
  require_shared_records();
  own_records = optix::own_copy(memory, cuda::device_ptr(*view.ctx, shared_records()),
                                view.keys * kKeyRecordBytes, "RX records (OptiX)");
}

void RxOptixImpl::build_gas() {
  VkContext& c = *view.ctx;
  cuda::runtime(c);  // makes the context's device current on this thread
  handle = 0;
  ias.reset();
  gas.reset();
  memory.peak = memory.now;
  const uint64_t baseline = memory.now;
  const uint64_t n = view.keys;
  const uint64_t records_bytes = n * kKeyRecordBytes;
  build_stats = {};
  build_stats.upload_ms = view.build_stats->upload_ms;  // the records are the Vulkan index's
  build_stats.sort_ms = view.build_stats->sort_ms;
  build_stats.unique_keys = view.unique;
  build_stats.primitives = n;
  build_stats.partitions = 1;
  if (n == 0) return;  // no GAS: the ray-generation program traces nothing (handle 0)

  if (!own_records) require_shared_records();
  unsigned max_prims = optix::max_primitives_per_gas(st->context);
  if (n > max_prims)
    throw Error(Errc::unsupported,
                fmt::format("{} keys are more primitives than one OptiX GAS holds ({}); raydb's "
                            "OptiX path builds one GAS",
                            n, max_prims));

  DeviceMemory prims(memory, n * (boxes ? sizeof(OptixAabb) : 9 * sizeof(float)),
                     "OptiX primitives");
  CUdeviceptr prim_address = prims.address();
  // VK_GEOMETRY_NO_DUPLICATE_ANY_HIT_INVOCATION_BIT_KHR, as the Vulkan build sets it.
  unsigned geometry_flags = variant.single_anyhit ? OPTIX_GEOMETRY_FLAG_REQUIRE_SINGLE_ANYHIT_CALL
                                                  : OPTIX_GEOMETRY_FLAG_NONE;
  OptixBuildInput input = boxes ? optix::aabb_input(&prim_address, n, &geometry_flags)
                                : optix::triangle_input(&prim_address, n, &geometry_flags);
  cuda::Timer timer(c, 2);
  uint32_t t0 = timer.mark();
  optix::launch_rx_primitives(records(), prims.get(), n, view.width == KeyWidth::bits64, boxes,
                              stream);
  cuda::check(cudaGetLastError(), "rx_primitives kernel launch");
  uint32_t t1 = timer.mark();
  // The primitives are freed before compaction, as the Vulkan build frees them.
  optix::Gas built = optix::build_gas(
      c, st->context, stream, memory, input,
      optix::build_flags(view.options->preference, view.options->compact), [&] { prims.reset(); });
  build_stats.convert_ms = timer.ms(t0, t1);
  build_stats.bvh_build_ms = built.build_ms;
  build_stats.compact_ms = built.compact_ms;
  build_stats.bvh_uncompacted_bytes = built.uncompacted_bytes;
  gas = std::move(built.memory);
  handle = built.handle;
  if (variant.two_level) build_ias();
  build_stats.blas_count = 1;
  build_stats.bvh_bytes = gas.bytes() + ias.bytes();
  build_stats.build_peak_bytes = records_bytes + (memory.peak - baseline);
  build_stats.resident_bytes = records_bytes + gas.bytes() + ias.bytes();
}

// The twin of the Vulkan index's TLAS (RxOptixOptions::two_level); its build time adds to
// bvh_build_ms as the TLAS's does in Vulkan.
void RxOptixImpl::build_ias() {
  optix::Gas built = optix::build_instance_over(*view.ctx, st->context, stream, memory, handle);
  build_stats.bvh_build_ms += built.build_ms;
  ias = std::move(built.memory);
  handle = built.handle;
}

void RxOptixImpl::make_pipeline() {
  OptixModuleCompileOptions module_options = optix::default_module_options(view.ctx->diagnostics);
  static constexpr OptixCompileOptimizationLevel kLevels[] = {
      OPTIX_COMPILE_OPTIMIZATION_LEVEL_0, OPTIX_COMPILE_OPTIMIZATION_LEVEL_1,
      OPTIX_COMPILE_OPTIMIZATION_LEVEL_2, OPTIX_COMPILE_OPTIMIZATION_LEVEL_3};
  module_options.optLevel =
      variant.opt_level < 0 ? OPTIX_COMPILE_OPTIMIZATION_DEFAULT : kLevels[variant.opt_level];
  OptixPipelineCompileOptions pipeline_options{};
  pipeline_options.usesMotionBlur = 0;
  pipeline_options.traversableGraphFlags =
      variant.two_level ? OPTIX_TRAVERSABLE_GRAPH_FLAG_ALLOW_SINGLE_LEVEL_INSTANCING
                        : OPTIX_TRAVERSABLE_GRAPH_FLAG_ALLOW_SINGLE_GAS;
  pipeline_options.numPayloadValues = 2;    // a pointer to the lookup's state, or the entry
  pipeline_options.numAttributeValues = 2;  // triangles' barycentrics (unused); boxes report none
  pipeline_options.exceptionFlags = OPTIX_EXCEPTION_FLAG_NONE;
  pipeline_options.pipelineLaunchParamsVariableName = "params";
  pipeline_options.usesPrimitiveTypeFlags =
      boxes ? OPTIX_PRIMITIVE_TYPE_FLAGS_CUSTOM : OPTIX_PRIMITIVE_TYPE_FLAGS_TRIANGLE;
  optix::ProgramEntries entries{"rx_programs",  "__raygen__rx",
                                "__miss__rx",   "__closesthit__rx",
                                "__anyhit__rx", boxes ? "__intersection__rx_box" : nullptr};
  program.create(st->context, module_options, pipeline_options, raydb_optix_rx_programs,
                 raydb_optix_rx_programs_size, entries, memory, view.ctx->diagnostics);
}

RxCollectResult RxOptixImpl::probe(const QueryBatch& q, RxLookup* out, bool collect,
                                   RxRowMatch* matches, uint64_t capacity) {
  VkContext& c = *view.ctx;
  cuda::runtime(c);
  probe_stats = {};
  validate_queries(q, view.width);
  probe_stats.rays = rx_ray_count(q, view.options->max_rays_per_range);
  RxCollectResult collected;
  if (q.count == 0) return collected;
  if (collect) {
    if (!counter_dev) counter_dev = DeviceMemory(memory, 4, "OptiX match counter");
    uint64_t mbytes = std::max<uint64_t>(capacity, 1) * sizeof(RxRowMatch);
    if (!matches_dev || matches_dev.bytes() < mbytes)
      matches_dev = DeviceMemory(memory, mbytes, "OptiX matches");
    cuda::check(cudaMemsetAsync(counter_dev.get(), 0, 4, stream), "cudaMemsetAsync");
  }
  if (!queries_dev || queries_dev.bytes() < q.bytes())
    queries_dev = DeviceMemory(memory, q.bytes(), "OptiX queries");
  uint64_t result_bytes = q.count * sizeof(RxLookup);
  if (!results_dev || results_dev.bytes() < result_bytes)
    results_dev = DeviceMemory(memory, result_bytes, "OptiX results");

  // One parameter block per launch, uploaded before the timed part.
  optix::RxLaunchParams p{};
  p.handle = handle;
  p.records = reinterpret_cast<uint64_t>(records());
  p.queries = queries_dev.address();
  p.results = results_dev.address();
  p.matches = collect ? matches_dev.address() : 0;
  p.match_count = collect ? counter_dev.address() : 0;
  p.match_capacity = static_cast<uint32_t>(std::min<uint64_t>(capacity, 0xFFFFFFFFu));
  p.flags =
      rx_probe_flags(view.width, q.ranges, view.unique, collect, view.method, view.opaque_hits);
  p.num_primitives = static_cast<uint32_t>(view.keys);
  launches.clear();
  launches.add(p, q.count, [](optix::RxLaunchParams& b, uint32_t first, uint32_t n) {
    b.query_offset = first;
    b.num_queries = n;
  });
  launches.upload(memory, stream);
  // Poisoned, as the Vulkan batch poisons its results: a lookup that wrote nothing shows.
  cuda::check(cudaMemsetAsync(results_dev.get(), 0xAB, result_bytes, stream), "cudaMemsetAsync");

  cuda::Timer timer(c, 4);
  uint32_t t0 = timer.mark();
  cuda::check(cudaMemcpyAsync(queries_dev.get(), q.data, q.bytes(), cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (queries)");
  uint32_t t1 = timer.mark();
  // 2D: rows of kLaunchRowWidth lookups (the programs index row * width + column).
  launches.launch(program, stream, "optixLaunch (rx)",
                  variant.launch_2d ? optix::kLaunchRowWidth : 0);
  uint32_t t2 = timer.mark();
  if (out)
    cuda::check(
        cudaMemcpyAsync(out, results_dev.get(), result_bytes, cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (results)");
  uint32_t t3 = timer.mark();
  cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (lookups)");
  probe_stats.upload_ms = timer.ms(t0, t1);
  probe_stats.probe_ms = timer.ms(t1, t2);
  probe_stats.download_ms = timer.ms(t2, t3);
  if (!collect) return collected;
  uint32_t total = 0;
  cuda::check(cudaMemcpy(&total, counter_dev.get(), 4, cudaMemcpyDeviceToHost),
              "cudaMemcpy (match count)");
  collected.total = total;
  collected.written = std::min<uint64_t>(total, capacity);
  if (collected.written)
    cuda::check(cudaMemcpy(matches, matches_dev.get(), collected.written * sizeof(RxRowMatch),
                           cudaMemcpyDeviceToHost),
                "cudaMemcpy (matches)");
  return collected;
}

}  // namespace raydb::detail

namespace raydb {

using detail::RxOptixImpl;

namespace {

void check_supported(const RxBuildOptions& o) {
  auto refuse = [](const std::string& what) {
    throw Error(Errc::unsupported, "the OptiX RX path does not build " + what);
  };
  if (o.partitions != 1)
    refuse(fmt::format("partitioned BVHs (partitions = {}); it builds one GAS", o.partitions));
  if (o.compress_duplicates) refuse("with compress_duplicates");
  if (o.allow_update) refuse("updatable BVHs (allow_update)");
  if (o.sort_probes) refuse("with sort_probes (lookups sorted on the GPU)");
}

}  // namespace

Result<RxOptixIndex> RxOptixIndex::build(const RxIndex& index, const RxOptixOptions& options) {
  return detail::capture([&]() -> RxOptixIndex {
    if (options.opt_level < -1 || options.opt_level > 3)
      throw Error(Errc::invalid_argument,
                  fmt::format("RxOptixOptions::opt_level {} is not -1 (default) or 0..3",
                              options.opt_level));
    auto impl = std::make_unique<RxOptixImpl>();
    impl->variant = options;
    impl->view = detail::rx_view(index);
    impl->ctx = impl->view.ctx;
    detail::VkContext& c = *impl->view.ctx;
    detail::optix::require(c);
    check_supported(*impl->view.options);
    impl->st = &detail::optix::state(c);
    impl->stream = detail::cuda::runtime(c).stream;
    impl->boxes = impl->view.options->primitive == Primitive::aabbs;
    impl->make_pipeline();
    impl->share_records();
    impl->copy_records();
    impl->build_gas();
    return RxOptixIndex(std::move(impl));
  });
}

Status RxOptixIndex::rebuild() {
  return detail::capture([&] { impl_->build_gas(); });
}

Status RxOptixIndex::lookup(KeySpan points, std::span<RxLookup> out) {
  return detail::lookup_into(*impl_, detail::QueryBatch::points(points), out);
}

Status RxOptixIndex::lookup_ranges(RangeSpan ranges, std::span<RxLookup> out) {
  return detail::lookup_into(*impl_, detail::QueryBatch::of(ranges), out);
}

Result<RxCollectResult> RxOptixIndex::collect_rows(KeySpan points, std::span<RxRowMatch> out) {
  return detail::capture([&] {
    return impl_->probe(detail::QueryBatch::points(points), nullptr, true, out.data(), out.size());
  });
}

Result<RxCollectResult> RxOptixIndex::collect_rows(RangeSpan ranges, std::span<RxRowMatch> out) {
  return detail::capture([&] {
    return impl_->probe(detail::QueryBatch::of(ranges), nullptr, true, out.data(), out.size());
  });
}

const RxBuildStats& RxOptixIndex::build_stats() const {
  return impl_->build_stats;
}
const RxProbeStats& RxOptixIndex::last_stats() const {
  return impl_->probe_stats;
}

RxOptixIndex::RxOptixIndex(std::unique_ptr<RxOptixImpl> impl) : impl_(std::move(impl)) {}
RxOptixIndex::RxOptixIndex(RxOptixIndex&&) noexcept = default;
RxOptixIndex& RxOptixIndex::operator=(RxOptixIndex&&) noexcept = default;
RxOptixIndex::~RxOptixIndex() = default;

}  // namespace raydb
