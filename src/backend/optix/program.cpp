#include "backend/optix/program.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <optix.h>
#include <optix_stubs.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "backend/cuda/runtime.hpp"
#include "backend/optix/optix_internal.hpp"

namespace raydb::detail::optix {

namespace {
struct SbtRecord {
  alignas(OPTIX_SBT_RECORD_ALIGNMENT) char header[OPTIX_SBT_RECORD_HEADER_SIZE];
};
}  // namespace

OptixModuleCompileOptions default_module_options(const Diagnostics& diagnostics) {
  OptixModuleCompileOptions o{};
  o.maxRegisterCount = OPTIX_COMPILE_DEFAULT_MAX_REGISTER_COUNT;
  // A diagnostic for the comparison with Vulkan (docs/optix.md): caps the programs' registers
  // instead of OptiX's own choice.
  if (uint32_t n = diagnostics.optix_max_registers; n != 0) {
    if (n < 16 || n > 255)
      throw Error(Errc::invalid_argument,
                  fmt::format("Diagnostics::optix_max_registers = {}: expected 16 to 255", n));
    o.maxRegisterCount = static_cast<int>(n);
  }
  o.optLevel = OPTIX_COMPILE_OPTIMIZATION_DEFAULT;
  o.debugLevel = OPTIX_COMPILE_DEBUG_LEVEL_NONE;
  return o;
}

// A diagnostic for the comparison with Vulkan (docs/optix.md, Diagnostics::optix_stack): computed
// sets the continuation stack to what the programs need for trace depth 1 (the rule of OptiX's
// optixUtilComputeStackSizes: raygen + max(closest-hit or miss, intersection + any-hit)) instead
// of OptiX's default; print only prints the programs' sizes. Either prints them to stderr.
void Program::set_stack_size_diagnostic(const OptixPipelineCompileOptions& pipeline_options,
                                        const char* name, OptixStackDiagnostic stack) {
  if (stack == OptixStackDiagnostic::standard) return;
  bool computed = stack == OptixStackDiagnostic::computed;
  OptixStackSizes sizes[3] = {};
  for (int i = 0; i < 3; ++i)
    check(optixProgramGroupGetStackSize(groups_[i], &sizes[i], pipeline_),
          "optixProgramGroupGetStackSize");
  unsigned raygen = sizes[0].cssRG, miss = sizes[1].cssMS, closest_hit = sizes[2].cssCH,
           any_hit = sizes[2].cssAH, intersection = sizes[2].cssIS;
  unsigned continuation = raygen + std::max(std::max(closest_hit, miss), intersection + any_hit);
  unsigned depth =
      pipeline_options.traversableGraphFlags == OPTIX_TRAVERSABLE_GRAPH_FLAG_ALLOW_SINGLE_GAS ? 1
                                                                                              : 2;
  std::fprintf(stderr,
               "raydb: OptiX %s: continuation stack raygen %u, miss %u, closest-hit %u, any-hit "
               "%u, intersection %u bytes; %s %u bytes\n",
               name, raygen, miss, closest_hit, any_hit, intersection,
               computed ? "set to" : "would set", continuation);
  if (computed)
    check(optixPipelineSetStackSize(pipeline_, 0, 0, continuation, depth),
          "optixPipelineSetStackSize");
}

Program::~Program() {
  if (pipeline_) optixPipelineDestroy(pipeline_);
  for (OptixProgramGroup g : groups_)
    if (g) optixProgramGroupDestroy(g);
  if (module_) optixModuleDestroy(module_);
}

void Program::create(OptixDeviceContext context, const OptixModuleCompileOptions& module_options,
                     const OptixPipelineCompileOptions& pipeline_options, const void* ir,
                     size_t size, const ProgramEntries& e, MemoryTally& memory,
                     const Diagnostics& diagnostics) {
  char log[4096];
  size_t log_size = sizeof log;
  check(optixModuleCreate(context, &module_options, &pipeline_options, static_cast<const char*>(ir),
                          size, log, &log_size, &module_),
        fmt::format("optixModuleCreate ({})", e.name).c_str(), log);

  OptixProgramGroupDesc desc[3] = {};
  desc[0].kind = OPTIX_PROGRAM_GROUP_KIND_RAYGEN;
  desc[0].raygen.module = module_;
  desc[0].raygen.entryFunctionName = e.raygen;
  desc[1].kind = OPTIX_PROGRAM_GROUP_KIND_MISS;
  desc[1].miss.module = module_;
  desc[1].miss.entryFunctionName = e.miss;
  desc[2].kind = OPTIX_PROGRAM_GROUP_KIND_HITGROUP;
  if (e.closest_hit) {
    desc[2].hitgroup.moduleCH = module_;
    desc[2].hitgroup.entryFunctionNameCH = e.closest_hit;
  }
  if (e.any_hit) {
    desc[2].hitgroup.moduleAH = module_;
    desc[2].hitgroup.entryFunctionNameAH = e.any_hit;
  }
  if (e.intersection) {
    desc[2].hitgroup.moduleIS = module_;
    desc[2].hitgroup.entryFunctionNameIS = e.intersection;
  }
  OptixProgramGroupOptions group_options{};
  log_size = sizeof log;
  check(optixProgramGroupCreate(context, desc, 3, &group_options, log, &log_size, groups_),
        fmt::format("optixProgramGroupCreate ({})", e.name).c_str(), log);
  OptixPipelineLinkOptions link{};
  link.maxTraceDepth = 1;
  log_size = sizeof log;
  // Stack sizes: OptiX's default, which is correct for a trace depth of 1 and no callables.
  check(optixPipelineCreate(context, &pipeline_options, &link, groups_, 3, log, &log_size,
                            &pipeline_),
        fmt::format("optixPipelineCreate ({})", e.name).c_str(), log);
  set_stack_size_diagnostic(pipeline_options, e.name, diagnostics.optix_stack);

  SbtRecord records[3];
  for (int i = 0; i < 3; ++i)
    check(optixSbtRecordPackHeader(groups_[i], &records[i]), "optixSbtRecordPackHeader");
  sbt_records_ = DeviceMemory(memory, sizeof records, "OptiX shader binding table");
  cuda::check(cudaMemcpy(sbt_records_.get(), records, sizeof records, cudaMemcpyHostToDevice),
              "cudaMemcpy (shader binding table)");
  sbt_ = {};
  sbt_.raygenRecord = sbt_records_.address();
  sbt_.missRecordBase = sbt_records_.address() + sizeof(SbtRecord);
  sbt_.missRecordStrideInBytes = sizeof(SbtRecord);
  sbt_.missRecordCount = 1;
  sbt_.hitgroupRecordBase = sbt_records_.address() + 2 * sizeof(SbtRecord);
  sbt_.hitgroupRecordStrideInBytes = sizeof(SbtRecord);
  sbt_.hitgroupRecordCount = 1;
}

void upload_launch_blocks(MemoryTally& memory, DeviceMemory& device, const void* blocks,
                          size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  if (!device || device.bytes() < bytes)
    device = DeviceMemory(memory, bytes, "OptiX launch parameters");
  cuda::check(cudaMemcpyAsync(device.get(), blocks, bytes, cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (launch parameters)");
}

void launch_blocks(const Program& program, cudaStream_t stream, const DeviceMemory& device,
                   size_t block_bytes, std::span<const uint32_t> widths, const char* what,
                   uint32_t row_width) {
  for (size_t i = 0; i < widths.size(); ++i) {
    uint32_t n = widths[i];
    uint32_t width = row_width ? std::min(n, row_width) : n;
    uint32_t height = row_width ? (n + width - 1) / width : 1;
    check(optixLaunch(program.pipeline(), stream, device.address() + i * block_bytes, block_bytes,
                      program.sbt(), width, height, 1),
          what);
  }
}

}  // namespace raydb::detail::optix
