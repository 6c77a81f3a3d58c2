// Large temporaries a context keeps between calls for the next call that needs the same kind.
// A build's upload and sort buffers are the case: keys and row ids shared with CUDA take ~3 ms
// per 256 MiB to make on an H100 (cuMemCreate and the import into Vulkan), and Vulkan's own
// allocations hold the copy queue's submissions while they run (staged_upload.hpp); kept, the
// next build of that size makes none of them (docs/e2e.md).
#pragma once

#include <array>
#include <functional>

#include "backend/vk/buffer.hpp"

namespace raydb::detail {

enum class SpareSlot {
  sort_keys,          // a build's uploaded keys, sorted in place
  sort_rows,          // the row ids the sort pairs with them
  upload_values,      // a build's uploaded values, before the records gather them
  sort_scratch_keys,  // the radix sort's other half (RadixSort::Temps)
  sort_scratch_rows,
  count
};

// The kept buffers of one context (VkContext::spares), under its release_mutex: an allocation
// that runs out of memory may drop them from any thread.
//
// Accounting: a kept buffer is not counted in allocated_bytes (as if freed) and is counted again
// when taken (as if made, budget check included), so budgets, peaks and the build statistics read
// the same whether a buffer was made or reused. With a memory budget nothing is kept: the
// budget then bounds what the context holds. An allocation that fails for lack of memory frees
// them (VkContext::drain_releases).
class SpareBuffers {
 public:
  // The buffer kept in `slot` when it has exactly `bytes` and `is_exportable()` as asked (a caller
  // may keep what it takes, sized as if made), else `make()`; a kept one that does not fit is
  // freed on the release queue.
  static Buffer take(VkContext& ctx, SpareSlot slot, VkDeviceSize bytes, bool exportable,
                     const std::function<Buffer()>& make);
  // Keeps `buffer` (its GPU work done) in `slot` in place of what it held, unless the context has
  // a memory budget or the slot holds a larger one; what is not kept goes to the release queue.
  static void keep(VkContext& ctx, SpareSlot slot, Buffer&& buffer);
  // Frees every kept buffer now; whether there was one.
  static bool drop(VkContext& ctx);

 private:
  std::array<Buffer, static_cast<size_t>(SpareSlot::count)> kept_;
};

}  // namespace raydb::detail
