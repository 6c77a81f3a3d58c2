// One OptiX program of the backend (OptiX builds only): a module compiled from embedded OptiX-IR,
// a raygen, a miss and one hit group, linked for trace depth 1 with OptiX's default stack sizes,
// and a shader binding table of bare record headers (no per-record data: everything a program
// reads comes through the launch parameters). RX and RTScan differ only in their options and
// entry points.
//
// Ownership: a Program owns its module, groups, pipeline and SBT memory; not copyable or movable
// (the impls hold one in place). Thread-safety: none, as for the rest of the backend.
#pragma once

#include <optix_types.h>

#include <cstddef>

#include "backend/optix/device_memory.hpp"

namespace raydb::detail::optix {

struct ProgramEntries {
  const char* name;  // for error messages, e.g. "rx_programs"
  const char* raygen;
  const char* miss;
  const char* closest_hit = nullptr;  // hit group entries: any left null are not used
  const char* any_hit = nullptr;
  const char* intersection = nullptr;
};

// OptiX's launch limit: width * height * depth <= 2^30; every twin slices its launches to it.
inline constexpr uint64_t kMaxLaunchWidth = uint64_t{1} << 30;

// Full optimization, no debug information, OptiX's register limit: what every raydb module uses.
OptixModuleCompileOptions default_module_options();

class Program {
 public:
  Program() = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program();

  // Compiles `ir` (size bytes) and links the pipeline; throws raydb::Error with OptiX's log.
  void create(OptixDeviceContext context, const OptixModuleCompileOptions& module_options,
              const OptixPipelineCompileOptions& pipeline_options, const void* ir, size_t size,
              const ProgramEntries& entries, MemoryTally& memory);

  OptixPipeline pipeline() const { return pipeline_; }
  const OptixShaderBindingTable* sbt() const { return &sbt_; }

 private:
  void set_stack_size_diagnostic(const OptixPipelineCompileOptions& pipeline_options,
                                 const char* name);

  OptixModule module_ = nullptr;
  OptixProgramGroup groups_[3] = {nullptr, nullptr, nullptr};  // raygen, miss, hit group
  OptixPipeline pipeline_ = nullptr;
  DeviceMemory sbt_records_;
  OptixShaderBindingTable sbt_{};
};

}  // namespace raydb::detail::optix
