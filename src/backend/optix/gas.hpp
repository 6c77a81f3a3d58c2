// One OptiX GAS built the way raydb builds every BLAS: the build, then (with ALLOW_COMPACTION
// among the flags) a copy into a buffer of the compacted size, with the build's inputs freed
// first, as the Vulkan builds free theirs. Shared by the OptiX twins (OptiX builds only).
#pragma once

#include <cuda_runtime_api.h>
#include <optix_types.h>

#include <functional>

#include "backend/optix/device_memory.hpp"
#include "backend/optix/optix_internal.hpp"
#include "raydb/lookup.hpp"  // BuildPreference

namespace raydb::detail::optix {

struct Gas {
  DeviceMemory memory;  // the GAS (compacted where asked)
  OptixTraversableHandle handle = 0;
  double build_ms = 0, compact_ms = 0;  // CUDA events around optixAccelBuild / optixAccelCompact
  uint64_t uncompacted_bytes = 0;
};

// A raydb BVH's OptiX build flags: ALLOW_COMPACTION where asked, and the preference's flag.
unsigned build_flags(BuildPreference preference, bool compact);

// One geometry of `count` non-indexed float3 triangles (stride 12) at *vertices, one SBT record:
// the layout every raydb triangle BLAS has. `vertices` and `geometry_flags` must outlive the build.
OptixBuildInput triangle_input(const CUdeviceptr* vertices, uint64_t count,
                               const unsigned* geometry_flags);

// OPTIX_DEVICE_PROPERTY_LIMIT_MAX_PRIMITIVES_PER_GAS: raydb's OptiX twins build one GAS and refuse
// more primitives than that, naming the limit.
// One geometry of `count` OptixAabb boxes (stride 24) at *boxes, one SBT record: the layout of
// every raydb box BLAS. `boxes` and `geometry_flags` must outlive the build.
OptixBuildInput aabb_input(const CUdeviceptr* boxes, uint64_t count,
                           const unsigned* geometry_flags);

unsigned max_primitives_per_gas(OptixDeviceContext context);

// Builds over `input` on `stream`; `free_inputs` (may be empty) runs after the build and before
// compaction. Waits for the stream before returning.
Gas build_gas(VkContext& ctx, OptixDeviceContext context, cudaStream_t stream, MemoryTally& memory,
              const OptixBuildInput& input, unsigned build_flags,
              const std::function<void()>& free_inputs = {});

// An instance AS with one identity instance over `gas` (culling off, built for fast trace): the
// twin of the Vulkan paths' TLAS, for measuring what the second level costs. The traversable of
// a pipeline that uses it must allow single-level instancing.
Gas build_instance_over(VkContext& ctx, OptixDeviceContext context, cudaStream_t stream,
                        MemoryTally& memory, OptixTraversableHandle gas);

}  // namespace raydb::detail::optix
