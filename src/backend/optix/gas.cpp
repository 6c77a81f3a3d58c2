#include "backend/optix/gas.hpp"

#include <optix.h>
#include <optix_stubs.h>

#include "backend/cuda/cuda.hpp"
#include "backend/cuda/runtime.hpp"

namespace raydb::detail::optix {

unsigned build_flags(BuildPreference preference, bool compact) {
  unsigned f = compact ? unsigned{OPTIX_BUILD_FLAG_ALLOW_COMPACTION} : 0u;
  if (preference == BuildPreference::fast_trace) f |= OPTIX_BUILD_FLAG_PREFER_FAST_TRACE;
  if (preference == BuildPreference::fast_build) f |= OPTIX_BUILD_FLAG_PREFER_FAST_BUILD;
  return f;
}

OptixBuildInput triangle_input(const CUdeviceptr* vertices, uint64_t count,
                               const unsigned* geometry_flags) {
  OptixBuildInput input{};
  input.type = OPTIX_BUILD_INPUT_TYPE_TRIANGLES;
  input.triangleArray.vertexBuffers = vertices;
  input.triangleArray.numVertices = static_cast<unsigned>(3 * count);
  input.triangleArray.vertexFormat = OPTIX_VERTEX_FORMAT_FLOAT3;
  input.triangleArray.vertexStrideInBytes = 3 * sizeof(float);
  input.triangleArray.flags = geometry_flags;
  input.triangleArray.numSbtRecords = 1;
  return input;
}

OptixBuildInput aabb_input(const CUdeviceptr* boxes, uint64_t count,
                           const unsigned* geometry_flags) {
  OptixBuildInput input{};
  input.type = OPTIX_BUILD_INPUT_TYPE_CUSTOM_PRIMITIVES;
  input.customPrimitiveArray.aabbBuffers = boxes;
  input.customPrimitiveArray.numPrimitives = static_cast<unsigned>(count);
  input.customPrimitiveArray.strideInBytes = sizeof(OptixAabb);
  input.customPrimitiveArray.flags = geometry_flags;
  input.customPrimitiveArray.numSbtRecords = 1;
  return input;
}

unsigned max_primitives_per_gas(OptixDeviceContext context) {
  unsigned n = 0;
  check(optixDeviceContextGetProperty(context, OPTIX_DEVICE_PROPERTY_LIMIT_MAX_PRIMITIVES_PER_GAS,
                                      &n, sizeof n),
        "optixDeviceContextGetProperty (max primitives per GAS)");
  return n;
}

Gas build_gas(VkContext& ctx, OptixDeviceContext context, cudaStream_t stream, MemoryTally& memory,
              const OptixBuildInput& input, unsigned build_flags,
              const std::function<void()>& free_inputs) {
  const bool compact = (build_flags & OPTIX_BUILD_FLAG_ALLOW_COMPACTION) != 0;
  OptixAccelBuildOptions options{};
  options.buildFlags = build_flags;
  options.operation = OPTIX_BUILD_OPERATION_BUILD;
  OptixAccelBufferSizes sizes{};
  check(optixAccelComputeMemoryUsage(context, &options, &input, 1, &sizes),
        "optixAccelComputeMemoryUsage");
  Gas gas;
  DeviceMemory compacted_size(memory, sizeof(uint64_t), "OptiX compacted size");
  DeviceMemory output(memory, sizes.outputSizeInBytes, "OptiX GAS");
  cuda::Timer timer(ctx, 4);
  {
    DeviceMemory temp(memory, sizes.tempSizeInBytes, "OptiX build scratch");
    OptixAccelEmitDesc emit{compacted_size.address(), OPTIX_PROPERTY_TYPE_COMPACTED_SIZE};
    uint32_t t0 = timer.mark();
    check(optixAccelBuild(context, stream, &options, &input, 1, temp.address(), temp.bytes(),
                          output.address(), output.bytes(), &gas.handle, compact ? &emit : nullptr,
                          compact ? 1u : 0u),
          "optixAccelBuild");
    uint32_t t1 = timer.mark();
    cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (GAS build)");
    gas.build_ms = timer.ms(t0, t1);
  }
  if (free_inputs) free_inputs();
  gas.uncompacted_bytes = sizes.outputSizeInBytes;
  if (!compact) {
    gas.memory = std::move(output);
    return gas;
  }
  uint64_t bytes = 0;
  cuda::check(cudaMemcpy(&bytes, compacted_size.get(), sizeof bytes, cudaMemcpyDeviceToHost),
              "cudaMemcpy (compacted size)");
  DeviceMemory small(memory, bytes, "OptiX compacted GAS");
  uint32_t t2 = timer.mark();
  check(optixAccelCompact(context, stream, gas.handle, small.address(), bytes, &gas.handle),
        "optixAccelCompact");
  uint32_t t3 = timer.mark();
  cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (GAS compaction)");
  gas.compact_ms = timer.ms(t2, t3);
  gas.memory = std::move(small);  // the uncompacted GAS goes with `output`
  return gas;
}

Gas build_instance_over(VkContext& ctx, OptixDeviceContext context, cudaStream_t stream,
                        MemoryTally& memory, OptixTraversableHandle gas) {
  OptixInstance instance{};
  instance.transform[0] = instance.transform[5] = instance.transform[10] = 1.0f;
  instance.visibilityMask = 0xFF;
  instance.flags = OPTIX_INSTANCE_FLAG_DISABLE_TRIANGLE_FACE_CULLING;
  instance.traversableHandle = gas;
  DeviceMemory instances(memory, sizeof instance, "OptiX instance");
  cuda::check(
      cudaMemcpyAsync(instances.get(), &instance, sizeof instance, cudaMemcpyHostToDevice, stream),
      "cudaMemcpyAsync (OptiX instance)");
  OptixBuildInput input{};
  input.type = OPTIX_BUILD_INPUT_TYPE_INSTANCES;
  input.instanceArray.instances = instances.address();
  input.instanceArray.numInstances = 1;
  Gas ias = build_gas(ctx, context, stream, memory, input, OPTIX_BUILD_FLAG_PREFER_FAST_TRACE);
  return ias;
}

}  // namespace raydb::detail::optix
