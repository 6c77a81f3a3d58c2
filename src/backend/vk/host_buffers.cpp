#include "backend/vk/host_buffers.hpp"

#include <fmt/format.h>

#include "common/capture.hpp"
#include "raydb/host_buffer.hpp"

namespace raydb {

using detail::Buffer;
using detail::VkContext;

struct HostBuffer::Impl {
  std::shared_ptr<VkContext> ctx;
  Buffer buffer;
  uint64_t bytes = 0;
  ~Impl() {
    std::lock_guard<std::mutex> lock(ctx->host_buffers_mutex);
    ctx->host_buffers.erase(reinterpret_cast<uintptr_t>(buffer.mapped()));
  }
};

Result<HostBuffer> HostBuffer::allocate(const Context& ctx, uint64_t bytes) {
  return detail::capture([&]() -> HostBuffer {
    auto impl = std::make_unique<Impl>();
    impl->ctx = ctx.shared();
    impl->bytes = bytes;
    // Host-cached like the lookup slots: the caller reads results at memory speed.
    impl->buffer = Buffer(*impl->ctx, bytes, detail::kStorageUsage, detail::MemoryUse::readback,
                          fmt::format("host buffer ({} bytes)", bytes), /*copy_queues=*/true);
    {
      std::lock_guard<std::mutex> lock(impl->ctx->host_buffers_mutex);
      impl->ctx->host_buffers[reinterpret_cast<uintptr_t>(impl->buffer.mapped())] = &impl->buffer;
    }
    return HostBuffer(std::move(impl));
  });
}

HostBuffer::HostBuffer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HostBuffer::HostBuffer(HostBuffer&&) noexcept = default;
HostBuffer& HostBuffer::operator=(HostBuffer&&) noexcept = default;
HostBuffer::~HostBuffer() = default;

void* HostBuffer::data() const {
  return impl_ ? impl_->buffer.mapped() : nullptr;
}
uint64_t HostBuffer::size() const {
  return impl_ ? impl_->bytes : 0;
}

}  // namespace raydb

namespace raydb::detail {

HostRange find_host_buffer(VkContext& ctx, const void* p, uint64_t bytes) {
  if (!p) return {};
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(ctx.host_buffers_mutex);
  auto it = ctx.host_buffers.upper_bound(at);
  if (it == ctx.host_buffers.begin()) return {};
  --it;
  const uint64_t offset = at - it->first;
  if (offset + bytes > it->second->size()) return {};
  return {it->second, offset};
}

}  // namespace raydb::detail
