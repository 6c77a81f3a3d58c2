#include "ops/rtscan/gpu_encoding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <span>

#include "backend/vk/commands.hpp"
#include "backend/vk/radix_sort.hpp"
#include "raydb/error.hpp"

namespace raydb::detail::rtscan {

namespace {
struct RtScanCodeParams {
  uint64_t sorted_rows, codes;
  uint32_t rows, pad0;
};
static_assert(sizeof(RtScanCodeParams) == 24);

struct RtScanTableParams {
  uint64_t sorted_values, slots, values, lo_codes, distinct;
  uint32_t rows, stage;
};
static_assert(sizeof(RtScanTableParams) == 48);

double host_ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

GpuEncoding encode_on_gpu(VkContext& c, const Buffer& values, uint64_t n) {
  auto h0 = std::chrono::steady_clock::now();
  GpuEncoding out;
  out.codes =
      Buffer(c, std::max<uint64_t>(n * 4, 4), kStorageUsage, MemoryUse::device, "rtscan codes");
  if (n == 0) {
    out.table = raydb::rtscan::EncodedColumn::from_sorted_values({}).value();
    out.host_ms = host_ms_since(h0);
    return out;
  }
  Buffer keys(c, n * 4, kStorageUsage, MemoryUse::device, "rtscan encoding keys");
  Buffer rows(c, n * 4, kStorageUsage, MemoryUse::device, "rtscan encoding rows");
  Buffer table_values(c, n * 4, kStorageUsage, MemoryUse::device, "rtscan table values");
  Buffer table_codes(c, n * 4, kStorageUsage, MemoryUse::device, "rtscan table codes");
  Buffer distinct(c, 4, kStorageUsage, MemoryUse::device, "rtscan distinct values");
  Buffer distinct_host(c, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                       "rtscan distinct values readback");
  RadixSort sort(c);
  RadixSort::Temps temps;
  {  // sort, codes, and the table on the device; only its length comes back
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
    compute_barrier(c, cmd);
    // The row ids are spent: their buffer takes the start flags, then the table slots.
    RtScanTableParams tp{keys.address(),
                         rows.address(),
                         table_values.address(),
                         table_codes.address(),
                         distinct.address(),
                         static_cast<uint32_t>(n),
                         0};
    ComputePipeline& table = kernel(c, ShaderId::rtscan_table, sizeof tp);
    table.dispatch(cmd, &tp, n);
    compute_barrier(c, cmd);
    sort.record_exclusive_scan(cmd, rows.address(), n, temps);
    tp.stage = 1;
    table.dispatch(cmd, &tp, n);
    memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT, c);
    VkBufferCopy one{0, 0, 4};
    c.vk.vkCmdCopyBuffer(cmd, distinct.handle(), distinct_host.handle(), 1, &one);
    uint32_t t1 = timer.mark(cmd);
    cb.submit_and_wait();
    out.gpu_ms += timer.ms(t0, t1);
  }
  distinct_host.invalidate();
  const uint64_t d = distinct_host.as<uint32_t>()[0];
  if (d == 0 || d > n)
    throw Error(Errc::internal,
                fmt::format("GPU encoding found {} distinct values in {} rows", d, n));
  // The table to the host: d values, then d first codes (d = n only when every value differs),
  // through one mapped buffer of d words: pinned host memory costs time to allocate.
  Buffer table_host(c, d * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                    "rtscan table readback");
  auto fetch = [&](const Buffer& src) {
    CommandBatch cb(c);
    VkCommandBuffer cmd = cb.cmd();
    GpuTimer timer(c, 2);
    timer.reset(cmd);
    uint32_t t0 = timer.mark(cmd);
    VkBufferCopy part{0, 0, d * 4};
    c.vk.vkCmdCopyBuffer(cmd, src.handle(), table_host.handle(), 1, &part);
    uint32_t t1 = timer.mark(cmd);
    cb.submit_and_wait();
    out.gpu_ms += timer.ms(t0, t1);
    table_host.invalidate();
    const uint32_t* w = table_host.as<uint32_t>();
    return std::vector<uint32_t>(w, w + d);
  };
  std::vector<uint32_t> distinct_values = fetch(table_values);
  std::vector<uint32_t> lo_codes = fetch(table_codes);
  out.table =
      raydb::rtscan::EncodedColumn::from_table(n, std::move(distinct_values), std::move(lo_codes))
          .value();
  // Everything but the GPU's timed work: allocation, recording, submits and waits, the copy out of
  // the mapped table.
  out.host_ms = std::max(0.0, host_ms_since(h0) - out.gpu_ms);
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
