// The per-Context call lock (raydb/context.hpp, thread-safety) and the device-loss refusal, taken
// by every public operator call that reaches a Context's device.
#pragma once

#include <mutex>

#include "common/capture.hpp"
#include "raydb/context.hpp"

namespace raydb::detail {

struct VkContext;

// Holds the context's call mutex (recursive: a join calls its index under the same lock) for its
// lifetime. Throws Errc::device_lost (and holds nothing) once the context's device is lost (a
// submit or wait returned VK_ERROR_DEVICE_LOST, or inject_device_loss was used).
class CallLock {
 public:
  explicit CallLock(VkContext& ctx);
  CallLock(const CallLock&) = delete;
  CallLock& operator=(const CallLock&) = delete;
  ~CallLock();

  // Whether the calling thread holds ctx's call lock.
  static bool held(const VkContext& ctx);

 private:
  VkContext& ctx_;
  std::unique_lock<std::recursive_mutex> lock_;
};

// capture() under the context's call lock: the public operator calls use this.
template <class F>
auto guarded(VkContext& ctx, F&& f) {
  return capture([&]() -> decltype(f()) {
    CallLock lock(ctx);
    return f();
  });
}

// Throws Errc::device_lost, naming why, once the context's device is lost.
void check_not_lost(const VkContext& ctx);

// Records a VK_ERROR_DEVICE_LOST seen on this context, so that every later call refuses.
void mark_lost(VkContext& ctx);

// Test hook (compiled into every build; tests/test_faults.cpp): after `submits_first` more
// command submissions on this context, the next one fails with VK_ERROR_DEVICE_LOST as a real
// device loss would, without reaching the driver, and the context then refuses every later call
// with Errc::device_lost. Irreversible.
void inject_device_loss(Context& ctx, unsigned submits_first = 0);
// Called before every vkQueueSubmit: throws the loss inject_device_loss armed, when it is due.
void fail_if_loss_injected(VkContext& ctx);

}  // namespace raydb::detail
