// CgrxOptixIndex: the cgRX index through OptiX. Lays out the Vulkan index's representatives with
// the same host code (cgrx_scene), builds one GAS over those triangles with the Vulkan BLAS's
// flags, and launches one ray-generation thread per lookup (cgrx_programs.cu), the twin of
// cgrx_probe.rgen. The programs read the twin's own copy of the records (CUDA's reads of imported
// Vulkan memory are slow: docs/optix.md) and write results to CUDA-owned memory.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <optix.h>
#include <optix_stubs.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "backend/cuda/runtime.hpp"
#include "backend/optix/device_memory.hpp"
#include "backend/optix/gas.hpp"
#include "backend/optix/optix_internal.hpp"
#include "backend/optix/program.hpp"
#include "cgrx/cgrx_geometry.h"
#include "common/capture.hpp"
#include "ops/cgrx/cgrx_layout.hpp"
#include "ops/cgrx/cgrx_runs.hpp"
#include "ops/cgrx/cgrx_view.hpp"
#include "ops/cgrx/optix/cgrx_launch.h"
#include "ops/cgrx/optix/cgrx_optix.hpp"
#include "ops/common/key_records.hpp"
#include "ops/common/lookup_batch.hpp"

extern const unsigned char raydb_optix_cgrx_programs[];
extern const unsigned long long raydb_optix_cgrx_programs_size;

namespace raydb::detail {

using optix::DeviceMemory;
using optix::MemoryTally;

struct CgrxOptixImpl {
  const CgrxIndex* index = nullptr;  // for the representatives of a (re)build
  CgrxIndexView view;
  std::shared_ptr<VkContext> ctx;  // view.ctx: the context whose lock lookup_into takes
  optix::State* st = nullptr;
  cudaStream_t stream = nullptr;
  MemoryTally memory;
  DeviceMemory records;  // the index's records, copied once into cudaMalloc'd memory
  DeviceMemory buckets;  // per primitive: the bucket its hit names
  optix::Gas gas;
  // A diagnostic (docs/optix.md, "cgRX through OptiX"): Diagnostics::optix_cgrx_ias traces through
  // an instance AS over the GAS, the hierarchy the Vulkan index has (a TLAS over its BLAS).
  bool two_level = false;
  optix::Gas ias;
  optix::Program program;

  DeviceMemory queries_dev, results_dev, counters_dev;
  optix::LaunchBlocks<optix::CgrxLaunchParams> launches;
  CgrxBuildStats build_stats;
  RxProbeStats probe_stats;
  uint64_t fallbacks = 0;
  RxDiagnostic diagnostic = RxDiagnostic::none;  // set_diagnostic: the Vulkan index's flags
  bool run_starts = false;                       // cgrx_lookup_runs: first_row = run's record

  CgrxOptixImpl() = default;
  CgrxOptixImpl(const CgrxOptixImpl&) = delete;
  CgrxOptixImpl& operator=(const CgrxOptixImpl&) = delete;
  ~CgrxOptixImpl() {
    if (stream) cudaStreamSynchronize(stream);
  }

  void copy_records();
  void build_gas();
  void make_pipeline();
  void probe(const QueryBatch& q, RxLookup* out);
};

void CgrxOptixImpl::copy_records() {
  if (view.keys == 0) return;
  if (!view.records->is_exportable())
    throw Error(Errc::unsupported,
                "the cgRX index's records are not shared with CUDA (was the Vulkan backend "
                "forced, ContextOptions::backend or RAYDB_BACKEND=vulkan?); OptiX reads them");
  records = optix::own_copy(memory, cuda::device_ptr(*view.ctx, *view.records),
                            view.keys * kKeyRecordBytes, "cgRX records (OptiX)");
}

void CgrxOptixImpl::build_gas() {
  VkContext& c = *view.ctx;
  cuda::runtime(c);  // makes the context's device current on this thread
  ias = {};
  gas = {};
  buckets.reset();
  memory.peak = memory.now;
  const uint64_t baseline = memory.now - records.bytes();  // the records count in the peak
  build_stats = {};
  build_stats.upload_ms = view.build_stats->upload_ms;  // the records are the Vulkan index's
  build_stats.sort_ms = view.build_stats->sort_ms;
  build_stats.unique_keys = view.build_stats->unique_keys;
  build_stats.buckets = view.buckets;
  if (view.keys == 0) return;  // no GAS: every lookup misses without a launch, as in Vulkan

  // The same triangles and markers as the Vulkan BLAS: the same representatives through the same
  // layout function.
  auto t0 = std::chrono::steady_clock::now();
  CgrxScene scene = cgrx_scene(cgrx_representatives(*index));
  const uint64_t np = scene.primitives();
  unsigned max_prims = 0;
  optix::check(
      optixDeviceContextGetProperty(st->context, OPTIX_DEVICE_PROPERTY_LIMIT_MAX_PRIMITIVES_PER_GAS,
                                    &max_prims, sizeof max_prims),
      "optixDeviceContextGetProperty (max primitives per GAS)");
  if (np > max_prims)
    throw Error(Errc::unsupported,
                fmt::format("{} keys in buckets of {} need {} triangles, more than one OptiX GAS "
                            "holds ({}); use larger buckets",
                            view.keys, view.options->bucket_size, np, max_prims));
  DeviceMemory triangles(memory, scene.triangles.size() * sizeof(float), "cgRX triangles (OptiX)");
  buckets = DeviceMemory(memory, np * 4, "cgRX primitive buckets (OptiX)");
  cuda::check(cudaMemcpy(triangles.get(), scene.triangles.data(), triangles.bytes(),
                         cudaMemcpyHostToDevice),
              "cudaMemcpy (cgRX triangles)");
  cuda::check(cudaMemcpy(buckets.get(), scene.bucket.data(), np * 4, cudaMemcpyHostToDevice),
              "cudaMemcpy (cgRX primitive buckets)");
  build_stats.host_layout_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  build_stats.representatives = scene.representatives;
  build_stats.row_markers = scene.row_markers;
  build_stats.plane_markers = scene.plane_markers;
  build_stats.ray_window = view.options->window_first_ray ? scene.ray_window : 0u;

  // The Vulkan BLAS: non-indexed float3 triangles, opaque (DISABLE_ANYHIT is OptiX's
  // VK_GEOMETRY_OPAQUE_BIT_KHR), compaction and build preference as asked.
  CUdeviceptr vertex_address = triangles.address();
  unsigned geometry_flags = OPTIX_GEOMETRY_FLAG_DISABLE_ANYHIT;
  OptixBuildInput input = optix::triangle_input(&vertex_address, np, &geometry_flags);
  unsigned flags = optix::build_flags(view.options->preference, view.options->compact);
  gas = optix::build_gas(c, st->context, stream, memory, input, flags, [&] { triangles.reset(); });
  build_stats.bvh_build_ms = gas.build_ms;
  build_stats.compact_ms = gas.compact_ms;
  build_stats.bvh_bytes = gas.memory.bytes();
  build_stats.bvh_uncompacted_bytes = gas.uncompacted_bytes;
  build_stats.build_peak_bytes = memory.peak - baseline;
  if (two_level) {
    ias = optix::build_instance_over(c, st->context, stream, memory, gas.handle);
    build_stats.bvh_build_ms += ias.build_ms;
    build_stats.bvh_bytes += ias.memory.bytes();
  }
  build_stats.resident_bytes = records.bytes() + buckets.bytes() + build_stats.bvh_bytes;
}

void CgrxOptixImpl::make_pipeline() {
  OptixModuleCompileOptions module_options = optix::default_module_options(view.ctx->diagnostics);
  OptixPipelineCompileOptions pipeline_options{};
  pipeline_options.usesMotionBlur = 0;
  pipeline_options.traversableGraphFlags =
      two_level ? OPTIX_TRAVERSABLE_GRAPH_FLAG_ALLOW_SINGLE_LEVEL_INSTANCING
                : OPTIX_TRAVERSABLE_GRAPH_FLAG_ALLOW_SINGLE_GAS;
  pipeline_options.numPayloadValues = 1;    // the primitive of the closest hit
  pipeline_options.numAttributeValues = 2;  // triangles' barycentrics (unused)
  pipeline_options.exceptionFlags = OPTIX_EXCEPTION_FLAG_NONE;
  pipeline_options.pipelineLaunchParamsVariableName = "params";
  pipeline_options.usesPrimitiveTypeFlags = OPTIX_PRIMITIVE_TYPE_FLAGS_TRIANGLE;
  optix::ProgramEntries entries{"cgrx_programs", "__raygen__cgrx", "__miss__cgrx",
                                "__closesthit__cgrx"};
  program.create(st->context, module_options, pipeline_options, raydb_optix_cgrx_programs,
                 raydb_optix_cgrx_programs_size, entries, memory, view.ctx->diagnostics);
}

void CgrxOptixImpl::probe(const QueryBatch& q, RxLookup* out) {
  VkContext& c = *view.ctx;
  cuda::runtime(c);
  probe_stats = {};
  fallbacks = 0;
  validate_queries(q, view.width);
  if (q.count == 0) return;
  if (view.keys == 0) {  // nothing to find: every lookup misses, no rays needed (as Vulkan)
    std::fill(out, out + q.count, RxLookup{});
    return;
  }
  if (!queries_dev || queries_dev.bytes() < q.bytes())
    queries_dev = DeviceMemory(memory, q.bytes(), "OptiX queries");
  uint64_t result_bytes = q.count * sizeof(RxLookup);
  if (!results_dev || results_dev.bytes() < result_bytes)
    results_dev = DeviceMemory(memory, result_bytes, "OptiX results");
  if (!counters_dev) counters_dev = DeviceMemory(memory, 8, "cgRX counters (OptiX)");

  // One parameter block per launch, uploaded before the timed part.
  optix::CgrxLaunchParams p{};
  p.handle = two_level ? ias.handle : gas.handle;
  p.records = records.address();
  p.queries = queries_dev.address();
  p.results = results_dev.address();
  p.buckets = buckets.address();
  p.counters = counters_dev.address();
  p.flags =
      (view.width == KeyWidth::bits64 ? CGRX_FLAG_KEY64 : 0u) | (q.ranges ? CGRX_FLAG_RANGES : 0u);
  if (diagnostic == RxDiagnostic::no_trace) p.flags |= CGRX_FLAG_DIAG_NO_TRACE;
  if (diagnostic == RxDiagnostic::trace_only) p.flags |= CGRX_FLAG_DIAG_TRACE_ONLY;
  if (run_starts) p.flags |= CGRX_FLAG_RUN_START;
  p.bucket_shift = view.bucket_shift;
  p.num_records = static_cast<uint32_t>(view.keys);
  p.num_buckets = static_cast<uint32_t>(view.buckets);
  p.ray_window = build_stats.ray_window;
  launches.clear();
  launches.add(p, q.count, [](optix::CgrxLaunchParams& b, uint32_t first, uint32_t n) {
    b.query_offset = first;
    b.num_queries = n;
  });
  launches.upload(memory, stream);
  cuda::check(cudaMemsetAsync(counters_dev.get(), 0, 8, stream), "cudaMemsetAsync (counters)");
  // Poisoned, as the Vulkan batch poisons its results: a lookup that wrote nothing shows.
  cuda::check(cudaMemsetAsync(results_dev.get(), 0xAB, result_bytes, stream), "cudaMemsetAsync");

  cuda::Timer timer(c, 4);
  uint32_t t0 = timer.mark();
  cuda::check(cudaMemcpyAsync(queries_dev.get(), q.data, q.bytes(), cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (queries)");
  uint32_t t1 = timer.mark();
  launches.launch(program, stream, "optixLaunch (cgrx)");
  uint32_t t2 = timer.mark();
  cuda::check(cudaMemcpyAsync(out, results_dev.get(), result_bytes, cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync (results)");
  uint32_t t3 = timer.mark();
  uint32_t counts[2] = {0, 0};
  cuda::check(
      cudaMemcpyAsync(counts, counters_dev.get(), sizeof counts, cudaMemcpyDeviceToHost, stream),
      "cudaMemcpyAsync (counters)");
  cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (lookups)");
  probe_stats.upload_ms = timer.ms(t0, t1);
  probe_stats.probe_ms = timer.ms(t1, t2);
  probe_stats.download_ms = timer.ms(t2, t3);
  probe_stats.rays = q.count + counts[0];
  fallbacks = counts[1];
}

Status cgrx_lookup_runs(CgrxOptixIndex& index, KeySpan points, std::span<RxLookup> out) {
  return lookup_run_starts(*index.impl_, points, out);
}

}  // namespace raydb::detail

namespace raydb {

using detail::CgrxOptixImpl;

Result<CgrxOptixIndex> CgrxOptixIndex::build(const CgrxIndex& index) {
  return detail::capture([&]() -> CgrxOptixIndex {
    auto impl = std::make_unique<CgrxOptixImpl>();
    impl->index = &index;
    impl->view = detail::cgrx_view(index);
    impl->ctx = impl->view.ctx;
    detail::VkContext& c = *impl->view.ctx;
    detail::optix::require(c);
    impl->st = &detail::optix::state(c);
    impl->stream = detail::cuda::runtime(c).stream;
    impl->two_level = c.diagnostics.optix_cgrx_ias;
    impl->make_pipeline();
    impl->copy_records();
    impl->build_gas();
    return CgrxOptixIndex(std::move(impl));
  });
}

Status CgrxOptixIndex::rebuild() {
  return detail::capture([&] { impl_->build_gas(); });
}

void CgrxOptixIndex::set_diagnostic(RxDiagnostic diagnostic) {
  impl_->diagnostic = diagnostic;
}

Status CgrxOptixIndex::lookup(KeySpan points, std::span<RxLookup> out) {
  return detail::lookup_into(*impl_, detail::QueryBatch::points(points), out);
}

Status CgrxOptixIndex::lookup_ranges(RangeSpan ranges, std::span<RxLookup> out) {
  return detail::lookup_into(*impl_, detail::QueryBatch::of(ranges), out);
}

const CgrxBuildStats& CgrxOptixIndex::build_stats() const {
  return impl_->build_stats;
}
const RxProbeStats& CgrxOptixIndex::last_stats() const {
  return impl_->probe_stats;
}
uint64_t CgrxOptixIndex::last_fallbacks() const {
  return impl_->fallbacks;
}

CgrxOptixIndex::CgrxOptixIndex(std::unique_ptr<CgrxOptixImpl> impl) : impl_(std::move(impl)) {}
CgrxOptixIndex::CgrxOptixIndex(CgrxOptixIndex&&) noexcept = default;
CgrxOptixIndex& CgrxOptixIndex::operator=(CgrxOptixIndex&&) noexcept = default;
CgrxOptixIndex::~CgrxOptixIndex() = default;

}  // namespace raydb
