// The device's copy bandwidth, measured with GPU timestamps in the same run as the kernels it is
// compared with.
#include "backend/vk/commands.hpp"
#include "cli/cli.hpp"

namespace raydb::cli {

double copy_bandwidth_gbps(const Context& ctx, uint64_t bytes) {
  using namespace detail;
  VkContext& c = ctx.vk();
  Buffer a(c, bytes, kStorageUsage, MemoryUse::device, "bandwidth source");
  Buffer b(c, bytes, kStorageUsage, MemoryUse::device, "bandwidth target");
  std::vector<double> ms;
  for (int r = 0; r < 6; ++r) {  // the first run warms up
    CommandBatch cb(c);
    GpuTimer timer(c, 2);
    timer.reset(cb.cmd());
    if (r == 0) c.vk.vkCmdFillBuffer(cb.cmd(), a.handle(), 0, bytes, 0x5A5A5A5Au);
    uint32_t t0 = timer.mark(cb.cmd());
    VkBufferCopy region{0, 0, bytes};
    c.vk.vkCmdCopyBuffer(cb.cmd(), a.handle(), b.handle(), 1, &region);
    uint32_t t1 = timer.mark(cb.cmd());
    cb.submit_and_wait();
    if (r > 0) ms.push_back(timer.ms(t0, t1));
  }
  return 2.0 * static_cast<double>(bytes) / (median(ms) * 1e-3) / 1e9;
}

}  // namespace raydb::cli
