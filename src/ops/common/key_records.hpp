// Lays a key column out on the GPU as one 16-byte record (key, row id, value) per key
// (shaders/common/records.glsl): uploaded, radix-sorted by key (or left in row order), with a
// check for duplicate keys. Shared by every operator that indexes keys.
#pragma once

#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "backend/vk/radix_sort.hpp"
#include "raydb/keys.hpp"

namespace raydb::detail {

inline constexpr uint64_t kKeyRecordBytes = 16;
// Row ids are 32-bit and 2^32 - 1 marks a miss, so an index holds at most this many keys.
inline constexpr uint64_t kMaxIndexedKeys = 0xFFFFFFFEull;

// What every key index checks before building: the key count fits 32-bit row ids, the value
// column (when given) has one value per key, a non-empty column has data.
void validate_key_column(KeySpan keys, std::span<const uint32_t> values);

struct KeyRecordParams {
  uint64_t prim_keys, rows, values, records, sorted_keys, duplicates, keys_out;
  uint32_t n, key64;
};
static_assert(sizeof(KeyRecordParams) == 64);

// Whether a key-order build also returns the keys alone, ascending (4 or 8 bytes each). A search
// over this dense column touches 4x (2x) fewer bytes than one over the records, so more of its top
// levels stay in cache.
enum class SortedKeys {
  none,
  // The sort's own buffer, which the caller hands back (SpareBuffers::keep, SpareSlot::sort_keys)
  // once it is done with it during the build: the next build then makes none.
  lent,
  // A buffer of the caller's own, written beside the records. (Where CUDA sorts, the sort's
  // buffer is memory shared with CUDA, ~3 ms per 256 MiB to make on an H100; this one is
  // Vulkan's own, and the sort's stays with the context for the next build.)
  owned,
};

struct KeyRecords {
  Buffer records;
  Buffer sorted_keys;    // with key_order and SortedKeys::lent or owned
  bool unique = true;    // no key appears twice
  double upload_ms = 0;  // GPU time of the column uploads
  double sort_ms = 0;    // GPU time of the sort and the record layout
};

// Keys and values already in device buffers (raydb/device_buffers.hpp): copied from there instead
// of uploaded from host memory, with the first submission ordered by the host's timeline points.
struct DeviceColumnSource {
  VkBuffer keys = VK_NULL_HANDLE;
  VkDeviceSize keys_offset = 0;
  VkBuffer values = VK_NULL_HANDLE;  // none: values are 0
  VkDeviceSize values_offset = 0;
  std::vector<std::pair<VkSemaphore, uint64_t>> wait, signal;
};

class KeyRecordBuilder {
 public:
  // `backend`: who sorts the keys (automatic: the context's choice; cuda: Errc::unsupported where
  // CUDA cannot run). `optix_twin`: the records go in memory shared with CUDA where the OptiX
  // backend is built and CUDA sorts, for an OptiX twin (RX with api = optix, cgRX) to read;
  // otherwise Vulkan's own, which is allocated and freed several times faster (1 GiB: about 10 ms
  // each way shared, 2-3 ms not, on the H200).
  explicit KeyRecordBuilder(VkContext& ctx, Backend backend = Backend::automatic,
                            bool optix_twin = false);
  // `values` may be empty (values are then 0); otherwise one per key. With key_order false the
  // records stay in row order (record p is row p) and only the duplicate check sorts a copy.
  // With `source`, keys.data is unused (keys.size and keys.width count) and so is `values`.
  // `while_uploading` is for the caller's own allocations, so that they overlap the GPU's work: it
  // runs once the upload is submitted, or, from ordinary host memory (where the upload goes in
  // pieces whose submissions an allocation would hold up), once the sort is.
  KeyRecords build(KeySpan keys, std::span<const uint32_t> values, bool key_order, const char* name,
                   SortedKeys sorted_keys = SortedKeys::none,
                   const DeviceColumnSource* source = nullptr,
                   const std::function<void()>& while_uploading = {});

 private:
  VkContext& ctx_;
  Backend backend_;
  bool optix_twin_;
  RadixSort sorter_;
  ComputePipeline& layout_;
};

}  // namespace raydb::detail
