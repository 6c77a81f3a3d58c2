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
  uint64_t sorted_values, slots, values, lo_codes, distinct, bin_codes, bin_slots, borders;
  uint32_t rows, stage, bins, pad;
};
static_assert(sizeof(RtScanTableParams) == 80);

double host_ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

GpuEncoding encode_on_gpu(VkContext& c, const Buffer& values, uint64_t n, uint32_t bins) {
  auto h0 = std::chrono::steady_clock::now();
  GpuEncoding out;
  out.codes =
      Buffer(c, std::max<uint64_t>(n * 4, 4), kStorageUsage, MemoryUse::device, "rtscan codes");
  if (n == 0) {
    out.host_ms = host_ms_since(h0);
    return out;
  }
  Buffer keys(c, n * 4, kStorageUsage, MemoryUse::device, "rtscan encoding keys");
  Buffer rows(c, n * 4, kStorageUsage, MemoryUse::device, "rtscan encoding rows");
  out.values = Buffer(c, n * 4, kStorageUsage, MemoryUse::device, "rtscan table values");
  out.lo_codes = Buffer(c, n * 4, kStorageUsage, MemoryUse::device, "rtscan table codes");
  out.borders =
      Buffer(c, (uint64_t{bins} + 1) * 8, kStorageUsage, MemoryUse::device, "rtscan sieve borders");
  Buffer bin_codes(c, bins * 4, kStorageUsage, MemoryUse::device, "rtscan bin codes");
  Buffer bin_slots(c, bins * 4, kStorageUsage, MemoryUse::device, "rtscan bin slots");
  Buffer counts(c, 8, kStorageUsage, MemoryUse::device, "rtscan table counts");
  Buffer counts_host(c, 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                     "rtscan table counts readback");
  RadixSort sort(c);
  RadixSort::Temps temps, bin_temps;  // one per scan: a scan may resize its temporaries
  {  // sort, codes, table and borders on the device; only two counts come back
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
                         out.values.address(),
                         out.lo_codes.address(),
                         counts.address(),
                         bin_codes.address(),
                         bin_slots.address(),
                         out.borders.address(),
                         static_cast<uint32_t>(n),
                         0,
                         bins,
                         0};
    ComputePipeline& table = kernel(c, ShaderId::rtscan_table, sizeof tp);
    table.dispatch(cmd, &tp, n);
    compute_barrier(c, cmd);
    sort.record_exclusive_scan(cmd, rows.address(), n, temps);
    tp.stage = 1;
    table.dispatch(cmd, &tp, n);
    compute_barrier(c, cmd);
    tp.stage = 2;
    table.dispatch(cmd, &tp, bins);
    compute_barrier(c, cmd);
    sort.record_exclusive_scan(cmd, bin_slots.address(), bins, bin_temps);
    tp.stage = 3;
    table.dispatch(cmd, &tp, bins);
    memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT, c);
    VkBufferCopy two{0, 0, 8};
    c.vk.vkCmdCopyBuffer(cmd, counts.handle(), counts_host.handle(), 1, &two);
    uint32_t t1 = timer.mark(cmd);
    cb.submit_and_wait();
    out.gpu_ms += timer.ms(t0, t1);
  }
  counts_host.invalidate();
  out.distinct = counts_host.as<uint32_t>()[0];
  out.border_count = counts_host.as<uint32_t>()[1];
  if (out.distinct == 0 || out.distinct > n || out.border_count < 2 ||
      out.border_count > uint64_t{bins} + 1)
    throw Error(Errc::internal,
                fmt::format("GPU encoding found {} distinct values and {} sieving borders in {} "
                            "rows and {} bins",
                            out.distinct, out.border_count, n, bins));
  if (out.distinct < n) {  // the table stays on the device: keep only its d entries
    Buffer values_d(c, uint64_t{out.distinct} * 4, kStorageUsage, MemoryUse::device,
                    "rtscan table values");
    Buffer lo_codes_d(c, uint64_t{out.distinct} * 4, kStorageUsage, MemoryUse::device,
                      "rtscan table codes");
    CommandBatch cb(c);
    GpuTimer timer(c, 2);
    timer.reset(cb.cmd());
    uint32_t t0 = timer.mark(cb.cmd());
    VkBufferCopy part{0, 0, uint64_t{out.distinct} * 4};
    c.vk.vkCmdCopyBuffer(cb.cmd(), out.values.handle(), values_d.handle(), 1, &part);
    c.vk.vkCmdCopyBuffer(cb.cmd(), out.lo_codes.handle(), lo_codes_d.handle(), 1, &part);
    memory_barrier(cb.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_READ_BIT, c);
    uint32_t t1 = timer.mark(cb.cmd());
    cb.submit_and_wait();
    out.gpu_ms += timer.ms(t0, t1);
    out.values = std::move(values_d);
    out.lo_codes = std::move(lo_codes_d);
  }
  // Everything but the GPU's timed work: allocation, recording, submits and waits.
  out.host_ms = std::max(0.0, host_ms_since(h0) - out.gpu_ms);
  return out;
}

raydb::rtscan::EncodedColumn download_table(VkContext& c, const GpuEncoding& e, uint64_t n) {
  if (n == 0) return raydb::rtscan::EncodedColumn::from_sorted_values({}).value();
  return raydb::rtscan::EncodedColumn::from_table(n, download_words(c, e.values, e.distinct),
                                                  download_words(c, e.lo_codes, e.distinct))
      .value();
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
