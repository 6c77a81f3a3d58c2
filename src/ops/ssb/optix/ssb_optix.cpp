// SsbOptixTracer: the SSB engine's rays through OptiX. The engine's encoding goes straight from
// the host into cudaMalloc'd memory (no Vulkan buffer is involved: CUDA's reads of imported Vulkan
// memory are slow, docs/optix.md), one GAS over the same triangles with the Vulkan BLAS's flags,
// and a pipeline of the embedded ssb_programs.cu.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <optix.h>
#include <optix_stubs.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "backend/cuda/cuda.hpp"
#include "backend/cuda/runtime.hpp"
#include "backend/optix/device_memory.hpp"
#include "backend/optix/gas.hpp"
#include "backend/optix/optix_internal.hpp"
#include "backend/optix/program.hpp"
#include "ops/ssb/optix/ssb_launch.h"
#include "ops/ssb/ssb_optix_tracer.hpp"

extern const unsigned char raydb_optix_ssb_programs[];
extern const unsigned long long raydb_optix_ssb_programs_size;

namespace raydb::ssb::detail {

using raydb::detail::VkContext;
using raydb::detail::optix::DeviceMemory;
namespace optix = raydb::detail::optix;
namespace cuda = raydb::detail::cuda;

namespace {

class SsbOptixTracerImpl final : public SsbOptixTracer {
 public:
  SsbOptixTracerImpl(VkContext& c, BuildPreference preference) : ctx_(c), preference_(preference) {
    optix::require(c);
    // A diagnostic for the gap measurements (docs/optix.md, Diagnostics::optix_ssb_variant):
    // multi_anyhit drops REQUIRE_SINGLE_ANYHIT_CALL (exact all the same: the row flags count a row
    // once), pointer_payload passes the run through memory as the RX programs do.
    variant_ = c.diagnostics.optix_ssb_variant;
    st_ = &optix::state(c);
    stream_ = cuda::runtime(c).stream;  // makes the device current on this thread
    make_pipeline();
  }
  ~SsbOptixTracerImpl() override {
    if (stream_) cudaStreamSynchronize(stream_);
  }

  void build(const EncodedQuery& enc, const std::vector<uint32_t>& ray_words, uint32_t groups,
             SsbQueryStats& stats) override {
    cuda::runtime(ctx_);
    gas_ = {};
    const uint64_t n = enc.rows;
    const unsigned max_prims = optix::max_primitives_per_gas(st_->context);
    if (n > max_prims)
      throw Error(Errc::limit_exceeded,
                  fmt::format("{} lineorder rows are more triangles than one OptiX GAS holds ({})",
                              n, max_prims));
    cuda::Timer timer(ctx_, 2);
    uint32_t t0 = timer.mark();
    vertices_ = upload(enc.vertices, "ssb triangles (OptiX)");
    multipliers_ = upload(enc.multipliers, "ssb multipliers (OptiX)");
    side_values_ = upload(enc.side_values, "ssb side values (OptiX)");
    row_groups_ = upload(enc.row_groups, "ssb row groups (OptiX)");
    rays_ = upload(ray_words, "ssb rays (OptiX)");
    uint32_t t1 = timer.mark();
    cuda::check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (ssb upload)");
    stats.upload_ms = timer.ms(t0, t1);
    has_multipliers_ = !enc.multipliers.empty();
    has_side_values_ = !enc.side_values.empty();
    has_row_groups_ = !enc.row_groups.empty();
    ray_x_ = enc.ray_x;
    ray_y_ = enc.ray_y;
    ray_count_ = ray_words.size() / 2;
    groups_ = groups;

    // The Vulkan BLAS: non-indexed float3 triangles, any-hit called once per triangle and ray
    // (NO_DUPLICATE_ANY_HIT_INVOCATION's twin), fast trace, compacted.
    CUdeviceptr vertex_address = vertices_.address();
    unsigned geometry_flags = variant_ == OptixSsbVariant::multi_anyhit
                                  ? OPTIX_GEOMETRY_FLAG_NONE
                                  : OPTIX_GEOMETRY_FLAG_REQUIRE_SINGLE_ANYHIT_CALL;
    OptixBuildInput input = optix::triangle_input(&vertex_address, n, &geometry_flags);
    gas_ = optix::build_gas(ctx_, st_->context, stream_, memory_, input,
                            optix::build_flags(preference_, /*compact=*/true));
    stats.bvh_build_ms = gas_.build_ms + gas_.compact_ms;
    if (!enc.hits_read_vertices) vertices_.reset();  // the GAS holds all the geometry now
    stats.bvh_bytes = gas_.memory.bytes();

    flags_ = DeviceMemory(memory_, std::max<uint64_t>((n + 31) / 32 * 4, 16), "ssb row flags");
    sums_ = DeviceMemory(memory_, uint64_t{groups} * 8, "ssb group sums");
    counts_ = DeviceMemory(memory_, uint64_t{groups} * 4, "ssb group counts");
  }

  void trace(bool per_row_atomics, std::vector<int64_t>& sums, std::vector<uint32_t>& counts,
             SsbQueryStats& stats) override {
    cuda::runtime(ctx_);
    optix::SsbLaunchParams p{};
    p.handle = gas_.handle;
    p.vertices = vertices_.address();  // 0 once reset
    p.rays = rays_.address();
    p.row_flags = flags_.address();
    p.sums = sums_.address();
    p.counts = counts_.address();
    p.multipliers = has_multipliers_ ? multipliers_.address() : 0;
    p.side_values = has_side_values_ ? side_values_.address() : 0;
    p.row_groups = has_row_groups_ ? row_groups_.address() : 0;
    p.ray_x = ray_x_;
    p.ray_y = ray_y_;
    p.per_row_atomics = per_row_atomics ? 1 : 0;
    p.pointer_payload = variant_ == OptixSsbVariant::pointer_payload ? 1 : 0;
    launches_.clear();
    launches_.add(p, ray_count_, [](optix::SsbLaunchParams& b, uint32_t first, uint32_t n) {
      b.ray_offset = first;
      b.num_rays = n;
    });
    launches_.upload(memory_, stream_);
    cuda::Timer timer(ctx_, 3);
    uint32_t t0 = timer.mark();
    cuda::check(cudaMemsetAsync(flags_.get(), 0, flags_.bytes(), stream_), "cudaMemsetAsync");
    cuda::check(cudaMemsetAsync(sums_.get(), 0, sums_.bytes(), stream_), "cudaMemsetAsync");
    cuda::check(cudaMemsetAsync(counts_.get(), 0, counts_.bytes(), stream_), "cudaMemsetAsync");
    uint32_t t_cleared = timer.mark();
    launches_.launch(program_, stream_, "optixLaunch (ssb)");
    uint32_t t1 = timer.mark();
    sums.assign(groups_, 0);
    counts.assign(groups_, 0);
    cuda::check(cudaMemcpyAsync(sums.data(), sums_.get(), uint64_t{groups_} * 8,
                                cudaMemcpyDeviceToHost, stream_),
                "cudaMemcpyAsync (group sums)");
    cuda::check(cudaMemcpyAsync(counts.data(), counts_.get(), uint64_t{groups_} * 4,
                                cudaMemcpyDeviceToHost, stream_),
                "cudaMemcpyAsync (group counts)");
    cuda::check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (ssb trace)");
    stats.trace_ms = timer.ms(t0, t1);
    stats.clear_ms = timer.ms(t0, t_cleared);
  }

  bool built() const override { return gas_.handle != 0; }

 private:
  template <class T, class Alloc>
  DeviceMemory upload(const std::vector<T, Alloc>& host, const char* what) {
    DeviceMemory m(memory_, host.size() * sizeof(T), what);
    if (!host.empty())
      cuda::check(cudaMemcpyAsync(m.get(), host.data(), host.size() * sizeof(T),
                                  cudaMemcpyHostToDevice, stream_),
                  fmt::format("cudaMemcpyAsync ({})", what).c_str());
    return m;
  }

  void make_pipeline() {
    OptixModuleCompileOptions module_options = optix::default_module_options(ctx_.diagnostics);
    OptixPipelineCompileOptions pipeline_options{};
    pipeline_options.usesMotionBlur = 0;
    pipeline_options.traversableGraphFlags = OPTIX_TRAVERSABLE_GRAPH_FLAG_ALLOW_SINGLE_GAS;
    pipeline_options.numPayloadValues = 4;    // the ray's run: group, count, sum (two words)
    pipeline_options.numAttributeValues = 2;  // triangles' barycentrics (unused)
    pipeline_options.exceptionFlags = OPTIX_EXCEPTION_FLAG_NONE;
    pipeline_options.pipelineLaunchParamsVariableName = "params";
    pipeline_options.usesPrimitiveTypeFlags = OPTIX_PRIMITIVE_TYPE_FLAGS_TRIANGLE;
    optix::ProgramEntries entries{"ssb_programs", "__raygen__ssb", "__miss__ssb", nullptr,
                                  "__anyhit__ssb"};
    program_.create(st_->context, module_options, pipeline_options, raydb_optix_ssb_programs,
                    raydb_optix_ssb_programs_size, entries, memory_, ctx_.diagnostics);
  }

  VkContext& ctx_;
  optix::State* st_ = nullptr;
  cudaStream_t stream_ = nullptr;
  optix::MemoryTally memory_;
  optix::Program program_;
  optix::Gas gas_;
  DeviceMemory vertices_, multipliers_, side_values_, row_groups_, rays_, flags_, sums_, counts_;
  optix::LaunchBlocks<optix::SsbLaunchParams> launches_;
  bool has_multipliers_ = false, has_side_values_ = false, has_row_groups_ = false;
  float ray_x_ = 0, ray_y_ = 0;
  uint64_t ray_count_ = 0;
  uint32_t groups_ = 0;
  BuildPreference preference_;
  OptixSsbVariant variant_ = OptixSsbVariant::standard;
};

}  // namespace

std::unique_ptr<SsbOptixTracer> SsbOptixTracer::create(VkContext& ctx, BuildPreference preference) {
  return std::make_unique<SsbOptixTracerImpl>(ctx, preference);
}

}  // namespace raydb::ssb::detail
