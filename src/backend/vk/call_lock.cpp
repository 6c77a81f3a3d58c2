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

uint64_t memory_budget_of(const ContextOptions& options) {
  if (options.memory_budget_bytes) return options.memory_budget_bytes;
  const char* env = std::getenv("RAYDB_MEMORY_BUDGET");
  if (!env || !*env) return 0;
  std::string text = env;
  // Digits only: strtoull would take "-1" as 2^64 - 1 and ignore trailing text.
  bool digits = text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
  uint64_t v = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
  if (!digits || (text.size() == 20 && text > "18446744073709551615"))
    throw Error(Errc::invalid_argument,
                fmt::format("RAYDB_MEMORY_BUDGET='{}': expected a number of bytes (digits only)",
                            text.substr(0, 40)));
  return v;
}

void inject_device_loss(Context& ctx) {
  ctx.vk().lose_on_next_submit.store(true);
}

}  // namespace raydb::detail
