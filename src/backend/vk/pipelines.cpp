#include "backend/vk/pipelines.hpp"
#include "common/host_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "backend/vk/commands.hpp"

namespace raydb::detail {

namespace {

VkShaderModule make_module(VkContext& ctx, std::span<const uint32_t> code) {
  VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  ci.codeSize = code.size_bytes();
  ci.pCode = code.data();
  VkShaderModule m = VK_NULL_HANDLE;
  vk_check(ctx.vk.vkCreateShaderModule(ctx.device, &ci, nullptr, &m), "vkCreateShaderModule");
  return m;
}

constexpr VkShaderStageFlags kRtStages =
    VK_SHADER_STAGE_RAYGEN_BIT_KHR | VK_SHADER_STAGE_ANY_HIT_BIT_KHR |
    VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR | VK_SHADER_STAGE_INTERSECTION_BIT_KHR |
    VK_SHADER_STAGE_MISS_BIT_KHR;

VkPipelineLayout make_layout(VkContext& ctx, VkShaderStageFlags stages, uint32_t push_bytes,
                             VkDescriptorSetLayout set_layout) {
  VkPushConstantRange range{stages, 0, push_bytes};
  VkPipelineLayoutCreateInfo li{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  li.setLayoutCount = set_layout ? 1 : 0;
  li.pSetLayouts = &set_layout;
  li.pushConstantRangeCount = 1;
  li.pPushConstantRanges = &range;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  vk_check(ctx.vk.vkCreatePipelineLayout(ctx.device, &li, nullptr, &layout),
           "vkCreatePipelineLayout");
  return layout;
}

uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

// One acceleration structure at binding 0 of set 0, seen by `stages`.
VkDescriptorSetLayout make_tlas_set_layout(VkContext& ctx, VkShaderStageFlags stages) {
  VkDescriptorSetLayoutBinding b{0, VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR, 1, stages,
                                 nullptr};
  VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  li.bindingCount = 1;
  li.pBindings = &b;
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  vk_check(ctx.vk.vkCreateDescriptorSetLayout(ctx.device, &li, nullptr, &layout),
           "vkCreateDescriptorSetLayout");
  return layout;
}

// A pipeline of kernel_cache that reads a TLAS, with the set layout it was made with.
template <class Pipeline>
struct TlasPipeline {
  VkContext& ctx;
  VkDescriptorSetLayout set_layout;
  std::unique_ptr<Pipeline> pipeline;
  TlasPipeline(VkContext& c, VkShaderStageFlags stages)
      : ctx(c), set_layout(make_tlas_set_layout(c, stages)) {}
  TlasPipeline(const TlasPipeline&) = delete;
  TlasPipeline& operator=(const TlasPipeline&) = delete;
  ~TlasPipeline() {
    pipeline.reset();
    ctx.vk.vkDestroyDescriptorSetLayout(ctx.device, set_layout, nullptr);
  }
};

template <class Pipeline, class Make>
Pipeline& cached_tlas_pipeline(VkContext& ctx, const std::string& key, VkShaderStageFlags stages,
                               Make&& make) {
  auto& slot = ctx.tlas_pipeline_cache[key];
  if (!slot) {
    auto entry = std::make_shared<TlasPipeline<Pipeline>>(ctx, stages);
    entry->pipeline = make(entry->set_layout);
    slot = std::move(entry);
  }
  return *static_cast<TlasPipeline<Pipeline>*>(slot.get())->pipeline;
}

}  // namespace

TlasBinding::TlasBinding(VkContext& ctx, VkShaderStageFlags stages) : ctx_(ctx) {
  layout_ = make_tlas_set_layout(ctx, stages);
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR, 1};
  VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pi.maxSets = 1;
  pi.poolSizeCount = 1;
  pi.pPoolSizes = &size;
  vk_check(ctx.vk.vkCreateDescriptorPool(ctx.device, &pi, nullptr, &pool_),
           "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = pool_;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &layout_;
  vk_check(ctx.vk.vkAllocateDescriptorSets(ctx.device, &ai, &set_), "vkAllocateDescriptorSets");
}

TlasBinding::~TlasBinding() {
  if (pool_) ctx_.vk.vkDestroyDescriptorPool(ctx_.device, pool_, nullptr);
  if (layout_) ctx_.vk.vkDestroyDescriptorSetLayout(ctx_.device, layout_, nullptr);
}

void TlasBinding::bind(VkAccelerationStructureKHR tlas) {
  VkWriteDescriptorSetAccelerationStructureKHR as{
      VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR};
  as.accelerationStructureCount = 1;
  as.pAccelerationStructures = &tlas;
  VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.pNext = &as;
  w.dstSet = set_;
  w.dstBinding = 0;
  w.descriptorCount = 1;
  w.descriptorType = VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR;
  ctx_.vk.vkUpdateDescriptorSets(ctx_.device, 1, &w, 0, nullptr);
}

ComputePipeline::ComputePipeline(VkContext& ctx, ShaderId shader, uint32_t push_bytes,
                                 VkDescriptorSetLayout set_layout)
    : ComputePipeline(ctx, spirv(shader), push_bytes, set_layout) {}

ComputePipeline::ComputePipeline(VkContext& ctx, std::span<const uint32_t> code,
                                 uint32_t push_bytes, VkDescriptorSetLayout set_layout)
    : ctx_(ctx), push_bytes_(push_bytes) {
  HostPhaseScope timed(HostPhase::pipeline);
  layout_ = make_layout(ctx, VK_SHADER_STAGE_COMPUTE_BIT, push_bytes, set_layout);
  VkShaderModule module = make_module(ctx, code);
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.layout = layout_;
  VkResult r =
      ctx.vk.vkCreateComputePipelines(ctx.device, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline_);
  ctx.vk.vkDestroyShaderModule(ctx.device, module, nullptr);
  vk_check(r, "vkCreateComputePipelines");
}

ComputePipeline::~ComputePipeline() {
  if (pipeline_) ctx_.vk.vkDestroyPipeline(ctx_.device, pipeline_, nullptr);
  if (layout_) ctx_.vk.vkDestroyPipelineLayout(ctx_.device, layout_, nullptr);
}

uint64_t ComputePipeline::max_items() const {
  const auto& l = ctx_.properties.limits;
  return uint64_t{l.maxComputeWorkGroupCount[0]} *
         std::min<uint32_t>(l.maxComputeWorkGroupCount[1], 65535) * 64;
}

void ComputePipeline::dispatch(VkCommandBuffer cmd, const void* push, uint64_t items,
                               VkDescriptorSet set) {
  dispatch_groups(cmd, push, (items + 63) / 64, set);
}

void ComputePipeline::dispatch_groups(VkCommandBuffer cmd, const void* push, uint64_t groups,
                                      VkDescriptorSet set) {
  if (groups == 0) return;
  uint64_t max_x = ctx_.properties.limits.maxComputeWorkGroupCount[0];
  auto gx = static_cast<uint32_t>(std::min(groups, max_x));
  auto gy = static_cast<uint32_t>((groups + gx - 1) / gx);
  ctx_.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  if (set)
    ctx_.vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0,
                                    nullptr);
  ctx_.vk.vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes_, push);
  ctx_.vk.vkCmdDispatch(cmd, gx, gy, 1);
}

ComputePipeline& kernel(VkContext& ctx, ShaderId shader, uint32_t push_bytes) {
  auto& slot = ctx.kernel_cache[static_cast<int>(shader)];
  if (!slot) slot = std::make_shared<ComputePipeline>(ctx, shader, push_bytes);
  return *static_cast<ComputePipeline*>(slot.get());
}

ComputePipeline& tlas_kernel(VkContext& ctx, ShaderId shader, uint32_t push_bytes,
                             VkShaderStageFlags set_stages) {
  return cached_tlas_pipeline<ComputePipeline>(
      ctx, fmt::format("compute {} {} {}", static_cast<int>(shader), push_bytes, set_stages),
      set_stages, [&](VkDescriptorSetLayout layout) {
        return std::make_unique<ComputePipeline>(ctx, shader, push_bytes, layout);
      });
}

RtPipeline& rt_kernel(VkContext& ctx, const RtShaders& s, uint32_t push_bytes,
                      VkShaderStageFlags set_stages) {
  if (!s.raygen_code.empty() || !s.miss_code.empty() || !s.any_hit_code.empty() ||
      !s.closest_hit_code.empty() || !s.intersection_code.empty())
    throw Error(Errc::internal, "rt_kernel caches pipelines of built-in shaders only");
  const std::string key = fmt::format(
      "rt {} {} {} {} {} {} {} {} {} {}", static_cast<int>(s.raygen), static_cast<int>(s.miss),
      static_cast<int>(s.any_hit), static_cast<int>(s.closest_hit),
      static_cast<int>(s.intersection), static_cast<int>(s.primitives), s.uses_any_hit,
      s.uses_closest_hit, push_bytes, set_stages);
  return cached_tlas_pipeline<RtPipeline>(ctx, key, set_stages, [&](VkDescriptorSetLayout layout) {
    return std::make_unique<RtPipeline>(ctx, s, push_bytes, layout);
  });
}

RtPipeline::RtPipeline(VkContext& ctx, const RtShaders& s, uint32_t push_bytes,
                       VkDescriptorSetLayout set_layout)
    : ctx_(ctx), push_bytes_(push_bytes) {
  HostPhaseScope timed(HostPhase::pipeline);
  // A diagnostic for the comparison with OptiX (docs/optix.md, Diagnostics::vk_rt_pipeline):
  // generic builds both hit groups and every shader (raydb's pipelines before they were fitted to
  // their primitives), lean fits them but sets no culling flag.
  const VkRtPipelineShape shape = ctx.diagnostics.vk_rt_pipeline;
  layout_ = make_layout(ctx, kRtStages, push_bytes, set_layout);
  bool generic = shape == VkRtPipelineShape::generic;
  bool triangles = generic || s.primitives != RtPrimitives::boxes;
  bool boxes = generic || s.primitives != RtPrimitives::triangles;

  std::vector<VkPipelineShaderStageCreateInfo> stages;
  auto add = [&](ShaderId id, VkShaderStageFlagBits kind) {
    VkPipelineShaderStageCreateInfo st{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    st.stage = kind;
    std::span<const uint32_t> code = kind == VK_SHADER_STAGE_RAYGEN_BIT_KHR    ? s.raygen_code
                                     : kind == VK_SHADER_STAGE_MISS_BIT_KHR    ? s.miss_code
                                     : kind == VK_SHADER_STAGE_ANY_HIT_BIT_KHR ? s.any_hit_code
                                     : kind == VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR
                                         ? s.closest_hit_code
                                         : s.intersection_code;
    st.module = make_module(ctx, code.empty() ? spirv(id) : code);
    st.pName = "main";
    stages.push_back(st);
    return static_cast<uint32_t>(stages.size() - 1);
  };
  constexpr uint32_t kUnused = VK_SHADER_UNUSED_KHR;
  uint32_t raygen = add(s.raygen, VK_SHADER_STAGE_RAYGEN_BIT_KHR);
  uint32_t miss = add(s.miss, VK_SHADER_STAGE_MISS_BIT_KHR);
  uint32_t any_hit =
      generic || s.uses_any_hit ? add(s.any_hit, VK_SHADER_STAGE_ANY_HIT_BIT_KHR) : kUnused;
  uint32_t closest_hit = triangles && (generic || s.uses_closest_hit)
                             ? add(s.closest_hit, VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR)
                             : kUnused;
  uint32_t intersection =
      boxes ? add(s.intersection, VK_SHADER_STAGE_INTERSECTION_BIT_KHR) : kUnused;

  auto group = [](VkRayTracingShaderGroupTypeKHR type, uint32_t general, uint32_t any_hit,
                  uint32_t closest_hit, uint32_t isect) {
    VkRayTracingShaderGroupCreateInfoKHR g{
        VK_STRUCTURE_TYPE_RAY_TRACING_SHADER_GROUP_CREATE_INFO_KHR};
    g.type = type;
    g.generalShader = general;
    g.closestHitShader = closest_hit;
    g.anyHitShader = any_hit;
    g.intersectionShader = isect;
    return g;
  };
  // Groups in SBT record order; `record[k]`: the group of record k (raygen, miss, triangles,
  // boxes), or -1 for a record left zero.
  std::vector<VkRayTracingShaderGroupCreateInfoKHR> groups = {
      group(VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR, raygen, kUnused, kUnused, kUnused),
      group(VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR, miss, kUnused, kUnused, kUnused)};
  int record[4] = {0, 1, -1, -1};
  if (triangles) {
    record[2] = static_cast<int>(groups.size());
    groups.push_back(group(VK_RAY_TRACING_SHADER_GROUP_TYPE_TRIANGLES_HIT_GROUP_KHR, kUnused,
                           any_hit, closest_hit, kUnused));
  }
  if (boxes) {
    record[3] = static_cast<int>(groups.size());
    groups.push_back(group(VK_RAY_TRACING_SHADER_GROUP_TYPE_PROCEDURAL_HIT_GROUP_KHR, kUnused,
                           any_hit, kUnused, intersection));
  }
  VkRayTracingPipelineCreateInfoKHR ci{VK_STRUCTURE_TYPE_RAY_TRACING_PIPELINE_CREATE_INFO_KHR};
  if (shape == VkRtPipelineShape::culled && ctx.primitive_culling && !(triangles && boxes))
    ci.flags = triangles ? VK_PIPELINE_CREATE_RAY_TRACING_SKIP_AABBS_BIT_KHR
                         : VK_PIPELINE_CREATE_RAY_TRACING_SKIP_TRIANGLES_BIT_KHR;
  ci.stageCount = static_cast<uint32_t>(stages.size());
  ci.pStages = stages.data();
  ci.groupCount = static_cast<uint32_t>(groups.size());
  ci.pGroups = groups.data();
  ci.maxPipelineRayRecursionDepth = 1;
  ci.layout = layout_;
  VkResult r = ctx.vk.vkCreateRayTracingPipelinesKHR(ctx.device, VK_NULL_HANDLE, VK_NULL_HANDLE, 1,
                                                     &ci, nullptr, &pipeline_);
  for (const auto& st : stages) ctx.vk.vkDestroyShaderModule(ctx.device, st.module, nullptr);
  vk_check(r, "vkCreateRayTracingPipelinesKHR");

  // Shader binding table: raygen | miss | hit group 0, hit group 1; each region base-aligned.
  const auto& p = ctx.rt_properties;
  uint32_t handle = p.shaderGroupHandleSize;
  uint64_t stride = align_up(handle, p.shaderGroupHandleAlignment);
  uint64_t base = p.shaderGroupBaseAlignment;
  std::vector<uint8_t> handles(groups.size() * handle);
  vk_check(ctx.vk.vkGetRayTracingShaderGroupHandlesKHR(ctx.device, pipeline_, 0, ci.groupCount,
                                                       handles.size(), handles.data()),
           "vkGetRayTracingShaderGroupHandlesKHR");
  uint64_t raygen_off = 0, miss_off = align_up(stride, base),
           hit_off = miss_off + align_up(stride, base);
  uint64_t total = hit_off + 2 * stride;
  Buffer staging(ctx, total + base, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::upload,
                 "SBT staging");
  sbt_ = Buffer(ctx, total + base,
                VK_BUFFER_USAGE_SHADER_BINDING_TABLE_BIT_KHR | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                MemoryUse::device, "shader binding table");
  // The buffer's address may not be base-aligned: place the table at the first aligned offset.
  uint64_t shift = align_up(sbt_.address(), base) - sbt_.address();
  auto* dst = staging.as<uint8_t>();
  std::memset(dst, 0, staging.size());
  const uint64_t offsets[4] = {raygen_off, miss_off, hit_off, hit_off + stride};
  for (int k = 0; k < 4; ++k)
    if (record[k] >= 0)
      std::memcpy(dst + shift + offsets[k], handles.data() + uint64_t(record[k]) * handle, handle);
  staging.flush();
  {
    CommandBatch batch(ctx);
    VkBufferCopy region{0, 0, staging.size()};
    ctx.vk.vkCmdCopyBuffer(batch.cmd(), staging.handle(), sbt_.handle(), 1, &region);
    batch.submit_and_wait();
  }
  VkDeviceAddress a = sbt_.address() + shift;
  raygen_ = {a + raygen_off, stride, stride};
  miss_ = {a + miss_off, stride, stride};
  hit_ = {a + hit_off, stride, 2 * stride};
}

RtPipeline::~RtPipeline() {
  if (pipeline_) ctx_.vk.vkDestroyPipeline(ctx_.device, pipeline_, nullptr);
  if (layout_) ctx_.vk.vkDestroyPipelineLayout(ctx_.device, layout_, nullptr);
}

uint32_t RtPipeline::max_width() const {
  const auto& l = ctx_.properties.limits;
  uint64_t w = uint64_t{l.maxComputeWorkGroupCount[0]} * l.maxComputeWorkGroupSize[0];
  w = std::min<uint64_t>(w, ctx_.rt_properties.maxRayDispatchInvocationCount);
  return static_cast<uint32_t>(std::min<uint64_t>(w, 1u << 30));
}

void RtPipeline::trace(VkCommandBuffer cmd, const void* push, uint32_t width, VkDescriptorSet set) {
  if (width == 0) return;
  ctx_.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, pipeline_);
  ctx_.vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, layout_, 0, 1, &set,
                                  0, nullptr);
  ctx_.vk.vkCmdPushConstants(cmd, layout_, kRtStages, 0, push_bytes_, push);
  ctx_.vk.vkCmdTraceRaysKHR(cmd, &raygen_, &miss_, &hit_, &callable_, width, 1, 1);
}

}  // namespace raydb::detail
