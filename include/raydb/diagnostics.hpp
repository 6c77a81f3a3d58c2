// raydb::Diagnostics: experiment switches, a field of ContextOptions. Each default is what raydb
// ships; the other values exist to measure a gap between Vulkan, OptiX and CUDA again
// (docs/optix.md, docs/baselines.md). The library never reads them from the environment: the
// raydb CLI (and so the bench/gpu scripts) fills them from the variables of the same name
// (RAYDB_VK_RT_PIPELINE=lean, ...) through set_diagnostic.
// Thread-safety: plain values, copied into the Context at creation.
#pragma once

#include <cstdint>
#include <string_view>

#include "raydb/error.hpp"

namespace raydb {

/// The geometry flag of RX's Vulkan BLAS (RAYDB_VK_GEOMETRY_FLAGS).
enum class VkGeometryFlagsDiagnostic {
  standard,  ///< VK_GEOMETRY_NO_DUPLICATE_ANY_HIT_INVOCATION_BIT_KHR
  /// no flag: exact only where a match ends the ray, as OptiX's multi_anyhit twin (none)
  none,
  /// VK_GEOMETRY_OPAQUE_BIT_KHR instead; hit_and_scan over triangles only (opaque)
  opaque,
};

/// How every Vulkan ray-tracing pipeline is shaped (RAYDB_VK_RT_PIPELINE).
enum class VkRtPipelineShape {
  culled,   ///< hit groups and shaders fitted to the primitives, and the culling flag (default)
  lean,     ///< fitted groups and shaders, no culling flag
  generic,  ///< both hit groups and every shader: raydb's pipelines before they were fitted
};

/// Whether CUDA code reads cudaMalloc'd copies of Vulkan buffers or the memory it imported
/// (RAYDB_CUDA_OWN_MEMORY: 1 is on, 0 is off). CUDA's reads of imported memory were slow on the
/// H100 (docs/optix.md).
enum class CudaOwnMemory {
  /// OptiX programs read copies; DP-BIS's CUDA selection reads the imported memory
  automatic,
  /// both read copies. DP-BIS's bitmap then is the copy, so its query result is not valid (a
  /// diagnostic of the pass alone, docs/baselines.md)
  on,
  off,  ///< both read the imported memory
};

/// The OptiX continuation stack (RAYDB_OPTIX_STACK).
enum class OptixStackDiagnostic {
  standard,  ///< OptiX's default; prints nothing
  /// what the programs need for trace depth 1 (raygen + max(closest-hit or miss, intersection +
  /// any-hit)); prints the programs' sizes to stderr (computed)
  computed,
  print,  ///< OptiX's default, and prints the sizes (print)
};

/// The SSB engine's OptiX programs (RAYDB_OPTIX_SSB_VARIANT).
enum class OptixSsbVariant {
  standard,
  multi_anyhit,     ///< drops REQUIRE_SINGLE_ANYHIT_CALL (exact all the same)
  pointer_payload,  ///< passes the run through memory as the RX programs do
};

/// Experiment switches (ContextOptions::diagnostics); the defaults are what raydb ships.
struct Diagnostics {
  /// RX's Vulkan BLAS geometry flag (RAYDB_VK_GEOMETRY_FLAGS).
  VkGeometryFlagsDiagnostic vk_geometry_flags = VkGeometryFlagsDiagnostic::standard;
  /// The shape of every Vulkan ray-tracing pipeline (RAYDB_VK_RT_PIPELINE).
  VkRtPipelineShape vk_rt_pipeline = VkRtPipelineShape::culled;
  /// Copies or imported memory for CUDA code (RAYDB_CUDA_OWN_MEMORY).
  CudaOwnMemory cuda_own_memory = CudaOwnMemory::automatic;
  /// CGRX over OptiX traces through an instance AS over its GAS, as Vulkan must, instead of the
  /// GAS alone (RAYDB_OPTIX_CGRX_IAS=1).
  bool optix_cgrx_ias = false;
  /// The SSB engine's OptiX programs (RAYDB_OPTIX_SSB_VARIANT).
  OptixSsbVariant optix_ssb_variant = OptixSsbVariant::standard;
  /// Caps the OptiX programs' registers (16 to 255); 0: OptiX's own choice
  /// (RAYDB_OPTIX_MAX_REGISTERS).
  uint32_t optix_max_registers = 0;
  /// The OptiX continuation stack (RAYDB_OPTIX_STACK).
  OptixStackDiagnostic optix_stack = OptixStackDiagnostic::standard;
};

/// The environment variable names of the fields above, for a caller that maps them (the CLI).
inline constexpr std::string_view kDiagnosticNames[] = {
    "RAYDB_VK_GEOMETRY_FLAGS", "RAYDB_VK_RT_PIPELINE",    "RAYDB_CUDA_OWN_MEMORY",
    "RAYDB_OPTIX_CGRX_IAS",    "RAYDB_OPTIX_SSB_VARIANT", "RAYDB_OPTIX_MAX_REGISTERS",
    "RAYDB_OPTIX_STACK"};

/// Sets the field named by `name` (one of kDiagnosticNames) from `value` as the environment
/// variable spells it; an empty value leaves the default. Errc::invalid_argument names the
/// variable, the value and what it accepts.
Status set_diagnostic(Diagnostics& d, std::string_view name, std::string_view value);

}  // namespace raydb
