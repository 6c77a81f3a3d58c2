#include "backend/vk/radix_sort.hpp"

#include "backend/vk/commands.hpp"

namespace raydb::detail {

namespace {
constexpr uint64_t kTile = 4096;       // elements per workgroup (RADIX_TILE)
constexpr uint64_t kScanBlock = 4096;  // values per scan workgroup
constexpr uint32_t kDigits = 256;
}  // namespace

void compute_barrier(VkContext& ctx, VkCommandBuffer cmd) {
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, ctx);
}

RadixSort::RadixSort(VkContext& ctx)
    : ctx_(ctx),
      histogram_(kernel(ctx, ShaderId::radix_histogram, sizeof(RadixParams))),
      scatter_(kernel(ctx, ShaderId::radix_scatter, sizeof(RadixParams))),
      scan_blocks_(kernel(ctx, ShaderId::scan_blocks, sizeof(ScanParams))),
      scan_add_(kernel(ctx, ShaderId::scan_add, sizeof(ScanParams))) {}

void RadixSort::record_exclusive_scan(VkCommandBuffer cmd, VkDeviceAddress data, uint64_t count,
                                      Temps& temps) {
  uint64_t blocks = (count + kScanBlock - 1) / kScanBlock;
  if (blocks <= 1) {
    ScanParams p{data, 0, static_cast<uint32_t>(count), 0};
    scan_blocks_.dispatch_groups(cmd, &p, 1);
    compute_barrier(ctx_, cmd);
    return;
  }
  temps.scan_levels.emplace_back(ctx_, blocks * 4, kStorageUsage, MemoryUse::device,
                                 "scan block sums");
  VkDeviceAddress sums = temps.scan_levels.back().address();
  ScanParams p{data, sums, static_cast<uint32_t>(count), 0};
  scan_blocks_.dispatch_groups(cmd, &p, blocks);
  compute_barrier(ctx_, cmd);
  record_exclusive_scan(cmd, sums, blocks, temps);
  scan_add_.dispatch_groups(cmd, &p, blocks);
  compute_barrier(ctx_, cmd);
}

void RadixSort::record(VkCommandBuffer cmd, const Buffer& keys, const Buffer& rows, uint64_t n,
                       bool key64, Temps& temps) {
  if (n == 0) return;
  uint64_t key_bytes = key64 ? 8 : 4;
  uint64_t tiles = (n + kTile - 1) / kTile;
  temps.keys = Buffer(ctx_, n * key_bytes, kStorageUsage, MemoryUse::device, "sort keys");
  temps.rows = Buffer(ctx_, n * 4, kStorageUsage, MemoryUse::device, "sort rows");
  temps.hist =
      Buffer(ctx_, tiles * kDigits * 4, kStorageUsage, MemoryUse::device, "sort histogram");
  const Buffer* key_bufs[2] = {&keys, &temps.keys};
  const Buffer* row_bufs[2] = {&rows, &temps.rows};
  uint32_t passes = key64 ? 8 : 4;  // even: the result lands back in `keys` / `rows`
  for (uint32_t pass = 0; pass < passes; ++pass) {
    uint32_t src = pass % 2, dst = 1 - src;
    RadixParams p{key_bufs[src]->address(),
                  key_bufs[dst]->address(),
                  pass == 0 ? 0 : row_bufs[src]->address(),
                  row_bufs[dst]->address(),
                  temps.hist.address(),
                  static_cast<uint32_t>(n),
                  8 * pass,
                  key64 ? 1u : 0u,
                  static_cast<uint32_t>(tiles)};
    histogram_.dispatch_groups(cmd, &p, tiles);
    compute_barrier(ctx_, cmd);
    record_exclusive_scan(cmd, temps.hist.address(), tiles * kDigits, temps);
    scatter_.dispatch_groups(cmd, &p, tiles);
    compute_barrier(ctx_, cmd);
  }
}

}  // namespace raydb::detail
