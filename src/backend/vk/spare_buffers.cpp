#include "backend/vk/spare_buffers.hpp"

#include <mutex>

namespace raydb::detail {

namespace {

// Under ctx.release_mutex: an allocation that runs out of memory may drop them from any thread.
SpareBuffers& spares_of(VkContext& ctx) {
  if (!ctx.spares) ctx.spares = std::make_shared<SpareBuffers>();
  return *ctx.spares;
}

}  // namespace

Buffer SpareBuffers::take(VkContext& ctx, SpareSlot slot, VkDeviceSize bytes, bool exportable,
                          const std::function<Buffer()>& make) {
  Buffer b;
  {
    std::lock_guard lock(ctx.release_mutex);
    b = std::move(spares_of(ctx).kept_[static_cast<size_t>(slot)]);
  }
  if (b && b.size() == bytes && b.is_exportable() == exportable) {
    check_budget(ctx, b.allocation_size(), "a kept scratch buffer");
    ctx.track_allocation(static_cast<int64_t>(b.allocation_size()));
    b.tracked_ = true;
    return b;
  }
  ctx.release_later(std::move(b));  // another size or kind (untracked already)
  return make();
}

void SpareBuffers::keep(VkContext& ctx, SpareSlot slot, Buffer&& buffer) {
  if (!buffer) return;
  Buffer old;
  if (ctx.memory_budget == 0) {
    buffer.untrack();
    std::lock_guard lock(ctx.release_mutex);
    Buffer& kept = spares_of(ctx).kept_[static_cast<size_t>(slot)];
    old = std::move(kept.size() >= buffer.size() ? buffer : kept);
    if (buffer) kept = std::move(buffer);
  } else {
    old = std::move(buffer);
  }
  ctx.release_later(std::move(old));
}

bool SpareBuffers::drop(VkContext& ctx) {
  std::lock_guard lock(ctx.release_mutex);
  if (!ctx.spares) return false;
  bool any = false;
  for (Buffer& b : ctx.spares->kept_) {
    any = any || static_cast<bool>(b);
    b.reset();
  }
  return any;
}

}  // namespace raydb::detail
