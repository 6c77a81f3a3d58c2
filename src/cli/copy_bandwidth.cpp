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
struct StreamParams {  // shaders/common/stream_words.comp
  uint64_t src, dst;
  uint32_t count, write, value, pad0;
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

// Each pass in its own command buffer, as a query's kernels are timed, so that its time includes
// the ramp-up and tail of one dispatch of this size.
StreamTimes stream_times(const Context& ctx, uint64_t bytes) {
  using namespace detail;
  VkContext& c = ctx.vk();
  StreamTimes out;
  out.bytes = std::max<uint64_t>(16, std::min<uint64_t>(bytes, uint64_t{16} << 31) & ~uint64_t{15});
  Buffer a(c, out.bytes, kStorageUsage, MemoryUse::device, "stream source");
  Buffer b(c, out.bytes, kStorageUsage, MemoryUse::device, "stream target");
  {
    CommandBatch cb(c);  // 0x5A in every byte: the read pass's XOR of 4 words is 0, never 1
    c.vk.vkCmdFillBuffer(cb.cmd(), a.handle(), 0, out.bytes, 0x5A5A5A5Au);
    cb.submit_and_wait();
  }
  auto count = static_cast<uint32_t>(out.bytes / 16);
  StreamParams read{a.address(), b.address(), count, 0, 1, 0};
  StreamParams write{a.address(), b.address(), count, 1, 7, 0};
  CopyParams copy{a.address(), b.address(), count, 0};
  std::vector<double> read_ms, write_ms, copy_ms;
  auto time = [&](ShaderId id, const void* p, uint32_t size, std::vector<double>& ms, int r) {
    CommandBatch cb(c);
    GpuTimer timer(c, 2);
    timer.reset(cb.cmd());
    uint32_t t0 = timer.mark(cb.cmd());
    kernel(c, id, size).dispatch(cb.cmd(), p, count);
    uint32_t t1 = timer.mark(cb.cmd());
    cb.submit_and_wait();
    if (r > 0) ms.push_back(timer.ms(t0, t1));
  };
  for (int r = 0; r < 6; ++r) {  // the first run warms up
    time(ShaderId::stream_words, &read, sizeof read, read_ms, r);
    time(ShaderId::stream_words, &write, sizeof write, write_ms, r);
    time(ShaderId::copy_words, &copy, sizeof copy, copy_ms, r);
  }
  out.read_ms = median(read_ms);
  out.write_ms = median(write_ms);
  out.copy_ms = median(copy_ms);
  return out;
}

}  // namespace raydb::cli
