// The host application's side of the device-resident API tests (raydb/device_buffers.hpp,
// raydb/device_indexes.hpp): buffers the "host" owns, filled and read back by its own copies, and
// fresh random data with duplicates and the edge keys.
#pragma once

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/vk/commands.hpp"
#include "raydb/device_buffers.hpp"
#include "support.hpp"

namespace raydb::test {

using detail::Buffer;
using detail::CommandBatch;
using detail::MemoryUse;

constexpr VkBufferUsageFlags kHostUsage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                          VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                          VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
// Spans start this far into their buffers, so that offsets are honoured.
constexpr VkDeviceSize kOffset = 64;

// A "host application's" buffer: device-local, filled by a copy, `count` elements at kOffset.
struct HostBuffer {
  Buffer buffer;
  DeviceSpan span;
};

inline HostBuffer make_buffer(uint64_t count, uint64_t element_bytes) {
  detail::VkContext& c = context().vk();
  uint64_t bytes = kOffset + count * element_bytes;
  HostBuffer h{Buffer(c, bytes, kHostUsage, MemoryUse::device, "test host buffer"), {}};
  h.span = {h.buffer.handle(), bytes, kHostUsage, kOffset, count};
  return h;
}

// Records the copy of `bytes` of host data to the span's start into `cmd`; `staging` must live
// until the batch has run.
inline void record_fill(CommandBatch& batch, Buffer& staging, const HostBuffer& dst,
                        const void* data, size_t bytes) {
  detail::record_upload(context().vk(), batch.cmd(), staging, dst.buffer, data, bytes, kOffset);
}

template <class T>
HostBuffer upload(const std::vector<T>& v) {
  HostBuffer h = make_buffer(v.size(), sizeof(T));
  CommandBatch batch(context().vk());
  Buffer staging;
  record_fill(batch, staging, h, v.data(), v.size() * sizeof(T));
  batch.submit_and_wait();
  return h;
}

// The test's own download of a result span (a copy to host-visible memory, then read).
inline std::vector<RxLookup> download(const HostBuffer& h) {
  detail::VkContext& c = context().vk();
  uint64_t bytes = h.span.count * sizeof(RxLookup);
  Buffer readback(c, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback, "test readback");
  CommandBatch batch(c);
  VkBufferCopy region{kOffset, 0, bytes};
  c.vk.vkCmdCopyBuffer(batch.cmd(), h.buffer.handle(), readback.handle(), 1, &region);
  batch.submit_and_wait();
  readback.invalidate();
  std::vector<RxLookup> out(h.span.count);
  std::memcpy(out.data(), readback.mapped(), bytes);
  return out;
}

// Poisons a result span, so that a lookup raydb failed to write cannot pass.
inline void poison(const HostBuffer& h) {
  detail::VkContext& c = context().vk();
  CommandBatch batch(c);
  c.vk.vkCmdFillBuffer(batch.cmd(), h.buffer.handle(), kOffset, h.span.count * sizeof(RxLookup),
                       0x5A5A5A5Au);
  batch.submit_and_wait();
}

// Fresh random keys with duplicates and the edge keys, values, and queries: every key, the
// edges and their neighbours, and random (mostly missing) keys.
template <class Key>
struct Data {
  std::vector<Key> keys, queries;
  std::vector<uint32_t> values;
  explicit Data(uint64_t seed, size_t n) {
    std::mt19937_64 rng(seed);
    const bool wide = sizeof(Key) == 8;
    for (uint64_t e : edge_keys(wide)) keys.push_back(static_cast<Key>(e));
    while (keys.size() < n) {
      Key k = static_cast<Key>(rng());
      keys.push_back(k);
      if (rng() % 4 == 0) keys.push_back(k);  // duplicates
    }
    std::shuffle(keys.begin(), keys.end(), rng);
    for (size_t i = 0; i < keys.size(); ++i) values.push_back(static_cast<uint32_t>(rng()));
    queries = keys;
    for (uint64_t e : edge_keys(wide))
      for (int d = -1; d <= 1; ++d) queries.push_back(static_cast<Key>(e + d));
    for (size_t i = 0; i < n; ++i) queries.push_back(static_cast<Key>(rng()));
    std::shuffle(queries.begin(), queries.end(), rng);
  }
};

// A refused call: its error's kind and the words its message must contain.
template <class R>
void expect_error(const R& r, Errc code, const std::string& words) {
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == code);
  CHECK_MESSAGE(std::string(r.error().what()).find(words) != std::string::npos, r.error().what());
}

}  // namespace raydb::test
