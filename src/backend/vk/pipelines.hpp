// Compute and ray-tracing pipelines over one optional descriptor set holding the TLAS, with all
// buffers passed as device addresses in push constants.
#pragma once

#include "backend/vk/accel.hpp"
#include "backend/vk/shaders.hpp"

namespace raydb::detail {

// A descriptor set with one acceleration structure at binding 0, for the stages that trace.
// Where a probe reads its index's TLAS: the raygen shader of a pipeline, or a ray-query kernel.
inline constexpr VkShaderStageFlags kProbeTlasStages =
    VK_SHADER_STAGE_RAYGEN_BIT_KHR | VK_SHADER_STAGE_COMPUTE_BIT;

class TlasBinding {
 public:
  TlasBinding(VkContext& ctx, VkShaderStageFlags stages);
  TlasBinding(const TlasBinding&) = delete;
  TlasBinding& operator=(const TlasBinding&) = delete;
  ~TlasBinding();
  void bind(VkAccelerationStructureKHR tlas);
  VkDescriptorSetLayout layout() const { return layout_; }
  VkDescriptorSet set() const { return set_; }

 private:
  VkContext& ctx_;
  VkDescriptorSetLayout layout_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
};

class ComputePipeline {
 public:
  ComputePipeline(VkContext& ctx, ShaderId shader, uint32_t push_bytes,
                  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE);
  // From SPIR-V compiled at run time (the SQL engine's generated kernels).
  ComputePipeline(VkContext& ctx, std::span<const uint32_t> spirv, uint32_t push_bytes,
                  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE);
  ComputePipeline(const ComputePipeline&) = delete;
  ComputePipeline& operator=(const ComputePipeline&) = delete;
  ~ComputePipeline();
  // Binds, pushes, and dispatches one invocation per item, for kernels of 64 invocations per
  // workgroup that index items as (group.y * groups.x + group.x) * 64 + local.
  void dispatch(VkCommandBuffer cmd, const void* push, uint64_t items,
                VkDescriptorSet set = VK_NULL_HANDLE);
  // The same for `groups` workgroups of any size, as a 2D grid when one dimension is too small.
  void dispatch_groups(VkCommandBuffer cmd, const void* push, uint64_t groups,
                       VkDescriptorSet set = VK_NULL_HANDLE);
  // The largest number of items one dispatch() can cover on this device.
  uint64_t max_items() const;

 private:
  VkContext& ctx_;
  uint32_t push_bytes_;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

// The context's shared compute pipeline for `shader` (created on first use).
ComputePipeline& kernel(VkContext& ctx, ShaderId shader, uint32_t push_bytes);
// The same for one that reads a TLAS bound at set 0 (TlasBinding with `set_stages`): every
// index's binding has an identically defined set layout, so one pipeline serves them all.
ComputePipeline& tlas_kernel(VkContext& ctx, ShaderId shader, uint32_t push_bytes,
                             VkShaderStageFlags set_stages);

// Which primitives a pipeline's rays can meet, and so which hit groups it has.
enum class RtPrimitives { triangles, boxes, both };

// raygen + miss + two hit-group records (0: triangles, closest-hit and any-hit; 1: boxes,
// intersection and any-hit), with its shader binding table. Instances pick their hit group by
// their SBT record offset. A pipeline that traces one kind of primitive gets only that kind's hit
// group (the other record is zeros and never read) and only the hit shaders it uses, and, where
// the device has rayTraversalPrimitiveCulling, the flag that skips the other kind: the twins of
// OptiX's usesPrimitiveTypeFlags and of a hit group without the programs it never calls.
// A shader marked unused is not part of the pipeline (its SPIR-V is not even loaded).
struct RtShaders {
  ShaderId raygen, miss, any_hit, closest_hit, intersection;
  RtPrimitives primitives = RtPrimitives::both;
  bool uses_any_hit = true, uses_closest_hit = true;
  // SPIR-V compiled at run time (the SQL engine's generated shaders): a non-empty span replaces
  // the stage's ShaderId.
  std::span<const uint32_t> raygen_code, miss_code, any_hit_code, closest_hit_code,
      intersection_code;
};

class RtPipeline {
 public:
  RtPipeline(VkContext& ctx, const RtShaders& shaders, uint32_t push_bytes,
             VkDescriptorSetLayout set_layout);
  RtPipeline(const RtPipeline&) = delete;
  RtPipeline& operator=(const RtPipeline&) = delete;
  ~RtPipeline();
  void trace(VkCommandBuffer cmd, const void* push, uint32_t width, VkDescriptorSet set);
  uint32_t max_width() const;

 private:
  VkContext& ctx_;
  uint32_t push_bytes_;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  Buffer sbt_;
  VkStridedDeviceAddressRegionKHR raygen_{}, miss_{}, hit_{}, callable_{};
};

// The context's shared ray-tracing pipeline for built-in `shaders` and a TLAS bound at set 0
// (TlasBinding with `set_stages`), as tlas_kernel(); made once per context instead of once per
// index (3-4 ms on an H100 even from the driver's cache).
RtPipeline& rt_kernel(VkContext& ctx, const RtShaders& shaders, uint32_t push_bytes,
                      VkShaderStageFlags set_stages);

}  // namespace raydb::detail
