#include "backend/vk/radix_sort.hpp"

#include <string>

#include "backend/vk/commands.hpp"
#include "backend/vk/limits.hpp"

namespace raydb::detail {

namespace {
constexpr uint64_t kTile = RadixSort::kTile;
constexpr uint64_t kScanBlock = 4096;  // values per scan workgroup
constexpr uint32_t kDigits = 256;

void ensure(VkContext& ctx, Buffer& b, uint64_t bytes, const char* name) {
  if (!b || b.size() < bytes) b = Buffer(ctx, bytes, kStorageUsage, MemoryUse::device, name);
}
}  // namespace

void compute_barrier(VkContext& ctx, VkCommandBuffer cmd) {
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, ctx);
}

bool supports_ranked_scatter(const VkContext& ctx) {
  // Counters for at most 32 subgroups fit the shader's staging memory; a subgroup of more than
  // 128 lanes does not fit a ballot.
  return has_subgroup_operations(ctx,
                                 VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                     VK_SUBGROUP_FEATURE_SHUFFLE_BIT |
                                     VK_SUBGROUP_FEATURE_ARITHMETIC_BIT,
                                 8, 128);
}

namespace {
RadixScatter resolve(const VkContext& ctx, RadixScatter scatter) {
  const bool ranked = supports_ranked_scatter(ctx);
  if (scatter == RadixScatter::ranked && !ranked)
    throw Error(Errc::unsupported,
                "the ranked radix scatter needs subgroups of 8 to 128 lanes with ballot, shuffle "
                "and arithmetic operations in compute shaders; this device lacks them");
  if (scatter == RadixScatter::best) return ranked ? RadixScatter::ranked : RadixScatter::rounds;
  return scatter;
}
}  // namespace

RadixSort::RadixSort(VkContext& ctx, RadixScatter scatter)
    : ctx_(ctx),
      kind_(resolve(ctx, scatter)),
      histogram_(kernel(ctx, ShaderId::radix_histogram, sizeof(RadixParams))),
      scatter_(kernel(
          ctx,
          kind_ == RadixScatter::ranked ? ShaderId::radix_scatter_ranked : ShaderId::radix_scatter,
          sizeof(RadixParams))),
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
  VkDeviceAddress sums = scan_level(temps, blocks * 4).address();
  ScanParams p{data, sums, static_cast<uint32_t>(count), 0};
  scan_blocks_.dispatch_groups(cmd, &p, blocks);
  compute_barrier(ctx_, cmd);
  record_exclusive_scan(cmd, sums, blocks, temps);
  scan_add_.dispatch_groups(cmd, &p, blocks);
  compute_barrier(ctx_, cmd);
}

const Buffer& RadixSort::scan_level(Temps& temps, uint64_t bytes) {
  if (temps.scan_used == temps.scan_levels.size()) temps.scan_levels.emplace_back();
  Buffer& b = temps.scan_levels[temps.scan_used++];
  ensure(ctx_, b, bytes, "scan block sums");
  return b;
}

void RadixSort::reserve(Temps& temps, uint64_t n, bool key64) {
  temps.rewind();
  if (n == 0) return;
  uint64_t tiles = (n + kTile - 1) / kTile;
  ensure(ctx_, temps.keys, n * (key64 ? 8 : 4), "sort keys");
  ensure(ctx_, temps.rows, n * 4, "sort rows");
  ensure(ctx_, temps.hist, tiles * kDigits * 4, "sort histogram");
  // The levels record_exclusive_scan takes for the histogram's scan.
  for (uint64_t count = tiles * kDigits; count > kScanBlock;) {
    count = (count + kScanBlock - 1) / kScanBlock;
    scan_level(temps, count * 4);
  }
  temps.rewind();
}

void RadixSort::record(VkCommandBuffer cmd, const Buffer& keys, const Buffer& rows, uint64_t n,
                       bool key64, Temps& temps, uint32_t first_bit) {
  if (n == 0) return;
  const uint32_t key_bits = key64 ? 64 : 32;
  if (first_bit % 16 != 0 || first_bit >= key_bits)
    throw Error(Errc::internal, "radix sort: first_bit " + std::to_string(first_bit) +
                                    " is not a multiple of 16 below the key's " +
                                    std::to_string(key_bits) + " bits");
  uint64_t key_bytes = key64 ? 8 : 4;
  uint64_t tiles = (n + kTile - 1) / kTile;
  // Reused where large enough: a Temps that an earlier record() in the same command buffer used
  // is free again, since every pass ends with a barrier.
  ensure(ctx_, temps.keys, n * key_bytes, "sort keys");
  ensure(ctx_, temps.rows, n * 4, "sort rows");
  ensure(ctx_, temps.hist, tiles * kDigits * 4, "sort histogram");
  const size_t first_level = temps.scan_used;
  const Buffer* key_bufs[2] = {&keys, &temps.keys};
  const Buffer* row_bufs[2] = {&rows, &temps.rows};
  // 8 bits a pass; an even count, so the result lands back in `keys` / `rows`.
  const uint32_t passes = (key_bits - first_bit) / 8;
  for (uint32_t pass = 0; pass < passes; ++pass) {
    uint32_t src = pass % 2, dst = 1 - src;
    RadixParams p{key_bufs[src]->address(),
                  key_bufs[dst]->address(),
                  pass == 0 ? 0 : row_bufs[src]->address(),
                  row_bufs[dst]->address(),
                  temps.hist.address(),
                  static_cast<uint32_t>(n),
                  first_bit + 8 * pass,
                  key64 ? 1u : 0u,
                  static_cast<uint32_t>(tiles)};
    temps.scan_used = first_level;  // the passes run one after another: they share the levels
    record_pass(cmd, p, temps);
  }
}

void RadixSort::record_pass(VkCommandBuffer cmd, const RadixParams& p, Temps& temps) {
  histogram_.dispatch_groups(cmd, &p, p.num_tiles);
  compute_barrier(ctx_, cmd);
  record_exclusive_scan(cmd, p.hist, uint64_t{p.num_tiles} * kDigits, temps);
  scatter_.dispatch_groups(cmd, &p, p.num_tiles);
  compute_barrier(ctx_, cmd);
}

void RadixSort::record_digit(VkCommandBuffer cmd, VkDeviceAddress source, const Buffer& keys,
                             const Buffer& rows, uint64_t n, bool key64, Temps& temps,
                             uint32_t shift) {
  if (n == 0) return;
  const uint32_t key_bits = key64 ? 64 : 32;
  // The ranked scatter takes a digit from one 32-bit half of the key.
  if (shift + 8 > key_bits || (shift & 31u) + 8 > 32)
    throw Error(Errc::internal, "radix sort: a digit at bit " + std::to_string(shift) +
                                    " is not within one 32-bit half of a " +
                                    std::to_string(key_bits) + "-bit key");
  uint64_t tiles = (n + kTile - 1) / kTile;
  ensure(ctx_, temps.hist, tiles * kDigits * 4, "sort histogram");
  RadixParams p{source,         keys.address(),       0,
                rows.address(), temps.hist.address(), static_cast<uint32_t>(n),
                shift,          key64 ? 1u : 0u,      static_cast<uint32_t>(tiles)};
  record_pass(cmd, p, temps);
}

}  // namespace raydb::detail
