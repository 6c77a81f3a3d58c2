// Context::cuda and the backend choice: the same in every build (cuda::probe differs).
#include <fmt/format.h>

#include <mutex>

#include "backend/cuda/cuda.hpp"
#include "common/capture.hpp"

namespace raydb {

const char* to_string(Backend backend) {
  switch (backend) {
    case Backend::automatic:
      return "automatic";
    case Backend::vulkan:
      return "vulkan";
    case Backend::cuda:
      return "cuda";
  }
  return "?";
}

Result<Backend> parse_backend(std::string_view text) {
  if (text == "auto" || text == "automatic") return Backend::automatic;
  if (text == "vulkan") return Backend::vulkan;
  if (text == "cuda") return Backend::cuda;
  return Error(Errc::invalid_argument,
               fmt::format("unknown backend '{}' (expected auto, vulkan or cuda)", text));
}

const CudaSupport& Context::cuda() const {
  // The probe is made once, lazily, and may race an operator's first use on another thread.
  std::lock_guard lock(impl_->call_mutex);
  if (!impl_->cuda_support) impl_->cuda_support = detail::cuda::probe(*impl_);
  return *impl_->cuda_support;
}

Result<Backend> Context::resolve(Backend backend) const {
  if (backend == Backend::automatic) backend = impl_->backend;  // ContextOptions / RAYDB_BACKEND
  if (backend == Backend::vulkan) return backend;
  const CudaSupport& s = cuda();
  if (backend == Backend::automatic) return s.available ? Backend::cuda : Backend::vulkan;
  if (!s.available) return Error(Errc::unsupported, "the CUDA backend is unavailable: " + s.reason);
  return backend;
}

namespace detail::cuda {

void require(VkContext& ctx) {
  if (!ctx.cuda_support) ctx.cuda_support = probe(ctx);
  if (!ctx.cuda_support->available)
    throw Error(Errc::unsupported, "the CUDA backend is unavailable: " + ctx.cuda_support->reason);
}

bool use_cuda(VkContext& ctx, Backend backend) {
  if (backend == Backend::automatic) backend = ctx.backend;
  if (backend == Backend::vulkan) return false;
  if (!ctx.cuda_support) ctx.cuda_support = probe(ctx);
  if (backend == Backend::automatic) return ctx.cuda_support->available;
  require(ctx);
  return true;
}

Buffer kernel_buffer(VkContext& ctx, bool cuda, VkDeviceSize size, const std::string& name) {
  if (!cuda) return Buffer(ctx, size, kStorageUsage, MemoryUse::device, name);
  Buffer b = Buffer::exportable(ctx, size, kStorageUsage, name);
  map(ctx, b);
  return b;
}

}  // namespace detail::cuda

}  // namespace raydb
