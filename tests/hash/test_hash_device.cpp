// HashIndex over device-resident data (raydb/device_indexes.hpp): the checks every key index's
// device API gets (device_index_checks.hpp).
#include <doctest/doctest.h>

#include "device_index_checks.hpp"
#include "raydb/device_indexes.hpp"

using namespace raydb;
using namespace raydb::test;

namespace {

auto build = [](KeyWidth w, const DeviceSpan& k, const DeviceSpan& v, const DeviceSync& s) {
  return hash_build(context(), w, k, v, {}, s);
};
auto record = [](HashIndex& i, VkCommandBuffer cmd, const DeviceSpan& q, const DeviceSpan& r) {
  return hash_record_lookup(i, cmd, q, r);
};
auto submit = [](HashIndex& i, const DeviceSpan& q, const DeviceSpan& r, const DeviceSync& s) {
  return hash_submit_lookup(i, q, r, s);
};

}  // namespace

TEST_CASE("hash device: build from host buffers, lookups recorded into the host's command buffer") {
  check_recorded_lookups<uint32_t>(build, record, 3000, true);
  check_recorded_lookups<uint64_t>(build, record, 3000, true);
  check_recorded_lookups<uint64_t>(build, record, 500, false);  // values 0
  check_recorded_lookups<uint32_t>(build, record, 1, true);     // the edges alone
}

TEST_CASE("hash device: build and lookups ordered by the host's timeline semaphores") {
  check_semaphore_ordered(build, submit);
}

TEST_CASE("hash device: wrong usage flags, too-small buffers and count 0 are named") {
  check_refusals(build, record, submit, "hash_record_lookup");
}
