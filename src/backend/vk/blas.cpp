#include "backend/vk/blas.hpp"

#include <algorithm>
#include <optional>

namespace raydb::detail {

void record_blas_builds(VkContext& ctx, VkCommandBuffer cmd, GpuTimer& timer,
                        std::vector<uint32_t>& marks, std::span<const BlasBuild> builds,
                        std::span<AccelStruct> targets, VkDeviceAddress scratch, bool update) {
  for (size_t k = 0; k < builds.size(); ++k) {
    if (k > 0)  // the previous build must be done reading primitives and scratch
      memory_barrier(cmd, VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                     VK_ACCESS_ACCELERATION_STRUCTURE_READ_BIT_KHR |
                         VK_ACCESS_ACCELERATION_STRUCTURE_WRITE_BIT_KHR,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                         VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                     VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_ACCELERATION_STRUCTURE_WRITE_BIT_KHR,
                     ctx);
    marks.push_back(timer.mark(cmd));
    if (builds[k].prepare) builds[k].prepare(cmd);
    marks.push_back(timer.mark(cmd));
    AccelStruct& target = targets[k];
    record_build(ctx, cmd, builds[k].req, target, scratch, update ? &target : nullptr);
    marks.push_back(timer.mark(cmd));
  }
}

BlasMemory make_blas_memory(VkContext& ctx, std::span<const BlasBuild> builds) {
  BlasMemory m;
  VkDeviceSize scratch_bytes = 0;
  for (const BlasBuild& b : builds) {
    auto sizes = build_sizes(ctx, b.req);
    scratch_bytes = std::max(scratch_bytes, sizes.buildScratchSize);
    m.targets.emplace_back(ctx, VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR,
                           sizes.accelerationStructureSize, b.name);
  }
  if (!builds.empty()) m.scratch.ensure(ctx, scratch_bytes);
  return m;
}

std::vector<AccelStruct> build_blas(VkContext& ctx, std::span<const BlasBuild> builds,
                                    BlasTimes& times, Buffer* inputs, BlasMemory* memory,
                                    double compact_min_saving) {
  times = {};
  std::vector<AccelStruct> built;
  if (builds.empty()) return built;
  const bool compaction =
      (builds[0].req.flags & VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_COMPACTION_BIT_KHR) != 0;
  for (const BlasBuild& b : builds)
    if (((b.req.flags & VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_COMPACTION_BIT_KHR) != 0) !=
        compaction)
      throw Error(Errc::internal, "build_blas: some requests allow compaction, others not");
  std::optional<CompactedSizes> sizes;
  if (compaction) sizes.emplace(ctx, static_cast<uint32_t>(builds.size()));
  {
    BlasMemory own;
    if (!memory) {
      own = make_blas_memory(ctx, builds);
      memory = &own;
    }
    if (memory->targets.size() != builds.size())
      throw Error(Errc::internal, "build_blas: the memory made ahead is for other requests");
    built = std::move(memory->targets);
    for (const AccelStruct& b : built) times.uncompacted_bytes += b.bytes();
    Scratch& scratch = memory->scratch;
    CommandBatch batch(ctx);
    GpuTimer timer(ctx, static_cast<uint32_t>(3 * builds.size()));
    timer.reset(batch.cmd());
    if (sizes) sizes->record_reset(batch.cmd());
    std::vector<uint32_t> marks;
    record_blas_builds(ctx, batch.cmd(), timer, marks, builds, built, scratch.aligned_address,
                       false);
    accel_write_barrier(ctx, batch.cmd());
    if (sizes) sizes->record_query(batch.cmd(), built);
    batch.submit_and_wait();
    for (size_t k = 0; k < builds.size(); ++k) {
      times.prepare_ms += timer.ms(marks[3 * k], marks[3 * k + 1]);
      times.build_ms += timer.ms(marks[3 * k + 1], marks[3 * k + 2]);
    }
    ctx.release_later(std::move(scratch.buffer));
  }
  if (inputs) ctx.release_later(std::move(*inputs));
  if (!sizes) return built;
  const std::vector<VkDeviceSize> compacted_sizes = sizes->read();
  for (VkDeviceSize b : compacted_sizes) times.compacted_bytes += b;
  if (static_cast<double>(times.compacted_bytes) >
      (1.0 - compact_min_saving) * static_cast<double>(times.uncompacted_bytes))
    return built;
  std::vector<AccelStruct> compacted = compact(ctx, built, compacted_sizes, times.compact_ms);
  for (AccelStruct& s : built) s.release_later();
  return compacted;
}

AccelStruct build_blas(VkContext& ctx, const BlasBuild& build, BlasTimes& times, Buffer* inputs,
                       double compact_min_saving) {
  return std::move(build_blas(ctx, std::span<const BlasBuild>(&build, 1), times, inputs, nullptr,
                              compact_min_saving)[0]);
}

}  // namespace raydb::detail
