// The CUDA fast path as the rest of raydb sees it: no CUDA types here, so operators and tests
// compile the same with or without the CUDA backend (absent.cpp answers 'unavailable' then).
//
// Buffers shared with CUDA are made by shared_buffer (CUDA's memory, imported into Vulkan) or,
// where that is unsupported, Buffer::exportable (Vulkan's memory, which CUDA maps on first use).
// Work is enqueued on the context's one CUDA stream; Vulkan and CUDA work are ordered through the
// context's shared timeline semaphore (cuda_after / vulkan_after), never by the host waiting,
// except where a function says it blocks. Thread-safety: as for the Context.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/vk/buffer.hpp"
#include "backend/vk/commands.hpp"

namespace raydb::detail::cuda {

// Whether this binary has the CUDA backend compiled in.
bool built();

// Decides Context::cuda(): a CUDA device with the Vulkan device's UUID and the Vulkan interop
// extensions. On success it also creates ctx.cuda (device, stream, shared timeline).
CudaSupport probe(VkContext& ctx);

// Throws Errc::unsupported with Context::cuda()'s reason unless CUDA is available.
void require(VkContext& ctx);

// Builds without CUDA only (absent.cpp): throws Errc::unsupported saying raydb was built without
// CUDA; the operators' CUDA stubs (src/ops/<op>/cuda/*_absent.cpp) call it.
[[noreturn]] void unavailable();

// Whether an operator asked for `backend` runs its kernels in CUDA: automatic takes the
// context's backend, and that, if automatic too, CUDA where available. Asking for cuda where it
// is unavailable throws like require().
bool use_cuda(VkContext& ctx, Backend backend);

// A device buffer for data the chosen backend's kernels read or write: exportable for CUDA, and
// then already mapped into CUDA (map()), so no kernel launch pays for the import.
Buffer kernel_buffer(VkContext& ctx, bool cuda, VkDeviceSize size, const std::string& name);

// A device buffer shared with CUDA, allocated by CUDA (cuMemCreate) and imported into Vulkan,
// so that CUDA's kernels read it at full speed (shared_memory.cpp says why this direction). Its
// Buffer::cuda_mapping() holds the CUDA pointer from the start. Errc::unsupported where the
// driver or the Vulkan device cannot share memory this way.
Buffer shared_buffer(VkContext& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                     const std::string& name);

// Imports an exportable buffer into CUDA now, unless it is already (kernels otherwise do it on
// first use). The import (vkGetMemoryFdKHR, cudaImportExternalMemory, a mapping) is host work of
// the order of 0.1 ms or more; done between two CUDA events it would be timed as GPU time, because
// the stream sits idle meanwhile.
void map(VkContext& ctx, const Buffer& buffer);

// Vulkan -> CUDA: `batch` (not yet submitted) signals the shared timeline, and CUDA work
// enqueued after this call waits for that signal on the GPU.
void cuda_after(VkContext& ctx, CommandBatch& batch);
// CUDA -> Vulkan: the stream signals the shared timeline after the CUDA work enqueued so far, and
// `batch` (not yet submitted) waits for that on the GPU.
void vulkan_after(VkContext& ctx, CommandBatch& batch);
// Blocks the host until the context's CUDA stream has finished.
void finish(VkContext& ctx);
// Bytes the context's stream-ordered pool holds for the kernels' temporaries (kept between calls
// without a memory budget; VkContext::drain_releases frees them).
uint64_t pool_reserved_bytes(VkContext& ctx);

// Kernels over exportable buffers, each with the exact results of its Vulkan twin. Operators'
// own kernels are declared beside them (src/ops/<op>/cuda/*_cuda.hpp).

// Sets every byte of the buffer to 0.
void fill_zero(VkContext& ctx, const Buffer& buffer);

// RadixSort::record: sorts the first n 32- or 64-bit keys of `keys` in place, stably, and writes
// each key's original position to `rows`.
void sort_pairs(VkContext& ctx, const Buffer& keys, const Buffer& rows, uint64_t n, bool key64);
// bitmap_ops.comp over bitmaps of `rows` rows: a &= b, a |= b, a = ~a (bits past `rows` stay 0),
// or b[i] = popcount(a[i]) (op as scan_impl.hpp's BitmapOp).
void bitmap_op(VkContext& ctx, const Buffer& a, const Buffer* b, uint64_t rows, uint32_t op);
// Set bits of a bitmap of `rows` rows. Blocks.
uint64_t bitmap_count(VkContext& ctx, const Buffer& bitmap, uint64_t rows);
// Bitmap::row_ids: the set rows, ascending, into `out`; returns how many. Blocks (for the total).
// Errc::output_too_small when `out` cannot hold them (nothing is written then).
uint64_t bitmap_to_rows(VkContext& ctx, const Buffer& bitmap, uint64_t rows, const Buffer& out);
// Copies `bytes` host bytes into the start of an exportable buffer through CUDA. Blocks.
void upload(VkContext& ctx, const Buffer& dst, const void* src, uint64_t bytes);

// Benchmarks: from now on each Timer's first mark() is preceded on the stream by a kernel that
// keeps the GPU busy for `microseconds` (0: none, the default). The host then enqueues the timed
// kernels while the GPU is still held, so the events measure GPU work only, not the host's launch
// latency of the first kernel (nor gaps where the host fell behind), as Vulkan timestamps in one
// command buffer do; nvbench blocks its stream for the same reason.
void set_timer_hold(VkContext& ctx, double microseconds);
// Benchmarks: from now on (on = true) each Timer's first mark() is preceded on the stream by a
// read of twice the L2 cache's size from a scratch buffer, before any hold, so each timed region
// starts with none of its data in L2 (nvbench flushes L2 for the same reason, by writing; a read
// leaves no dirty lines for the timed region to write back). Returns the bytes read each time (0:
// off, the default). Not thread-safe against other calls on the context.
uint64_t set_timer_flush(VkContext& ctx, bool on);

class Timer {
 public:
  explicit Timer(VkContext& ctx, uint32_t capacity = 16);
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  ~Timer();
  uint32_t mark();
  double ms(uint32_t from, uint32_t to);

 private:
  VkContext& ctx_;
  std::shared_ptr<void> events_;
  uint32_t capacity_, used_ = 0;
};

}  // namespace raydb::detail::cuda
