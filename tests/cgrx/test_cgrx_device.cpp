// CgrxIndex over device-resident data (raydb/device_indexes.hpp), in both traversal modes and with
// small and large buckets: the checks every key index's device API gets (device_index_checks.hpp).
#include <doctest/doctest.h>

#include <string>

#include "device_index_checks.hpp"
#include "raydb/device_indexes.hpp"

using namespace raydb;
using namespace raydb::test;

namespace {

auto builder(TraversalMode mode, uint32_t bucket_size) {
  return [=](KeyWidth w, const DeviceSpan& k, const DeviceSpan& v, const DeviceSync& s) {
    CgrxBuildOptions o;
    o.traversal = mode;
    o.bucket_size = bucket_size;
    return cgrx_build(context(), w, k, v, o, s);
  };
}
auto record = [](CgrxIndex& i, VkCommandBuffer cmd, const DeviceSpan& q, const DeviceSpan& r) {
  return cgrx_record_lookup(i, cmd, q, r);
};
auto record_ranges = [](CgrxIndex& i, VkCommandBuffer cmd, const DeviceSpan& q,
                        const DeviceSpan& r) { return cgrx_record_lookup_ranges(i, cmd, q, r); };
auto submit_ranges = [](CgrxIndex& i, const DeviceSpan& q, const DeviceSpan& r,
                        const DeviceSync& s) { return cgrx_submit_lookup_ranges(i, q, r, s); };
auto submit = [](CgrxIndex& i, const DeviceSpan& q, const DeviceSpan& r, const DeviceSync& s) {
  return cgrx_submit_lookup(i, q, r, s);
};

}  // namespace

TEST_CASE("cgrx device: build from host buffers, lookups recorded into the host's command buffer") {
  for (TraversalMode mode : {TraversalMode::pipeline, TraversalMode::ray_query}) {
    if (!context().vk().supports(mode)) continue;
    const std::string mode_name = to_string(mode);
    CAPTURE(mode_name);
    for (uint32_t bucket : {4u, 64u}) {
      CAPTURE(bucket);
      check_recorded_lookups<uint32_t>(builder(mode, bucket), record, 2000, true);
      check_recorded_lookups<uint64_t>(builder(mode, bucket), record, 2000, true);
    }
    check_recorded_lookups<uint64_t>(builder(mode, 8), record, 300, false);  // values 0
    check_recorded_lookups<uint32_t>(builder(mode, 8), record, 1, true);     // the edges alone
  }
}

TEST_CASE("cgrx device: build and lookups ordered by the host's timeline semaphores") {
  check_semaphore_ordered(builder(TraversalMode::automatic, 16), submit);
}

TEST_CASE("cgrx device: wrong usage flags, too-small buffers and count 0 are named") {
  check_refusals(builder(TraversalMode::automatic, 16), record, submit, "cgrx_record_lookup");
}

TEST_CASE("cgrx device: range lookups from and into host buffers") {
  for (TraversalMode mode : {TraversalMode::pipeline, TraversalMode::ray_query}) {
    if (!context().vk().supports(mode)) continue;
    const std::string mode_name = to_string(mode);
    CAPTURE(mode_name);
    check_recorded_ranges<uint32_t>(builder(mode, 16), record_ranges, 1500);
    check_recorded_ranges<uint64_t>(builder(mode, 16), record_ranges, 1500);
  }
  check_semaphore_ordered(builder(TraversalMode::automatic, 16), submit_ranges, /*ranges=*/true);
}
