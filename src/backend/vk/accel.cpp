#include "backend/vk/accel.hpp"

#include <algorithm>

#include "backend/vk/commands.hpp"

namespace raydb::detail {

AccelStruct::AccelStruct(VkContext& ctx, VkAccelerationStructureTypeKHR type, VkDeviceSize size,
                         const std::string& name)
    : ctx_(&ctx),
      storage_(ctx, size, VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_STORAGE_BIT_KHR, MemoryUse::device,
               name) {
  VkAccelerationStructureCreateInfoKHR ci{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_CREATE_INFO_KHR};
  ci.buffer = storage_.handle();
  ci.size = size;
  ci.type = type;
  vk_check(ctx.vk.vkCreateAccelerationStructureKHR(ctx.device, &ci, nullptr, &handle_),
           "vkCreateAccelerationStructureKHR");
  VkAccelerationStructureDeviceAddressInfoKHR ai{
      VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_DEVICE_ADDRESS_INFO_KHR};
  ai.accelerationStructure = handle_;
  address_ = ctx.vk.vkGetAccelerationStructureDeviceAddressKHR(ctx.device, &ai);
  ctx.set_name(VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR, reinterpret_cast<uint64_t>(handle_),
               "raydb " + name);
}

AccelStruct& AccelStruct::operator=(AccelStruct&& o) noexcept {
  if (this == &o) return *this;
  reset();
  ctx_ = o.ctx_;
  storage_ = std::move(o.storage_);
  handle_ = std::exchange(o.handle_, VK_NULL_HANDLE);
  address_ = std::exchange(o.address_, 0);
  return *this;
}

void AccelStruct::release_later() {
  if (handle_) ctx_->vk.vkDestroyAccelerationStructureKHR(ctx_->device, handle_, nullptr);
  handle_ = VK_NULL_HANDLE;
  address_ = 0;
  if (storage_) ctx_->release_later(std::move(storage_));
}

void AccelStruct::reset() {
  if (handle_) ctx_->vk.vkDestroyAccelerationStructureKHR(ctx_->device, handle_, nullptr);
  handle_ = VK_NULL_HANDLE;
  address_ = 0;
  storage_.reset();
}

VkAccelerationStructureGeometryKHR triangle_geometry(VkDeviceAddress vertices,
                                                     uint32_t primitive_count,
                                                     VkGeometryFlagsKHR flags) {
  VkAccelerationStructureGeometryKHR g{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
  g.geometryType = VK_GEOMETRY_TYPE_TRIANGLES_KHR;
  g.flags = flags;
  auto& t = g.geometry.triangles;
  t.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_TRIANGLES_DATA_KHR;
  t.vertexFormat = VK_FORMAT_R32G32B32_SFLOAT;
  t.vertexData.deviceAddress = vertices;
  t.vertexStride = 3 * sizeof(float);
  t.maxVertex = primitive_count == 0 ? 0 : 3 * primitive_count - 1;
  t.indexType = VK_INDEX_TYPE_NONE_KHR;
  return g;
}

VkAccelerationStructureGeometryKHR aabb_geometry(VkDeviceAddress boxes, VkGeometryFlagsKHR flags) {
  VkAccelerationStructureGeometryKHR g{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
  g.geometryType = VK_GEOMETRY_TYPE_AABBS_KHR;
  g.flags = flags;
  g.geometry.aabbs.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_AABBS_DATA_KHR;
  g.geometry.aabbs.data.deviceAddress = boxes;
  g.geometry.aabbs.stride = sizeof(VkAabbPositionsKHR);
  return g;
}

VkAccelerationStructureGeometryKHR instance_geometry(VkDeviceAddress instances) {
  VkAccelerationStructureGeometryKHR g{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
  g.geometryType = VK_GEOMETRY_TYPE_INSTANCES_KHR;
  g.geometry.instances.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_INSTANCES_DATA_KHR;
  g.geometry.instances.arrayOfPointers = VK_FALSE;
  g.geometry.instances.data.deviceAddress = instances;
  return g;
}

static VkAccelerationStructureBuildGeometryInfoKHR geometry_info(const BuildRequest& req) {
  VkAccelerationStructureBuildGeometryInfoKHR bi{
      VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR};
  bi.type = req.type;
  bi.flags = req.flags;
  bi.mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR;
  bi.geometryCount = 1;
  bi.pGeometries = &req.geometry;
  return bi;
}

VkAccelerationStructureBuildSizesInfoKHR build_sizes(VkContext& ctx, const BuildRequest& req) {
  auto bi = geometry_info(req);
  VkAccelerationStructureBuildSizesInfoKHR sizes{
      VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR};
  ctx.vk.vkGetAccelerationStructureBuildSizesKHR(ctx.device,
                                                 VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR,
                                                 &bi, &req.primitive_count, &sizes);
  return sizes;
}

void Scratch::ensure(VkContext& ctx, VkDeviceSize bytes) {
  VkDeviceSize align =
      std::max<VkDeviceSize>(ctx.as_properties.minAccelerationStructureScratchOffsetAlignment, 1);
  if (buffer && usable >= bytes) return;
  buffer = Buffer(ctx, bytes + align, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUse::device,
                  "build scratch");
  aligned_address = (buffer.address() + align - 1) / align * align;
  usable = bytes;
}

void record_build(VkContext& ctx, VkCommandBuffer cmd, const BuildRequest& req,
                  const AccelStruct& dst, VkDeviceAddress scratch,
                  const AccelStruct* update_source) {
  auto bi = geometry_info(req);
  if (update_source) {
    bi.mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_UPDATE_KHR;
    bi.srcAccelerationStructure = update_source->handle();
  }
  bi.dstAccelerationStructure = dst.handle();
  bi.scratchData.deviceAddress = scratch;
  VkAccelerationStructureBuildRangeInfoKHR range{};
  range.primitiveCount = req.primitive_count;
  const VkAccelerationStructureBuildRangeInfoKHR* ranges = &range;
  ctx.vk.vkCmdBuildAccelerationStructuresKHR(cmd, 1, &bi, &ranges);
}

void accel_write_barrier(VkContext& ctx, VkCommandBuffer cmd) {
  memory_barrier(cmd, VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                 VK_ACCESS_ACCELERATION_STRUCTURE_WRITE_BIT_KHR |
                     VK_ACCESS_ACCELERATION_STRUCTURE_READ_BIT_KHR,
                 VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR |
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                     VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR | VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_ACCELERATION_STRUCTURE_READ_BIT_KHR |
                     VK_ACCESS_ACCELERATION_STRUCTURE_WRITE_BIT_KHR | VK_ACCESS_SHADER_READ_BIT |
                     VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                 ctx);
}

CompactedSizes::CompactedSizes(VkContext& ctx, uint32_t count) : ctx_(ctx), count_(count) {
  VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qi.queryType = VK_QUERY_TYPE_ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR;
  qi.queryCount = std::max<uint32_t>(count, 1);
  vk_check(ctx.vk.vkCreateQueryPool(ctx.device, &qi, nullptr, &pool_),
           "vkCreateQueryPool (compacted size)");
}

CompactedSizes::~CompactedSizes() {
  ctx_.vk.vkDestroyQueryPool(ctx_.device, pool_, nullptr);
}

void CompactedSizes::record_reset(VkCommandBuffer cmd) {
  if (count_) ctx_.vk.vkCmdResetQueryPool(cmd, pool_, 0, count_);
}

void CompactedSizes::record_query(VkCommandBuffer cmd, std::span<const AccelStruct> structures) {
  if (structures.size() != count_)
    throw Error(Errc::internal, "CompactedSizes: a query for another number of structures");
  if (!count_) return;
  std::vector<VkAccelerationStructureKHR> handles;
  for (const AccelStruct& s : structures) handles.push_back(s.handle());
  ctx_.vk.vkCmdWriteAccelerationStructuresPropertiesKHR(
      cmd, count_, handles.data(), VK_QUERY_TYPE_ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR, pool_,
      0);
}

std::vector<VkDeviceSize> CompactedSizes::read() {
  std::vector<VkDeviceSize> sizes(count_);
  if (count_)
    vk_check(ctx_.vk.vkGetQueryPoolResults(
                 ctx_.device, pool_, 0, count_, count_ * sizeof(VkDeviceSize), sizes.data(),
                 sizeof(VkDeviceSize), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
             "vkGetQueryPoolResults (compacted size)");
  return sizes;
}

std::vector<AccelStruct> compact(VkContext& ctx, std::span<AccelStruct> structures,
                                 std::span<const VkDeviceSize> sizes, double& gpu_ms) {
  std::vector<AccelStruct> out;
  gpu_ms = 0;
  if (structures.empty()) return out;
  if (sizes.size() != structures.size())
    throw Error(Errc::internal, "compact: one size per structure");
  CommandBatch batch(ctx);
  GpuTimer timer(ctx, 2);
  timer.reset(batch.cmd());
  uint32_t t0 = timer.mark(batch.cmd());
  for (size_t k = 0; k < structures.size(); ++k) {
    out.emplace_back(ctx, VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR, sizes[k],
                     "compacted BLAS");
    VkCopyAccelerationStructureInfoKHR ci{VK_STRUCTURE_TYPE_COPY_ACCELERATION_STRUCTURE_INFO_KHR};
    ci.src = structures[k].handle();
    ci.dst = out.back().handle();
    ci.mode = VK_COPY_ACCELERATION_STRUCTURE_MODE_COMPACT_KHR;
    ctx.vk.vkCmdCopyAccelerationStructureKHR(batch.cmd(), &ci);
  }
  uint32_t t1 = timer.mark(batch.cmd());
  batch.submit_and_wait();
  gpu_ms = timer.ms(t0, t1);
  return out;
}

VkAccelerationStructureInstanceKHR identity_instance(const AccelStruct& blas, uint32_t sbt_offset,
                                                     VkGeometryInstanceFlagsKHR extra_flags) {
  VkAccelerationStructureInstanceKHR inst;
  std::memset(&inst, 0, sizeof inst);
  inst.transform.matrix[0][0] = inst.transform.matrix[1][1] = inst.transform.matrix[2][2] = 1.0f;
  inst.mask = 0xFF;
  inst.instanceShaderBindingTableRecordOffset = sbt_offset;
  inst.flags = VK_GEOMETRY_INSTANCE_TRIANGLE_FACING_CULL_DISABLE_BIT_KHR | extra_flags;
  inst.accelerationStructureReference = blas.address();
  return inst;
}

AccelStruct build_tlas(VkContext& ctx,
                       std::span<const VkAccelerationStructureInstanceKHR> instances,
                       const std::string& name, double& gpu_ms) {
  auto count = static_cast<uint32_t>(instances.size());
  Buffer buffer(
      ctx, std::max<size_t>(count, 1) * sizeof(VkAccelerationStructureInstanceKHR),
      kStorageUsage | VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR,
      MemoryUse::device, name + " instances");
  BuildRequest req;
  req.type = VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR;
  req.geometry = instance_geometry(buffer.address());
  req.primitive_count = count;
  req.flags = VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR;
  auto sizes = build_sizes(ctx, req);
  AccelStruct tlas(ctx, VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR,
                   sizes.accelerationStructureSize, name);
  Scratch scratch;
  scratch.ensure(ctx, sizes.buildScratchSize);
  CommandBatch batch(ctx);
  Buffer staging;
  if (count)
    record_upload(ctx, batch.cmd(), staging, buffer, instances.data(), instances.size_bytes());
  memory_barrier(batch.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR, VK_ACCESS_SHADER_READ_BIT,
                 ctx);
  GpuTimer timer(ctx, 2);
  timer.reset(batch.cmd());
  uint32_t t0 = timer.mark(batch.cmd());
  record_build(ctx, batch.cmd(), req, tlas, scratch.aligned_address);
  uint32_t t1 = timer.mark(batch.cmd());
  accel_write_barrier(ctx, batch.cmd());
  batch.submit_and_wait();
  gpu_ms = timer.ms(t0, t1);
  return tlas;
}

}  // namespace raydb::detail
