// The device's copy bandwidth, measured with GPU timestamps in the same run as the kernels it is
// compared with.
#include <algorithm>

#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "cli/cli.hpp"

namespace raydb::cli {

namespace {
struct CopyParams {
  uint64_t src, dst;
  uint32_t count, pad0;
};
}  // namespace

// The faster of vkCmdCopyBuffer and a compute-shader copy (on NVIDIA the former reached a third
// of the latter), counting bytes read and written.
double copy_bandwidth_gbps(const Context& ctx, uint64_t bytes) {
  using namespace detail;
  VkContext& c = ctx.vk();
  bytes = std::min<uint64_t>(bytes, uint64_t{16} << 31) & ~uint64_t{15};
  Buffer a(c, bytes, kStorageUsage, MemoryUse::device, "bandwidth source");
  Buffer b(c, bytes, kStorageUsage, MemoryUse::device, "bandwidth target");
  ComputePipeline& copy = kernel(c, ShaderId::copy_words, sizeof(CopyParams));
  CopyParams p{a.address(), b.address(), static_cast<uint32_t>(bytes / 16), 0};
  std::vector<double> transfer_ms, compute_ms;
  for (int r = 0; r < 6; ++r) {  // the first run warms up
    CommandBatch cb(c);
    GpuTimer timer(c, 4);
    timer.reset(cb.cmd());
    if (r == 0) c.vk.vkCmdFillBuffer(cb.cmd(), a.handle(), 0, bytes, 0x5A5A5A5Au);
    uint32_t t0 = timer.mark(cb.cmd());
    VkBufferCopy region{0, 0, bytes};
    c.vk.vkCmdCopyBuffer(cb.cmd(), a.handle(), b.handle(), 1, &region);
    uint32_t t1 = timer.mark(cb.cmd());
    copy.dispatch(cb.cmd(), &p, p.count);
    uint32_t t2 = timer.mark(cb.cmd());
    cb.submit_and_wait();
    if (r > 0) {
      transfer_ms.push_back(timer.ms(t0, t1));
      compute_ms.push_back(timer.ms(t1, t2));
    }
  }
  double ms = std::min(median(transfer_ms), median(compute_ms));
  return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

}  // namespace raydb::cli
