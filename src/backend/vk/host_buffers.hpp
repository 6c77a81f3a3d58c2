// The HostBuffers of a context (raydb/host_buffer.hpp), found by address: a lookup whose queries
// or results lie in one copies straight from or into it.
#pragma once

#include <cstdint>

#include "backend/vk/buffer.hpp"

namespace raydb::detail {

// The HostBuffer holding all of [p, p + bytes), and p's offset in it; nullptr if none does.
struct HostRange {
  const Buffer* buffer = nullptr;
  uint64_t offset = 0;
  explicit operator bool() const { return buffer != nullptr; }
};
HostRange find_host_buffer(VkContext& ctx, const void* p, uint64_t bytes);

}  // namespace raydb::detail
