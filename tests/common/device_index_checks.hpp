// The checks every key index's device-resident API gets (raydb/device_indexes.hpp), given its
// build, record and submit calls as callables:
//   build(KeyWidth, const DeviceSpan& keys, const DeviceSpan& values, const DeviceSync&)
//     -> Result<Index>
//   record(Index&, VkCommandBuffer, const DeviceSpan& queries, const DeviceSpan& results) -> Status
//   submit(Index&, const DeviceSpan& queries, const DeviceSpan& results, const DeviceSync&)
//     -> Status
// Results are downloaded by the test's own copy and compared whole with the CPU reference.
#pragma once

#include <optional>
#include <span>

#include "backend/vk/timeline.hpp"
#include "device_host.hpp"
#include "raydb/rx_reference.hpp"

namespace raydb::test {

template <class Key>
constexpr KeyWidth width_of() {
  return sizeof(Key) == 8 ? KeyWidth::bits64 : KeyWidth::bits32;
}

// Built from the host's buffers (with and without values), lookups recorded into the host's
// command buffer: `n` random keys with duplicates and the edges; queries hit, miss and sit
// beside the edges.
template <class Key, class Build, class Record>
void check_recorded_lookups(Build build, Record record, size_t n, bool with_values) {
  ValidationGuard guard;
  Data<Key> d(fresh_seed(), n);
  if (!with_values) d.values.clear();
  HostBuffer keys = upload(d.keys), queries = upload(d.queries);
  std::optional<HostBuffer> values;
  if (with_values) values = upload(d.values);
  HostBuffer results = make_buffer(d.queries.size(), sizeof(RxLookup));
  poison(results);
  auto index = build(width_of<Key>(), keys.span, values ? values->span : DeviceSpan{}, {});
  REQUIRE_MESSAGE(index.ok(), index.error().what());
  CHECK(index->size() == d.keys.size());
  CommandBatch batch(context().vk());
  Status s = record(*index, batch.cmd(), queries.span, results.span);
  REQUIRE_MESSAGE(s.ok(), s.error().what());
  batch.submit_and_wait();
  RxReference ref(std::span<const Key>(d.keys), d.values);
  check_lookups(download(results), ref.lookup(std::span<const Key>(d.queries)),
                "recorded device lookups");
}

// Range lookups recorded into the host's command buffer: (lo, hi) pairs in the host's buffer,
// from single keys and neighbours of keys to the whole key space, compared whole.
template <class Key, class Build, class RecordRanges>
void check_recorded_ranges(Build build, RecordRanges record, size_t n) {
  ValidationGuard guard;
  uint64_t seed = fresh_seed();
  Data<Key> d(seed, n);
  std::mt19937_64 rng(seed + 1);
  std::vector<KeyRange<Key>> ranges = {{0, static_cast<Key>(~Key{0})},
                                       {0, 0},
                                       {static_cast<Key>(~Key{0}), static_cast<Key>(~Key{0})}};
  for (size_t i = 0; i < 2 * n; ++i) {
    Key a = d.queries[rng() % d.queries.size()], b = d.queries[rng() % d.queries.size()];
    if (rng() % 2) b = static_cast<Key>(a + rng() % 64);  // short ranges (may wrap: swapped)
    ranges.push_back({std::min(a, b), std::max(a, b)});
  }
  HostBuffer keys = upload(d.keys), values = upload(d.values), queries = upload(ranges);
  HostBuffer results = make_buffer(ranges.size(), sizeof(RxLookup));
  poison(results);
  auto index = build(width_of<Key>(), keys.span, values.span, {});
  REQUIRE_MESSAGE(index.ok(), index.error().what());
  CommandBatch batch(context().vk());
  Status s = record(*index, batch.cmd(), queries.span, results.span);
  REQUIRE_MESSAGE(s.ok(), s.error().what());
  batch.submit_and_wait();
  RxReference ref(std::span<const Key>(d.keys), d.values);
  check_lookups(download(results), ref.lookup_ranges(std::span<const KeyRange<Key>>(ranges)),
                "recorded device range lookups");
}

// The host writes keys, values and queries in submissions of its own; the build and two
// submitted lookups wait for them and signal its timeline semaphore.
// With `ranges`, the queries are (lo, hi) pairs and `submit` a range lookup.
template <class Build, class Submit>
void check_semaphore_ordered(Build build, Submit submit, bool ranges = false) {
  ValidationGuard guard;
  detail::VkContext& c = context().vk();
  if (!c.timeline_semaphore) {
    MESSAGE("skipped: the device has no timeline semaphores");
    return;
  }
  Data<uint64_t> d(fresh_seed(), 2000);
  std::vector<Range64> pairs;  // ranges: each query to a little above it
  for (uint64_t q : d.queries)
    pairs.push_back({q, q + std::min<uint64_t>(~uint64_t{0} - q, 1 + q % 1000)});
  const uint64_t count = d.queries.size(), query_bytes = count * (ranges ? 16 : 8);
  const void* query_data = ranges ? static_cast<const void*>(pairs.data()) : d.queries.data();
  detail::Timeline timeline(c, false);
  HostBuffer keys = make_buffer(d.keys.size(), 8), values = make_buffer(d.values.size(), 4);
  HostBuffer queries = make_buffer(count, ranges ? 16 : 8);
  HostBuffer results = make_buffer(count, sizeof(RxLookup));
  poison(results);
  CommandBatch fill(c);
  Buffer s0, s1, s2;
  record_fill(fill, s0, keys, d.keys.data(), d.keys.size() * 8);
  record_fill(fill, s1, values, d.values.data(), d.values.size() * 4);
  record_fill(fill, s2, queries, query_data, query_bytes);
  fill.signal(timeline.handle(), 1);
  fill.submit();
  auto index = build(KeyWidth::bits64, keys.span, values.span,
                     DeviceSync{{{timeline.handle(), 1}}, {{timeline.handle(), 2}}});
  REQUIRE_MESSAGE(index.ok(), index.error().what());
  CHECK(timeline.counter() >= 2);
  Status s = submit(*index, queries.span, results.span,
                    DeviceSync{{{timeline.handle(), 2}}, {{timeline.handle(), 3}}});
  REQUIRE_MESSAGE(s.ok(), s.error().what());
  timeline.host_wait(3);
  fill.wait();
  RxReference ref(std::span<const uint64_t>(d.keys), d.values);
  const auto want = ranges ? ref.lookup_ranges(std::span<const Range64>(pairs))
                           : ref.lookup(std::span<const uint64_t>(d.queries));
  check_lookups(download(results), want, "semaphore-ordered device lookups");
  poison(results);  // a second submission on the same index
  s = submit(*index, queries.span, results.span,
             DeviceSync{{{timeline.handle(), 3}}, {{timeline.handle(), 4}}});
  REQUIRE_MESSAGE(s.ok(), s.error().what());
  timeline.host_wait(4);
  check_lookups(download(results), want, "second semaphore-ordered lookups");
}

// Refused spans and calls name their cause, and record nothing.
template <class Build, class Record, class Submit>
void check_refusals(Build build, Record record, Submit submit, const char* record_name) {
  ValidationGuard guard;
  std::vector<uint32_t> k = {5, 1, 9, 1};
  HostBuffer keys = upload(k), queries = upload(k);
  HostBuffer results = make_buffer(k.size(), sizeof(RxLookup));
  const KeyWidth w32 = KeyWidth::bits32;
  auto build_keys = [&](const DeviceSpan& s, const DeviceSpan& v = {}) {
    return build(w32, s, v, DeviceSync{});
  };

  DeviceSpan no_transfer = keys.span;
  no_transfer.usage = VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  expect_error(build_keys(no_transfer), Errc::invalid_argument, "TRANSFER_SRC");
  DeviceSpan empty = keys.span;
  empty.count = 0;
  expect_error(build_keys(empty), Errc::invalid_argument, "count 0");
  DeviceSpan past_end = keys.span;
  past_end.count = 1000;
  expect_error(build_keys(past_end), Errc::invalid_argument, "but the buffer holds");
  DeviceSpan misaligned = keys.span;
  misaligned.offset = 2;
  expect_error(build_keys(misaligned), Errc::invalid_argument, "not a multiple of 4");
  DeviceSpan short_values = keys.span;
  short_values.count = 3;
  expect_error(build_keys(keys.span, short_values), Errc::invalid_argument, "3 entries");
  expect_error(build(KeyWidth::bits64, keys.span, {}, DeviceSync{}), Errc::invalid_argument,
               "but the buffer holds");  // 4 32-bit keys are 2 64-bit ones: past the end

  auto index = build_keys(keys.span).value();
  CommandBatch batch(context().vk());
  DeviceSpan no_address = queries.span;
  no_address.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  expect_error(record(index, batch.cmd(), no_address, results.span), Errc::invalid_argument,
               "SHADER_DEVICE_ADDRESS");
  DeviceSpan few = results.span;
  few.count = 3;
  expect_error(record(index, batch.cmd(), queries.span, few), Errc::output_too_small,
               "4 lookups but the results span holds 3");
  DeviceSpan small_buffer = results.span;
  small_buffer.buffer_size = kOffset + 3 * sizeof(RxLookup);
  expect_error(record(index, batch.cmd(), queries.span, small_buffer), Errc::output_too_small,
               "but the buffer holds");
  DeviceSpan no_queries = queries.span;
  no_queries.count = 0;
  expect_error(record(index, batch.cmd(), no_queries, results.span), Errc::invalid_argument,
               "count 0");
  DeviceSpan misaligned_queries = queries.span;
  misaligned_queries.offset = kOffset + 2;
  expect_error(record(index, batch.cmd(), misaligned_queries, results.span), Errc::invalid_argument,
               "not a multiple of 4");
  DeviceSpan misaligned_results = results.span;
  misaligned_results.offset = kOffset + 8;
  expect_error(record(index, batch.cmd(), queries.span, misaligned_results), Errc::invalid_argument,
               "not a multiple of 16");
  expect_error(record(index, nullptr, queries.span, results.span), Errc::invalid_argument,
               std::string(record_name) + " needs a VkCommandBuffer");
  if (context().vk().timeline_semaphore)
    expect_error(submit(index, queries.span, results.span, DeviceSync{}), Errc::invalid_argument,
                 "signal");
  // Nothing was recorded by the refused calls: the batch runs empty.
  batch.submit_and_wait();
}

}  // namespace raydb::test
