// Acceleration structures: geometry descriptions, sizes, builds, compaction, instances.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "backend/vk/buffer.hpp"

namespace raydb::detail {

class AccelStruct {
 public:
  AccelStruct() = default;
  AccelStruct(VkContext& ctx, VkAccelerationStructureTypeKHR type, VkDeviceSize size,
              const std::string& name);
  AccelStruct(AccelStruct&& o) noexcept { *this = std::move(o); }
  AccelStruct& operator=(AccelStruct&& o) noexcept;
  ~AccelStruct() { reset(); }
  void reset();
  // Destroys the handle now and frees the storage on the context's release queue; the GPU must
  // be done with it.
  void release_later();

  VkAccelerationStructureKHR handle() const { return handle_; }
  VkDeviceAddress address() const { return address_; }
  VkDeviceSize bytes() const { return storage_.size(); }

 private:
  VkContext* ctx_ = nullptr;
  Buffer storage_;
  VkAccelerationStructureKHR handle_ = VK_NULL_HANDLE;
  VkDeviceAddress address_ = 0;
};

VkAccelerationStructureGeometryKHR triangle_geometry(VkDeviceAddress vertices,
                                                     uint32_t primitive_count,
                                                     VkGeometryFlagsKHR flags);
VkAccelerationStructureGeometryKHR aabb_geometry(VkDeviceAddress boxes, VkGeometryFlagsKHR flags);
VkAccelerationStructureGeometryKHR instance_geometry(VkDeviceAddress instances);

struct BuildRequest {
  VkAccelerationStructureTypeKHR type = VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR;
  VkAccelerationStructureGeometryKHR geometry{};
  uint32_t primitive_count = 0;
  VkBuildAccelerationStructureFlagsKHR flags = 0;
};

VkAccelerationStructureBuildSizesInfoKHR build_sizes(VkContext& ctx, const BuildRequest& req);

// A scratch buffer aligned for builds; reusable across builds separated by barriers.
struct Scratch {
  Buffer buffer;
  VkDeviceAddress aligned_address = 0;
  VkDeviceSize usable = 0;
  void ensure(VkContext& ctx, VkDeviceSize bytes);
};

// Records a build (or, with `update_source`, an in-place update) of `dst`.
void record_build(VkContext& ctx, VkCommandBuffer cmd, const BuildRequest& req,
                  const AccelStruct& dst, VkDeviceAddress scratch,
                  const AccelStruct* update_source = nullptr);

// Barrier between acceleration-structure writes and whatever reads them next (builds, traces).
void accel_write_barrier(VkContext& ctx, VkCommandBuffer cmd);

// The compacted sizes of structures built with ALLOW_COMPACTION, written by the GPU in the same
// submission as their builds: a separate query would cost a round trip per build.
class CompactedSizes {
 public:
  CompactedSizes(VkContext& ctx, uint32_t count);
  CompactedSizes(const CompactedSizes&) = delete;
  CompactedSizes& operator=(const CompactedSizes&) = delete;
  ~CompactedSizes();
  // Before the builds in the command buffer: the pool's queries must be reset before they are
  // written.
  void record_reset(VkCommandBuffer cmd);
  // After the builds and accel_write_barrier.
  void record_query(VkCommandBuffer cmd, std::span<const AccelStruct> structures);
  // Once the submission has run: one size per structure, in bytes.
  std::vector<VkDeviceSize> read();

 private:
  VkContext& ctx_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
  uint32_t count_;
};

// Copies structures[k] into a new structure of sizes[k] bytes (its compacted size, from
// CompactedSizes) in one submission, and returns the copies. `gpu_ms` receives the copies' GPU
// time.
std::vector<AccelStruct> compact(VkContext& ctx, std::span<AccelStruct> structures,
                                 std::span<const VkDeviceSize> sizes, double& gpu_ms);

// An instance of `blas` with the identity transform, visible to every ray mask and with culling
// off (every operator's rays may meet either face); `sbt_offset` picks the hit group (RtPipeline:
// 0 triangles, 1 boxes); `extra_flags` adds instance flags such as FORCE_OPAQUE.
VkAccelerationStructureInstanceKHR identity_instance(const AccelStruct& blas, uint32_t sbt_offset,
                                                     VkGeometryInstanceFlagsKHR extra_flags = 0);

// Builds a top-level structure (prefer fast trace) over `instances`: uploads them, builds, and
// waits. `gpu_ms` receives the build's GPU time. An empty span builds an empty TLAS.
AccelStruct build_tlas(VkContext& ctx,
                       std::span<const VkAccelerationStructureInstanceKHR> instances,
                       const std::string& name, double& gpu_ms);

}  // namespace raydb::detail
