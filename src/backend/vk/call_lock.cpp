#include "backend/vk/call_lock.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "backend/vk/context_impl.hpp"

namespace raydb::detail {

void check_not_lost(const VkContext& ctx) {
  if (ctx.device_lost.load())
    throw Error(Errc::device_lost,
                fmt::format("device '{}' was lost (VK_ERROR_DEVICE_LOST) by an earlier call: "
                            "this Context can no longer be used; create a new one",
                            ctx.info.name));
}

CallLock::CallLock(VkContext& ctx) : ctx_(ctx), lock_(ctx.call_mutex) {
  check_not_lost(ctx);  // a throw here releases lock_; no destructor runs, so no bookkeeping yet
  if (ctx.call_depth++ == 0) ctx.call_owner.store(std::this_thread::get_id());
}

CallLock::~CallLock() {
  if (--ctx_.call_depth == 0) ctx_.call_owner.store(std::thread::id());
}

bool CallLock::held(const VkContext& ctx) {
  return ctx.call_owner.load() == std::this_thread::get_id();
}

void mark_lost(VkContext& ctx) {
  ctx.device_lost.store(true);
}

void inject_device_loss(Context& ctx, unsigned submits_first) {
  ctx.vk().submits_before_loss.store(submits_first);
}

void fail_if_loss_injected(VkContext& ctx) {
  int64_t n = ctx.submits_before_loss.load();
  while (n >= 0 && !ctx.submits_before_loss.compare_exchange_weak(n, n - 1)) {
  }
  if (n != 0) return;
  mark_lost(ctx);
  vk_fail(VK_ERROR_DEVICE_LOST, "vkQueueSubmit (device loss injected by the test hook)");
}

}  // namespace raydb::detail
