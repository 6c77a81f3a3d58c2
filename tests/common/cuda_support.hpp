// Shared by the CUDA tests: the skip rule, moving data in and out of buffers shared with CUDA
// (ordered by the context's timeline semaphore, not by host waits), and the Vulkan twins run on
// the same inputs.
#pragma once

#include <cstring>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "ops/dpbis/dpbis_params.hpp"
#include "ops/scan/scan_impl.hpp"
#include "support.hpp"

namespace raydb::test {

// Whether the CUDA path can be exercised; otherwise says why, in the words bench/gpu/cuda.sh
// looks for.
inline bool cuda_or_skip() {
  const CudaSupport& s = context().cuda();
  if (!s.available) MESSAGE("skipped: no CUDA device (" << s.reason << ")");
  return s.available;
}

// A buffer shared with CUDA holding `data` (at least `min_bytes`); the upload pass signals the
// shared timeline and later CUDA work waits for it on the GPU.
template <class T>
detail::Buffer shared_upload(const std::vector<T>& data, size_t min_bytes = 0) {
  using namespace detail;
  VkContext& c = context().vk();
  size_t bytes = std::max(data.size() * sizeof(T), min_bytes);
  Buffer b = Buffer::exportable(c, std::max<size_t>(bytes, 4), kStorageUsage, "test shared");
  Buffer staging;
  CommandBatch cb(c);
  c.vk.vkCmdFillBuffer(cb.cmd(), b.handle(), 0, VK_WHOLE_SIZE, 0);
  memory_barrier(cb.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, c);
  record_upload(c, cb.cmd(), staging, b, data.data(), data.size() * sizeof(T));
  if (c.cuda) cuda::cuda_after(c, cb);
  cb.submit_and_wait();
  return b;
}

// The first n elements of a buffer; where CUDA runs, the copy waits for the CUDA work enqueued so
// far through the shared timeline.
template <class T>
std::vector<T> download(const detail::Buffer& b, size_t n) {
  using namespace detail;
  VkContext& c = context().vk();
  std::vector<T> out(n);
  Buffer host(c, std::max<size_t>(n * sizeof(T), 4), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
              MemoryUse::readback, "test readback");
  CommandBatch cb(c);
  if (b.is_exportable() && c.cuda) cuda::vulkan_after(c, cb);
  VkBufferCopy r{0, 0, n * sizeof(T)};
  if (n) c.vk.vkCmdCopyBuffer(cb.cmd(), b.handle(), host.handle(), 1, &r);
  cb.submit_and_wait();
  host.invalidate();
  if (n) std::memcpy(out.data(), host.mapped(), n * sizeof(T));
  return out;
}

// One Vulkan compute kernel over the given push constants, waited for.
template <class Params>
void run_vulkan(detail::ShaderId shader, const Params& p, uint64_t items) {
  using namespace detail;
  VkContext& c = context().vk();
  CommandBatch cb(c);
  if (items) kernel(c, shader, sizeof(Params)).dispatch(cb.cmd(), &p, items);
  cb.submit_and_wait();
}

// Push constants of the Vulkan twins, as the operators declare them.
using detail::BitmapOpParams;
using detail::CandidatesParams;
using detail::SelectParams;
using detail::SieveParams;
using detail::VectorsParams;

}  // namespace raydb::test
