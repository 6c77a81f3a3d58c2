#include "backend/optix/program.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <optix.h>
#include <optix_stubs.h>

#include "backend/cuda/runtime.hpp"
#include "backend/optix/optix_internal.hpp"

namespace raydb::detail::optix {

namespace {
struct SbtRecord {
  alignas(OPTIX_SBT_RECORD_ALIGNMENT) char header[OPTIX_SBT_RECORD_HEADER_SIZE];
};
}  // namespace

OptixModuleCompileOptions default_module_options() {
  OptixModuleCompileOptions o{};
  o.maxRegisterCount = OPTIX_COMPILE_DEFAULT_MAX_REGISTER_COUNT;
  o.optLevel = OPTIX_COMPILE_OPTIMIZATION_DEFAULT;
  o.debugLevel = OPTIX_COMPILE_DEBUG_LEVEL_NONE;
  return o;
}

Program::~Program() {
  if (pipeline_) optixPipelineDestroy(pipeline_);
  for (OptixProgramGroup g : groups_)
    if (g) optixProgramGroupDestroy(g);
  if (module_) optixModuleDestroy(module_);
}

void Program::create(OptixDeviceContext context, const OptixModuleCompileOptions& module_options,
                     const OptixPipelineCompileOptions& pipeline_options, const void* ir,
                     size_t size, const ProgramEntries& e, MemoryTally& memory) {
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

}  // namespace raydb::detail::optix
