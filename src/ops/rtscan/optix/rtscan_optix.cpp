// RtScanOptix: RTScan's Matrix RT Refine through OptiX. Per column group one GAS over the cubes
// (rtscan, rtc3, rtc1) or triangles (rtindex) of the Vulkan build's own kernels (written into
// memory shared with CUDA), a pipeline of the embedded rtscan_programs.cu, and per refine box one
// launch of its lattice, the twin of rtscan_refine.rgen. Rewrite, sieve and merge are the
// table's (Vulkan).
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <optix.h>
#include <optix_stubs.h>

#include <algorithm>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "backend/cuda/runtime.hpp"
#include "backend/optix/device_memory.hpp"
#include "backend/optix/gas.hpp"
#include "backend/optix/optix_internal.hpp"
#include "backend/optix/program.hpp"
#include "backend/vk/commands.hpp"
#include "common/capture.hpp"
#include "ops/rtscan/optix/rtscan_launch.h"
#include "ops/rtscan/optix/rtscan_optix.hpp"
#include "ops/rtscan/rtscan_impl.hpp"

extern const unsigned char raydb_optix_rtscan_programs[];
extern const unsigned long long raydb_optix_rtscan_programs_size;

namespace raydb::detail {

using optix::DeviceMemory;
using optix::MemoryTally;

struct RtScanOptixImpl {
  RtScanImpl* table = nullptr;
  optix::State* st = nullptr;
  cudaStream_t stream = nullptr;
  MemoryTally memory;
  std::vector<Buffer> keys;  // per column: the table's keys, copied into memory shared with CUDA
  // The keys again in cudaMalloc'd memory, which the programs read: CUDA's random reads of
  // imported Vulkan memory were what made the OptiX refine slow (on the H100 at 1e8 rows,
  // selectivity 0.9: 14.1 ms over the imported keys, 0.71 ms over these; docs/optix.md).
  // Diagnostics::cuda_own_memory off keeps the imported keys, to measure that again.
  std::vector<DeviceMemory> own_keys;
  std::vector<optix::Gas> gas;  // per column group

  optix::Program program;
  optix::LaunchBlocks<optix::RtScanLaunchParams> launches;
  RtScanOptixBuildStats build_stats;
  RtScanQueryStats query_stats;

  RtScanOptixImpl() = default;
  RtScanOptixImpl(const RtScanOptixImpl&) = delete;
  RtScanOptixImpl& operator=(const RtScanOptixImpl&) = delete;
  ~RtScanOptixImpl() {
    if (stream) cudaStreamSynchronize(stream);
  }

  bool triangles() const { return table->options.mode == RtScanMode::rtindex; }
  void copy_keys();
  void build_gas(size_t group);
  void make_pipeline();
  double refine(const std::vector<RtScanRefineLaunch>& refines);
};

void RtScanOptixImpl::copy_keys() {
  VkContext& c = *table->ctx;
  CommandBatch cb(c);
  GpuTimer timer(c, 2);
  timer.reset(cb.cmd());
  uint32_t t0 = timer.mark(cb.cmd());
  for (const Buffer& k : table->keys) {
    uint64_t bytes = std::max<uint64_t>(table->n * 4, 4);
    keys.push_back(cuda::kernel_buffer(c, true, bytes, "rtscan keys (OptiX)"));
    VkBufferCopy region{0, 0, bytes};
    c.vk.vkCmdCopyBuffer(cb.cmd(), k.handle(), keys.back().handle(), 1, &region);
    build_stats.key_bytes += bytes;
  }
  uint32_t t1 = timer.mark(cb.cmd());
  cb.submit_and_wait();
  build_stats.copy_ms = timer.ms(t0, t1);
  if (keys.empty() || !optix::use_own_memory(keys.front(), c.diagnostics)) return;
  for (const Buffer& k : keys)
    own_keys.push_back(
        optix::own_copy(memory, cuda::device_ptr(c, k), k.size(), "rtscan keys (OptiX)"));
  keys.clear();  // the imported copies only carried the keys across
}

void RtScanOptixImpl::build_gas(size_t gi) {
  VkContext& c = *table->ctx;
  const RtScanImpl::Group& g = table->groups[gi];
  const uint64_t n = table->n;
  unsigned max_prims = optix::max_primitives_per_gas(st->context);
  const bool tri = triangles();
  if (n > max_prims)
    throw Error(Errc::unsupported, fmt::format("{} rows are more {} than one OptiX GAS holds ({})",
                                               n, tri ? "triangles" : "cubes", max_prims));

  // The primitives: the Vulkan build's kernel and push constants, into a buffer CUDA maps.
  Buffer prims = cuda::kernel_buffer(c, true, n * (tri ? 36 : sizeof(OptixAabb)),
                                     tri ? "rtscan triangles (OptiX)" : "rtscan cubes (OptiX)");
  {
    CommandBatch cb(c);
    GpuTimer timer(c, 2);
    timer.reset(cb.cmd());
    uint32_t t0 = timer.mark(cb.cmd());
    RtScanCubeParams p{{0, 0, 0},
                       prims.address(),
                       static_cast<uint32_t>(n),
                       static_cast<float>(tri ? table->triangle_half : g.lattice.half_width)};
    for (size_t d = 0; d < g.columns.size(); ++d) p.keys[d] = table->keys[g.columns[d]].address();
    kernel(c, tri ? ShaderId::rtscan_triangles : ShaderId::rtscan_cubes, sizeof p)
        .dispatch(cb.cmd(), &p, n);
    uint32_t t1 = timer.mark(cb.cmd());
    cb.submit_and_wait();
    build_stats.cubes_ms += timer.ms(t0, t1);
  }
  CUdeviceptr prim_address = reinterpret_cast<CUdeviceptr>(cuda::device_ptr(c, prims));

  // The Vulkan geometry flags' twins: cubes VK_GEOMETRY_OPAQUE_BIT_KHR (the intersection program
  // reports nothing anyway); triangles NO_DUPLICATE_ANY_HIT_INVOCATION, so that every triangle a
  // ray crosses reaches the any-hit program once.
  unsigned geometry_flags =
      tri ? OPTIX_GEOMETRY_FLAG_REQUIRE_SINGLE_ANYHIT_CALL : OPTIX_GEOMETRY_FLAG_DISABLE_ANYHIT;
  OptixBuildInput input = tri ? optix::triangle_input(&prim_address, n, &geometry_flags)
                              : optix::aabb_input(&prim_address, n, &geometry_flags);
  // The Vulkan BLAS's PREFER_FAST_TRACE | ALLOW_COMPACTION, compacted as it is; the primitives
  // are freed before compaction, as the Vulkan build frees its own.
  optix::Gas& out = gas[gi];
  out = optix::build_gas(c, st->context, stream, memory, input,
                         OPTIX_BUILD_FLAG_PREFER_FAST_TRACE | OPTIX_BUILD_FLAG_ALLOW_COMPACTION,
                         [&] { prims.reset(); });
  build_stats.build_ms += out.build_ms;
  build_stats.compact_ms += out.compact_ms;
  build_stats.bvh_uncompacted_bytes += out.uncompacted_bytes;
  build_stats.bvh_bytes += out.memory.bytes();
}

void RtScanOptixImpl::make_pipeline() {
  OptixModuleCompileOptions module_options = optix::default_module_options(table->ctx->diagnostics);
  OptixPipelineCompileOptions pipeline_options{};
  pipeline_options.usesMotionBlur = 0;
  pipeline_options.traversableGraphFlags = OPTIX_TRAVERSABLE_GRAPH_FLAG_ALLOW_SINGLE_GAS;
  pipeline_options.numPayloadValues = 0;
  pipeline_options.numAttributeValues = 2;  // OptiX's minimum; nothing is reported
  pipeline_options.exceptionFlags = OPTIX_EXCEPTION_FLAG_NONE;
  pipeline_options.pipelineLaunchParamsVariableName = "params";
  // Cubes: the intersection program re-checks; rtindex's triangles: the any-hit program.
  pipeline_options.usesPrimitiveTypeFlags =
      triangles() ? OPTIX_PRIMITIVE_TYPE_FLAGS_TRIANGLE : OPTIX_PRIMITIVE_TYPE_FLAGS_CUSTOM;
  optix::ProgramEntries entries{"rtscan_programs", "__raygen__rtscan", "__miss__rtscan"};
  if (triangles())
    entries.any_hit = "__anyhit__rtscan";
  else
    entries.intersection = "__intersection__rtscan";
  program.create(st->context, module_options, pipeline_options, raydb_optix_rtscan_programs,
                 raydb_optix_rtscan_programs_size, entries, memory, table->ctx->diagnostics);
}

// The table's launches, each sliced to OptiX's launch limit, with CUDA pointers for the Vulkan
// addresses. The stream already waits for the sieve (the table called cuda_after).
double RtScanOptixImpl::refine(const std::vector<RtScanRefineLaunch>& refines) {
  VkContext& c = *table->ctx;
  // The bitmaps and counters stay the imported Vulkan buffers: staging them in cudaMalloc'd
  // memory (copied in and out around the launches) made the refine 0.01-0.04 ms slower on the
  // H100 and nothing faster (label optix-rtscan-staged-bitmap, docs/optix.md).
  auto address = [&](const Buffer* b) -> uint64_t {
    return b ? reinterpret_cast<uint64_t>(cuda::device_ptr(c, *b)) : 0;
  };
  launches.clear();
  for (const RtScanRefineLaunch& l : refines) {
    const RtScanRefineParams& v = l.params;
    const auto& columns = table->groups[l.group].columns;
    optix::RtScanLaunchParams p{};
    p.handle = gas[l.group].handle;
    for (size_t d = 0; d < columns.size(); ++d)
      p.keys[d] = own_keys.empty()
                      ? reinterpret_cast<uint64_t>(cuda::device_ptr(c, keys[columns[d]]))
                      : own_keys[columns[d]].address();
    p.bitmap = address(l.bitmap);
    p.counter = address(l.counter);
    for (int d = 0; d < 3; ++d) p.lo[d] = v.lo[d], p.hi[d] = v.hi[d], p.origin[d] = v.origin[d];
    p.n_cross0 = v.n_cross0;
    p.n_cross1 = v.n_cross1;
    p.n_segments = v.n_segments;
    p.axis = v.axis;
    p.cross0 = v.cross0;
    p.cross1 = v.cross1;
    p.interval = v.interval;
    p.segment = v.segment;
    p.stride = v.stride;
    launches.add(p, l.rays, [](optix::RtScanLaunchParams& b, uint32_t first, uint32_t n) {
      b.ray_offset = first;
      b.num_rays = n;
    });
  }
  if (launches.empty()) return 0;
  launches.upload(memory, stream);
  cuda::Timer timer(c, 2);
  uint32_t t0 = timer.mark();
  launches.launch(program, stream, "optixLaunch (rtscan)");
  uint32_t t1 = timer.mark();
  cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (rtscan refine)");
  return timer.ms(t0, t1);
}

}  // namespace raydb::detail

namespace raydb {

using detail::RtScanOptixImpl;

Result<RtScanOptix> RtScanOptix::build(RtScanTable& table) {
  return detail::capture([&]() -> RtScanOptix {
    auto impl = std::make_unique<RtScanOptixImpl>();
    impl->table = &detail::rtscan_impl(table);
    detail::VkContext& c = *impl->table->ctx;
    detail::optix::require(c);
    impl->st = &detail::optix::state(c);
    impl->stream = detail::cuda::runtime(c).stream;  // makes the device current on this thread
    impl->make_pipeline();
    if (impl->table->n > 0) {
      impl->copy_keys();
      impl->gas.resize(impl->table->groups.size());
      for (size_t g = 0; g < impl->gas.size(); ++g) impl->build_gas(g);
    }
    return RtScanOptix(std::move(impl));
  });
}

Result<Bitmap> RtScanOptix::select(std::span<const Predicate> predicates) {
  return detail::capture([&] {
    detail::cuda::runtime(*impl_->table->ctx);
    detail::RtScanExternalRefine refine = [this](const auto& launches) {
      return impl_->refine(launches);
    };
    Bitmap out(impl_->table->select(predicates, &refine));
    impl_->query_stats = impl_->table->query_stats;
    return out;
  });
}

const RtScanOptixBuildStats& RtScanOptix::build_stats() const {
  return impl_->build_stats;
}
const RtScanQueryStats& RtScanOptix::last_stats() const {
  return impl_->query_stats;
}

RtScanOptix::RtScanOptix(std::unique_ptr<RtScanOptixImpl> impl) : impl_(std::move(impl)) {}
RtScanOptix::RtScanOptix(RtScanOptix&&) noexcept = default;
RtScanOptix& RtScanOptix::operator=(RtScanOptix&&) noexcept = default;
RtScanOptix::~RtScanOptix() = default;

}  // namespace raydb
