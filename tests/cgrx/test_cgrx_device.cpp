// CgrxIndex over device-resident data (raydb/device_indexes.hpp), in both traversal modes and with
// small and large buckets: the checks every key index's device API gets (device_index_checks.hpp).
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

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

// The device build lays out its scene on the device; the host-vector build on the host. Both
// must give the same layout counts and ray window, and the device-built index the reference's
// lookups whole: the keys, their neighbours, the edges and random keys.
template <class Key>
void check_same_as_host_build(const std::vector<Key>& keys, uint32_t bucket, TraversalMode mode,
                              uint64_t seed) {
  ValidationGuard guard;
  CAPTURE(keys.size());
  CAPTURE(bucket);
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> values;
  for (size_t i = 0; i < keys.size(); ++i) values.push_back(static_cast<uint32_t>(rng()));
  std::vector<Key> queries;
  for (Key k : keys)
    for (int d = -1; d <= 1; ++d) queries.push_back(static_cast<Key>(k + d));
  for (uint64_t e : edge_keys(sizeof(Key) == 8))
    for (int d = -1; d <= 1; ++d) queries.push_back(static_cast<Key>(e + d));
  for (int i = 0; i < 500; ++i) queries.push_back(static_cast<Key>(rng()));
  CgrxBuildOptions o;
  o.traversal = mode;
  o.bucket_size = bucket;
  auto host = CgrxIndex::build(context(), KeySpan(std::span<const Key>(keys)), values, o);
  REQUIRE_MESSAGE(host.ok(), host.error().what());
  HostBuffer kb = upload(keys), vb = upload(values), qb = upload(queries);
  HostBuffer results = make_buffer(queries.size(), sizeof(RxLookup));
  poison(results);
  auto dev = cgrx_build(context(), width_of<Key>(), kb.span, vb.span, o);
  REQUIRE_MESSAGE(dev.ok(), dev.error().what());
  const CgrxBuildStats &h = host->build_stats(), &d = dev->build_stats();
  CHECK(d.buckets == h.buckets);
  CHECK(d.representatives == h.representatives);
  CHECK(d.row_markers == h.row_markers);
  CHECK(d.plane_markers == h.plane_markers);
  CHECK(d.ray_window == h.ray_window);
  CHECK(d.bvh_uncompacted_bytes == h.bvh_uncompacted_bytes);  // as many triangles
  CommandBatch batch(context().vk());
  Status s = cgrx_record_lookup(*dev, batch.cmd(), qb.span, results.span);
  REQUIRE_MESSAGE(s.ok(), s.error().what());
  batch.submit_and_wait();
  RxReference ref(std::span<const Key>(keys), values);
  const auto want = ref.lookup(std::span<const Key>(queries));
  check_lookups(download(results), want, "lookups of the device-laid-out index");
  // A wrong bucket in the scene still gives exact results (the probe's fallback search), so the
  // rays and fallbacks of the same lookups tell the two layouts apart: both must match, and the
  // device layout must need no fallback.
  auto via_host = host->lookup(KeySpan(std::span<const Key>(queries)));
  auto via_dev = dev->lookup(KeySpan(std::span<const Key>(queries)));
  REQUIRE_MESSAGE(via_dev.ok(), via_dev.error().what());
  REQUIRE(via_host.ok());
  check_lookups(*via_dev, want, "host-API lookups of the device-laid-out index");
  CHECK(dev->last_fallbacks() == 0);
  CHECK(dev->last_fallbacks() == host->last_fallbacks());
  CHECK(dev->last_stats().rays == host->last_stats().rays);
}

// Keys that share lines and planes closely (small gaps: a ray window), and the other edges.
template <class Key>
void check_layout_edges(TraversalMode mode) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const Key max = static_cast<Key>(~Key{0});
  std::vector<std::vector<Key>> sets;
  sets.push_back({static_cast<Key>(rng())});                           // one key
  sets.push_back(std::vector<Key>(300, static_cast<Key>(rng())));      // all equal
  sets.push_back({max, max, static_cast<Key>(max - 1), max, 0, max});  // max values
  std::vector<Key> clustered, wide;
  for (int i = 0; i < 1500; ++i) {
    uint64_t plane = sizeof(Key) == 8 ? (rng() % 3) << 46 : 0;
    Key k = static_cast<Key>(plane | (rng() % 5) << 23 | rng() % 4000);
    clustered.push_back(k);
    if (rng() % 3 == 0) clustered.push_back(k);  // duplicates
    wide.push_back(static_cast<Key>(rng()));
  }
  for (uint64_t e : edge_keys(sizeof(Key) == 8)) wide.push_back(static_cast<Key>(e));
  sets.push_back(clustered);
  sets.push_back(wide);
  for (const auto& keys : sets)
    for (uint32_t bucket : {2u, 16u}) check_same_as_host_build(keys, bucket, mode, seed + 1);
}

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

TEST_CASE(
    "cgrx device: the scene laid out on the device equals the host's, lookups compared whole") {
  for (TraversalMode mode : {TraversalMode::pipeline, TraversalMode::ray_query}) {
    if (!context().vk().supports(mode)) continue;
    const std::string mode_name = to_string(mode);
    CAPTURE(mode_name);
    check_layout_edges<uint32_t>(mode);
    check_layout_edges<uint64_t>(mode);
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
