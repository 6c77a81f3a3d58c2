// One OptiX program of the backend (OptiX builds only): a module compiled from embedded OptiX-IR,
// a raygen, a miss and one hit group, linked for trace depth 1 with OptiX's default stack sizes,
// and a shader binding table of bare record headers (no per-record data: everything a program
// reads comes through the launch parameters). RX and RTScan differ only in their options and
// entry points.
//
// Ownership: a Program owns its module, groups, pipeline and SBT memory; not copyable or movable
// (the impls hold one in place). Thread-safety: none, as for the rest of the backend.
#pragma once

#include <cuda_runtime_api.h>
#include <optix_types.h>

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

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

// Full optimization, no debug information, OptiX's register limit (or
// Diagnostics::optix_max_registers): what every raydb module uses.
OptixModuleCompileOptions default_module_options(const Diagnostics& diagnostics);

class Program;

// LaunchBlocks' untyped halves (program.cpp).
void upload_launch_blocks(MemoryTally& memory, DeviceMemory& device, const void* blocks,
                          size_t bytes, cudaStream_t stream);
void launch_blocks(const Program& program, cudaStream_t stream, const DeviceMemory& device,
                   size_t block_bytes, std::span<const uint32_t> widths, const char* what,
                   uint32_t row_width);

class Program {
 public:
  Program() = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program();

  // Compiles `ir` (size bytes) and links the pipeline; throws raydb::Error with OptiX's log.
  // diagnostics.optix_stack may set or print the continuation stack.
  void create(OptixDeviceContext context, const OptixModuleCompileOptions& module_options,
              const OptixPipelineCompileOptions& pipeline_options, const void* ir, size_t size,
              const ProgramEntries& entries, MemoryTally& memory, const Diagnostics& diagnostics);

  OptixPipeline pipeline() const { return pipeline_; }
  const OptixShaderBindingTable* sbt() const { return &sbt_; }

 private:
  void set_stack_size_diagnostic(const OptixPipelineCompileOptions& pipeline_options,
                                 const char* name, OptixStackDiagnostic stack);

  OptixModule module_ = nullptr;
  OptixProgramGroup groups_[3] = {nullptr, nullptr, nullptr};  // raygen, miss, hit group
  OptixPipeline pipeline_ = nullptr;
  DeviceMemory sbt_records_;
  OptixShaderBindingTable sbt_{};
};

// The parameter blocks of one batch of launches. Each block covers at most kMaxLaunchWidth
// threads (OptiX's limit); the blocks live in device memory kept between batches, where the
// programs read `params`. Per batch: clear(), add(), upload() (before the timed part), launch().
template <class Params>
class LaunchBlocks {
 public:
  void clear() {
    blocks_.clear();
    widths_.clear();
  }
  // Blocks of `p` for `count` threads, one per slice; slice(block, first, width) writes the
  // slice's first thread and its width into the block.
  template <class Slice>
  void add(Params p, uint64_t count, Slice slice) {
    for (uint64_t first = 0; first < count; first += kMaxLaunchWidth) {
      auto width = static_cast<uint32_t>(std::min(kMaxLaunchWidth, count - first));
      slice(p, static_cast<uint32_t>(first), width);
      blocks_.push_back(p);
      widths_.push_back(width);
    }
  }
  bool empty() const { return blocks_.empty(); }
  // Copies the blocks to the device, on `stream` (the buffer grows as needed).
  void upload(MemoryTally& memory, cudaStream_t stream) {
    upload_launch_blocks(memory, device_, blocks_.data(), blocks_.size() * sizeof(Params), stream);
  }
  // One optixLaunch per block, in order, on `stream`: 1D, or rows of `row_width` threads.
  void launch(const Program& program, cudaStream_t stream, const char* what,
              uint32_t row_width = 0) const {
    launch_blocks(program, stream, device_, sizeof(Params), widths_, what, row_width);
  }

 private:
  std::vector<Params> blocks_;
  std::vector<uint32_t> widths_;
  DeviceMemory device_;
};

}  // namespace raydb::detail::optix
