#include "ops/rtscan/gpu_encoding.hpp"

#include <chrono>
#include <cstring>
#include <span>

#include "backend/vk/commands.hpp"
#include "backend/vk/radix_sort.hpp"

namespace raydb::detail::rtscan {

namespace {
struct RtScanCodeParams {
  uint64_t sorted_rows, codes;
  uint32_t rows, pad0;
};
static_assert(sizeof(RtScanCodeParams) == 24);
}  // namespace

GpuEncoding encode_on_gpu(VkContext& c, const Buffer& values, uint64_t n) {
  GpuEncoding out;
  out.codes =
      Buffer(c, std::max<uint64_t>(n * 4, 4), kStorageUsage, MemoryUse::device, "rtscan codes");
  if (n == 0) {
    out.table = raydb::rtscan::EncodedColumn::from_sorted_values({}).value();
    return out;
  }
  Buffer keys(c, n * 4, kStorageUsage, MemoryUse::device, "rtscan encoding keys");
  Buffer rows(c, n * 4, kStorageUsage, MemoryUse::device, "rtscan encoding rows");
  Buffer sorted(c, n * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                "rtscan sorted values");
  RadixSort sort(c);
  RadixSort::Temps temps;
  CommandBatch cb(c);
  VkCommandBuffer cmd = cb.cmd();
  GpuTimer timer(c, 2);
  timer.reset(cmd);
  uint32_t t0 = timer.mark(cmd);
  VkBufferCopy all{0, 0, n * 4};
  c.vk.vkCmdCopyBuffer(cmd, values.handle(), keys.handle(), 1, &all);
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
  sort.record(cmd, keys, rows, n, false, temps);
  compute_barrier(c, cmd);
  RtScanCodeParams p{rows.address(), out.codes.address(), static_cast<uint32_t>(n), 0};
  kernel(c, ShaderId::rtscan_codes, sizeof p).dispatch(cmd, &p, n);
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT, c);
  c.vk.vkCmdCopyBuffer(cmd, keys.handle(), sorted.handle(), 1, &all);
  uint32_t t1 = timer.mark(cmd);
  cb.submit_and_wait();
  out.gpu_ms = timer.ms(t0, t1);
  sorted.invalidate();
  auto h0 = std::chrono::steady_clock::now();
  out.table = raydb::rtscan::EncodedColumn::from_sorted_values(
                  std::span<const uint32_t>(sorted.as<uint32_t>(), n))
                  .value();
  out.host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - h0).count();
  return out;
}

std::vector<uint32_t> download_words(VkContext& c, const Buffer& src, uint64_t count) {
  std::vector<uint32_t> out(count);
  if (count == 0) return out;
  Buffer host(c, count * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
              "rtscan readback");
  CommandBatch cb(c);
  VkBufferCopy r{0, 0, count * 4};
  c.vk.vkCmdCopyBuffer(cb.cmd(), src.handle(), host.handle(), 1, &r);
  cb.submit_and_wait();
  host.invalidate();
  std::memcpy(out.data(), host.mapped(), count * 4);
  return out;
}

}  // namespace raydb::detail::rtscan
