// SortedIndex over device-resident data (raydb/device_indexes.hpp), in both search layouts: the
// checks every key index's device API gets (device_index_checks.hpp).
#include <doctest/doctest.h>

#include "device_index_checks.hpp"
#include "raydb/device_indexes.hpp"

using namespace raydb;
using namespace raydb::test;

namespace {

auto builder(SortedLayout layout) {
  return [layout](KeyWidth w, const DeviceSpan& k, const DeviceSpan& v, const DeviceSync& s) {
    SortedOptions o;
    o.layout = layout;
    return sorted_build(context(), w, k, v, o, s);
  };
}
auto record = [](SortedIndex& i, VkCommandBuffer cmd, const DeviceSpan& q, const DeviceSpan& r) {
  return sorted_record_lookup(i, cmd, q, r);
};
auto record_ranges = [](SortedIndex& i, VkCommandBuffer cmd, const DeviceSpan& q,
                        const DeviceSpan& r) { return sorted_record_lookup_ranges(i, cmd, q, r); };
auto submit_ranges = [](SortedIndex& i, const DeviceSpan& q, const DeviceSpan& r,
                        const DeviceSync& s) { return sorted_submit_lookup_ranges(i, q, r, s); };
auto submit = [](SortedIndex& i, const DeviceSpan& q, const DeviceSpan& r, const DeviceSync& s) {
  return sorted_submit_lookup(i, q, r, s);
};

}  // namespace

TEST_CASE(
    "sorted device: build from host buffers, lookups recorded into the host's command buffer") {
  for (SortedLayout layout : {SortedLayout::fences, SortedLayout::lines}) {
    const std::string layout_name = to_string(layout);
    CAPTURE(layout_name);
    check_recorded_lookups<uint32_t>(builder(layout), record, 3000, true);
    check_recorded_lookups<uint64_t>(builder(layout), record, 3000, true);
    check_recorded_lookups<uint64_t>(builder(layout), record, 500, false);  // values 0
    check_recorded_lookups<uint32_t>(builder(layout), record, 1, true);     // the edges alone
  }
}

TEST_CASE("sorted device: build and lookups ordered by the host's timeline semaphores") {
  check_semaphore_ordered(builder(SortedLayout::lines), submit);
}

TEST_CASE("sorted device: wrong usage flags, too-small buffers and count 0 are named") {
  check_refusals(builder(SortedLayout::fences), record, submit, "sorted_record_lookup");
}

TEST_CASE("sorted device: range lookups from and into host buffers") {
  for (SortedLayout layout : {SortedLayout::fences, SortedLayout::lines}) {
    const std::string layout_name = to_string(layout);
    CAPTURE(layout_name);
    check_recorded_ranges<uint32_t>(builder(layout), record_ranges, 2000);
    check_recorded_ranges<uint64_t>(builder(layout), record_ranges, 2000);
  }
  check_semaphore_ordered(builder(SortedLayout::fences), submit_ranges, /*ranges=*/true);
}
