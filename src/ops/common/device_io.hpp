// What every operator's device-resident API (raydb/device_buffers.hpp, raydb/device_indexes.hpp)
// shares: the checks of the host's spans and semaphores, the key and value copy source of a
// build, the two global barriers around recorded work, and raydb's own submission under the
// host's timeline points.
#pragma once

#include <functional>
#include <memory>

#include "backend/vk/commands.hpp"
#include "ops/common/key_records.hpp"
#include "raydb/device_buffers.hpp"

namespace raydb::detail {

// Reaches the impl of an index whose public class names this struct its friend.
struct DeviceIndexAccess {
  template <class Index>
  static auto& impl(Index& index) {
    return *index.impl_;
  }
  template <class Index, class Impl>
  static Index make(std::unique_ptr<Impl> impl) {
    return Index(std::move(impl));
  }
};

// The checks every span gets before anything is recorded: a buffer, elements, the usage the
// access needs, an aligned offset, and the span inside the buffer (`too_small` when it is not).
void check_span(const DeviceSpan& s, const char* what, uint64_t element_bytes, uint64_t alignment,
                VkBufferUsageFlags needed, Errc too_small = Errc::invalid_argument);

// The span's first element's device address.
VkDeviceAddress address_of(const VkContext& c, const DeviceSpan& s);

// Every point names a semaphore, and the device has timeline semaphores if any point is given.
void check_timeline(const VkContext& c, const DeviceSync& sync);

// Checks a build's key span (of `width`) and value span (none, or one uint32_t per key) and the
// sync points; returns the source KeyRecordBuilder copies them from.
DeviceColumnSource build_source(const VkContext& c, KeyWidth width, const DeviceSpan& keys,
                                const DeviceSpan& values, const DeviceSync& sync);

// Checks lookup spans: keys of `width` (points) or (lo, hi) pairs of them (ranges) in, one
// RxLookup per query out.
void check_lookup_spans(KeyWidth width, const DeviceSpan& queries, const DeviceSpan& results,
                        bool ranges = false);

// Records `work` (run at `stage`) between the global barriers the headers promise: all earlier
// memory writes -> its shader reads and writes, and its shader writes -> all later accesses.
void record_between_barriers(VkContext& c, VkCommandBuffer cmd, VkPipelineStageFlags stage,
                             const std::function<void()>& work);

// `fn`'s refusal of a null command buffer.
void check_command_buffer(VkCommandBuffer cmd, const char* fn);

// An *_submit_lookup: checks `sync` (at least one signal point), records `record` into a new
// command buffer of the context's, submits it waiting on and signalling the points, and returns
// the submission; the index keeps it until the next one, and dropping it (under the context's
// call lock) waits for the GPU and frees the command buffer.
std::shared_ptr<void> submit_device_work(const std::shared_ptr<VkContext>& ctx,
                                         const DeviceSync& sync, const char* fn,
                                         const std::function<void(VkCommandBuffer)>& record);

}  // namespace raydb::detail
