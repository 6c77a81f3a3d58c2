// RxIndex over device-resident data (raydb/device_buffers.hpp): built from buffers the host owns,
// lookups from and into them, recorded into the host's command buffer or submitted under its
// timeline semaphores. The test plays the host: it fills its buffers, downloads the results itself
// and compares them whole with the CPU reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <string>

#include "backend/vk/timeline.hpp"
#include "device_host.hpp"
#include "device_index_checks.hpp"
#include "raydb/device_buffers.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"

using namespace raydb;
using namespace raydb::test;
using detail::Buffer;
using detail::CommandBatch;

namespace {

template <class Key>
void check_recorded(TraversalMode mode) {
  test::ValidationGuard guard;
  uint64_t seed = test::fresh_seed();
  Data<Key> d(seed, 3000);
  const KeyWidth width = sizeof(Key) == 8 ? KeyWidth::bits64 : KeyWidth::bits32;
  HostBuffer keys = upload(d.keys), values = upload(d.values), queries = upload(d.queries);
  HostBuffer results = make_buffer(d.queries.size(), sizeof(RxLookup));
  poison(results);
  RxBuildOptions o;
  o.traversal = mode;
  auto index = rx_build(test::context(), width, keys.span, values.span, o);
  REQUIRE_MESSAGE(index.ok(), index.error().what());
  CHECK(index->size() == d.keys.size());

  // The host's command buffer: its own work around raydb's recorded lookups.
  CommandBatch batch(test::context().vk());
  Status s = rx_record_lookup(*index, batch.cmd(), queries.span, results.span);
  REQUIRE_MESSAGE(s.ok(), s.error().what());
  batch.submit_and_wait();
  RxReference ref(std::span<const Key>(d.keys), d.values);
  test::check_lookups(download(results), ref.lookup(std::span<const Key>(d.queries)),
                      "recorded device lookups");
  CHECK(index->last_stats().rays == d.queries.size());
}

constexpr uint64_t kLine = uint64_t{1} << 23;  // keys per RX line: one ray per line a range spans

uint64_t lines_of(uint64_t lo, uint64_t hi) {
  return (hi >> 23) - (lo >> 23) + 1;
}

// Ranges for the device path under a bound of `bound` lines: one key and beside it (equal keys:
// the data's duplicates), short ranges, empty ranges between neighbouring keys, the ends of the
// key space, everything, and ranges over 1 .. bound + 3 lines (those past the bound get the
// marker).
template <class Key>
std::vector<KeyRange<Key>> device_ranges(const Data<Key>& d, uint64_t bound, std::mt19937_64& rng) {
  const Key max = static_cast<Key>(~Key{0});
  std::vector<KeyRange<Key>> r = {{0, 0},
                                  {max, max},
                                  {0, max},
                                  {0, static_cast<Key>(kLine - 1)},
                                  {static_cast<Key>(max - (kLine - 1)), max},
                                  {static_cast<Key>(max - 1), max}};
  std::vector<Key> sorted = d.keys;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i + 1 < sorted.size(); ++i)
    if (sorted[i + 1] - sorted[i] > 1 && rng() % 8 == 0)  // empty: strictly between two keys
      r.push_back({static_cast<Key>(sorted[i] + 1), static_cast<Key>(sorted[i + 1] - 1)});
  for (int i = 0; i < 200; ++i) {
    const Key k = d.keys[rng() % d.keys.size()];
    r.push_back({k, k});
    if (k != max) r.push_back({static_cast<Key>(k + 1), static_cast<Key>(k + 1)});
    const Key width = static_cast<Key>(rng() % 64);
    r.push_back({k, static_cast<Key>(max - k < width ? max : k + width)});
    // Over `lines` lines: within the bound mostly, past it by one to three at times.
    uint64_t lines =
        rng() % 4 == 0 ? bound + 1 + rng() % 3 : 1 + rng() % std::min<uint64_t>(bound, 16);
    uint64_t last_line = (uint64_t{k} >> 23) + lines - 1;
    if (last_line > (uint64_t{max} >> 23)) continue;  // past the key space
    const uint64_t hi = std::max<uint64_t>(k, (last_line << 23) | (rng() % kLine));
    r.push_back({k, static_cast<Key>(hi)});
  }
  for (auto& x : r) CHECK(x.lo <= x.hi);  // lo > hi is unspecified on this path
  std::shuffle(r.begin(), r.end(), rng);
  return r;
}

// What the device path answers: the reference's result, or the marker for a range over the bound.
template <class Key>
std::vector<RxLookup> expected_ranges(const RxReference& ref,
                                      const std::vector<KeyRange<Key>>& ranges, uint64_t bound) {
  std::vector<RxLookup> want = ref.lookup_ranges(RangeSpan(ranges));
  for (size_t i = 0; i < ranges.size(); ++i) {
    uint64_t lines = lines_of(ranges[i].lo, ranges[i].hi);
    if (lines > bound) want[i] = RxLookup{kMissRow, kRxRangeOverBound, lines};
  }
  return want;
}

// Range lookups from and into the host's buffers, recorded (or submitted under a timeline
// semaphore), compared whole with the reference and with RxIndex::lookup_ranges on the same
// index; ranges over `bound` lines must come back as the marker and cast no ray.
template <class Key>
void check_device_ranges(TraversalMode mode, RxLookupMethod method, uint64_t bound,
                         bool submitted) {
  test::ValidationGuard guard;
  const uint64_t seed = test::fresh_seed();
  CAPTURE(bound);
  CAPTURE(submitted);
  std::mt19937_64 rng(seed);
  Data<Key> d(seed, 1500);
  const std::vector<KeyRange<Key>> ranges = device_ranges(d, bound, rng);
  HostBuffer keys = upload(d.keys), values = upload(d.values), queries = upload(ranges);
  HostBuffer results = make_buffer(ranges.size(), sizeof(RxLookup));
  poison(results);
  RxBuildOptions o;
  o.traversal = mode;
  o.method = method;
  o.max_rays_per_range = bound;
  auto index = rx_build(test::context(), width_of<Key>(), keys.span, values.span, o);
  REQUIRE_MESSAGE(index.ok(), std::string(index.error().what()));
  if (submitted) {
    detail::VkContext& c = test::context().vk();
    if (!c.timeline_semaphore) return;  // the recorded calls cover the lookups themselves
    detail::Timeline timeline(c, false);
    Status s = rx_submit_lookup_ranges(*index, queries.span, results.span,
                                       DeviceSync{{}, {{timeline.handle(), 1}}});
    REQUIRE_MESSAGE(s.ok(), std::string(s.error().what()));
    timeline.host_wait(1);
  } else {
    CommandBatch batch(test::context().vk());
    Status s = rx_record_lookup_ranges(*index, batch.cmd(), queries.span, results.span);
    REQUIRE_MESSAGE(s.ok(), std::string(s.error().what()));
    batch.submit_and_wait();
  }
  CHECK(index->last_stats().rays == 0);  // not known on the host
  const std::vector<RxLookup> got = download(results);
  RxReference ref(std::span<const Key>(d.keys), d.values);
  const std::vector<RxLookup> want = expected_ranges(ref, ranges, bound);
  test::check_lookups(got, want, "device range lookups");
  size_t marked = 0;
  for (const RxLookup& w : want) marked += w.count == kRxRangeOverBound ? 1 : 0;
  // The range over everything is marked wherever the key space is wider than the bound.
  CHECK((marked > 0) == (lines_of(0, static_cast<Key>(~Key{0})) > bound));
  CHECK(marked < ranges.size());

  // The host-vector API on the same index: equal on the ranges within the bound, and it refuses
  // a range past it.
  std::vector<KeyRange<Key>> within, over;
  std::vector<RxLookup> device_within;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (lines_of(ranges[i].lo, ranges[i].hi) <= bound) {
      within.push_back(ranges[i]);
      device_within.push_back(got[i]);
    } else {
      over.push_back(ranges[i]);
    }
  }
  auto host = index->lookup_ranges(RangeSpan(within));
  REQUIRE_MESSAGE(host.ok(), std::string(host.error().what()));
  test::check_lookups(device_within, *host, "device range lookups against RxIndex::lookup_ranges");
  if (!over.empty())
    expect_error(index->lookup_ranges(RangeSpan(over)), Errc::limit_exceeded, "max_rays_per_range");
}

template <class Key>
void check_device_range_configs(TraversalMode mode) {
  // 32-bit keys span 512 lines: a bound of 512 lets the range over everything trace, 8 marks it.
  const uint64_t wide_bound = sizeof(Key) == 4 ? 512 : uint64_t{1} << 16;
  for (RxLookupMethod method : {RxLookupMethod::hit_and_scan, RxLookupMethod::any_hit}) {
    const std::string method_name = to_string(method);
    CAPTURE(method_name);
    check_device_ranges<Key>(mode, method, 8, false);
    check_device_ranges<Key>(mode, method, wide_bound, method == RxLookupMethod::any_hit);
  }
}

// The test's own readback of `count` elements of T from the start of a host buffer's span.
template <class T>
std::vector<T> read_back(const HostBuffer& h, uint64_t count) {
  detail::VkContext& c = test::context().vk();
  const uint64_t bytes = std::max<uint64_t>(count * sizeof(T), 4);
  Buffer readback(c, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, detail::MemoryUse::readback,
                  "test readback");
  CommandBatch batch(c);
  VkBufferCopy region{kOffset, 0, bytes};
  c.vk.vkCmdCopyBuffer(batch.cmd(), h.buffer.handle(), readback.handle(), 1, &region);
  batch.submit_and_wait();
  readback.invalidate();
  std::vector<T> out(count);
  std::memcpy(out.data(), readback.mapped(), count * sizeof(T));
  return out;
}

void fill_words(const HostBuffer& h, uint64_t bytes, uint32_t word) {
  detail::VkContext& c = test::context().vk();
  CommandBatch batch(c);
  c.vk.vkCmdFillBuffer(batch.cmd(), h.buffer.handle(), kOffset, bytes, word);
  batch.submit_and_wait();
}

// collect_rows of point lookups from and into the host's buffers, recorded or submitted, with a
// capacity above the matches and one below (overflow: the total still counts every pair, the
// written ones are distinct true pairs), compared with RxReference and RxIndex::collect_rows.
template <class Key>
void check_device_collect(TraversalMode mode, bool submitted) {
  test::ValidationGuard guard;
  const uint64_t seed = test::fresh_seed();
  CAPTURE(submitted);
  Data<Key> d(seed, 1500);
  RxReference ref(std::span<const Key>(d.keys), d.values);
  std::vector<RxRowMatch> want = ref.collect_rows(KeySpan(std::span<const Key>(d.queries)));
  std::sort(want.begin(), want.end());
  REQUIRE(want.size() > 3);
  HostBuffer keys = upload(d.keys), values = upload(d.values), queries = upload(d.queries);
  RxBuildOptions o;
  o.traversal = mode;
  auto index = rx_build(test::context(), width_of<Key>(), keys.span, values.span, o);
  REQUIRE_MESSAGE(index.ok(), std::string(index.error().what()));
  detail::VkContext& c = test::context().vk();
  if (submitted && !c.timeline_semaphore) return;
  std::optional<detail::Timeline> timeline;
  if (submitted) timeline.emplace(c, false);
  uint64_t point = 0;
  for (uint64_t capacity : {uint64_t{want.size() + 7}, uint64_t{want.size() / 3}}) {
    CAPTURE(capacity);
    HostBuffer matches = make_buffer(capacity, sizeof(RxRowMatch)), total = make_buffer(1, 4);
    fill_words(matches, capacity * sizeof(RxRowMatch), 0x5A5A5A5Au);
    fill_words(total, 4, 0x5A5A5A5Au);  // raydb must zero it
    if (submitted) {
      ++point;
      Status s = rx_submit_collect_rows(*index, queries.span, matches.span, total.span,
                                        DeviceSync{{}, {{timeline->handle(), point}}});
      REQUIRE_MESSAGE(s.ok(), std::string(s.error().what()));
      timeline->host_wait(point);
    } else {
      CommandBatch batch(c);
      Status s =
          rx_record_collect_rows(*index, batch.cmd(), queries.span, matches.span, total.span);
      REQUIRE_MESSAGE(s.ok(), std::string(s.error().what()));
      batch.submit_and_wait();
    }
    const uint32_t count = read_back<uint32_t>(total, 1)[0];
    CHECK(count == want.size());
    std::vector<RxRowMatch> got =
        read_back<RxRowMatch>(matches, std::min<uint64_t>(count, capacity));
    std::sort(got.begin(), got.end());
    if (capacity >= want.size()) {
      CHECK_MESSAGE(got == want, "device collect_rows against the reference");
    } else {
      CHECK(got.size() == capacity);
      CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());  // no pair twice
      CHECK(std::includes(want.begin(), want.end(), got.begin(), got.end()));
    }
  }
  std::vector<RxRowMatch> host(want.size());
  auto r = index->collect_rows(KeySpan(std::span<const Key>(d.queries)), host);
  REQUIRE_MESSAGE(r.ok(), std::string(r.error().what()));
  CHECK(r->complete());
  std::sort(host.begin(), host.end());
  CHECK_MESSAGE(host == want, "RxIndex::collect_rows on the device-built index");
}

}  // namespace

TEST_CASE("rx device: build from host buffers, lookups recorded into the host's command buffer") {
  for (TraversalMode mode : {TraversalMode::pipeline, TraversalMode::ray_query}) {
    if (!test::context().vk().supports(mode)) continue;
    const std::string mode_name = to_string(mode);
    CAPTURE(mode_name);
    check_recorded<uint32_t>(mode);
    check_recorded<uint64_t>(mode);
  }
}

TEST_CASE("rx device: build and lookups ordered by the host's timeline semaphores") {
  test::ValidationGuard guard;
  detail::VkContext& c = test::context().vk();
  if (!c.timeline_semaphore) {
    MESSAGE("skipped: the device has no timeline semaphores");
    return;
  }
  uint64_t seed = test::fresh_seed();
  Data<uint64_t> d(seed, 2000);
  detail::Timeline timeline(c, false);
  HostBuffer keys = make_buffer(d.keys.size(), 8), values = make_buffer(d.values.size(), 4);
  HostBuffer queries = make_buffer(d.queries.size(), 8);
  HostBuffer results = make_buffer(d.queries.size(), sizeof(RxLookup));
  poison(results);

  // The host writes keys and values in a submission of its own that signals 1; raydb's build
  // waits for it and signals 2 once it no longer reads them.
  std::optional<RxIndex> index;
  {
    CommandBatch host(c);
    Buffer s0, s1;
    record_fill(host, s0, keys, d.keys.data(), d.keys.size() * 8);
    record_fill(host, s1, values, d.values.data(), d.values.size() * 4);
    host.signal(timeline.handle(), 1);
    host.submit();
    auto built = rx_build(test::context(), KeyWidth::bits64, keys.span, values.span, {},
                          DeviceSync{{{timeline.handle(), 1}}, {{timeline.handle(), 2}}});
    REQUIRE_MESSAGE(built.ok(), std::string(built.error().what()));
    index.emplace(std::move(*built));
    CHECK(timeline.counter() >= 2);
  }
  // The queries, likewise (3); the lookups wait for them and signal 4 with the results written.
  CommandBatch host(c);
  Buffer staging;
  record_fill(host, staging, queries, d.queries.data(), d.queries.size() * 8);
  host.wait_for(timeline.handle(), 2);
  host.signal(timeline.handle(), 3);
  host.submit();
  Status s = rx_submit_lookup(*index, queries.span, results.span,
                              DeviceSync{{{timeline.handle(), 3}}, {{timeline.handle(), 4}}});
  REQUIRE_MESSAGE(s.ok(), std::string(s.error().what()));
  timeline.host_wait(4);
  host.wait();
  RxReference ref(std::span<const uint64_t>(d.keys), d.values);
  test::check_lookups(download(results), ref.lookup(std::span<const uint64_t>(d.queries)),
                      "semaphore-ordered device lookups");
  // A second submission on the same index reuses nothing of the first's.
  poison(results);
  s = rx_submit_lookup(*index, queries.span, results.span,
                       DeviceSync{{{timeline.handle(), 4}}, {{timeline.handle(), 5}}});
  REQUIRE_MESSAGE(s.ok(), std::string(s.error().what()));
  timeline.host_wait(5);
  test::check_lookups(download(results), ref.lookup(std::span<const uint64_t>(d.queries)),
                      "second semaphore-ordered lookups");
}

TEST_CASE("rx device: wrong usage flags, too-small buffers and count 0 are named") {
  test::ValidationGuard guard;
  std::vector<uint32_t> k = {5, 1, 9, 1};
  HostBuffer keys = upload(k), queries = upload(k);
  HostBuffer results = make_buffer(k.size(), sizeof(RxLookup));
  auto expect = [](const auto& r, Errc code, const std::string& words) {
    expect_error(r, code, words);
  };
  Context& ctx = test::context();
  const KeyWidth w32 = KeyWidth::bits32;

  DeviceSpan no_transfer = keys.span;
  no_transfer.usage = VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  expect(rx_build(ctx, w32, no_transfer), Errc::invalid_argument, "TRANSFER_SRC");
  DeviceSpan empty = keys.span;
  empty.count = 0;
  expect(rx_build(ctx, w32, empty), Errc::invalid_argument, "count 0");
  DeviceSpan past_end = keys.span;
  past_end.count = 1000;
  expect(rx_build(ctx, w32, past_end), Errc::invalid_argument, "but the buffer holds");
  DeviceSpan misaligned = keys.span;
  misaligned.offset = 2;
  expect(rx_build(ctx, w32, misaligned), Errc::invalid_argument, "not a multiple of 4");
  DeviceSpan short_values = keys.span;
  short_values.count = 3;
  expect(rx_build(ctx, w32, keys.span, short_values), Errc::invalid_argument, "3 entries");
  RxBuildOptions updatable;
  updatable.allow_update = true;
  expect(rx_build(ctx, w32, keys.span, {}, updatable), Errc::invalid_argument, "allow_update");

  auto index = rx_build(ctx, w32, keys.span).value();
  CommandBatch batch(ctx.vk());
  DeviceSpan no_address = queries.span;
  no_address.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  expect(rx_record_lookup(index, batch.cmd(), no_address, results.span), Errc::invalid_argument,
         "SHADER_DEVICE_ADDRESS");
  DeviceSpan few = results.span;
  few.count = 3;
  expect(rx_record_lookup(index, batch.cmd(), queries.span, few), Errc::output_too_small,
         "4 lookups but the results span holds 3");
  DeviceSpan small_buffer = results.span;
  small_buffer.buffer_size = kOffset + 3 * sizeof(RxLookup);
  expect(rx_record_lookup(index, batch.cmd(), queries.span, small_buffer), Errc::output_too_small,
         "but the buffer holds");
  DeviceSpan no_queries = queries.span;
  no_queries.count = 0;
  expect(rx_record_lookup(index, batch.cmd(), no_queries, results.span), Errc::invalid_argument,
         "count 0");
  DeviceSpan misaligned_results = results.span;
  misaligned_results.offset = kOffset + 8;
  expect(rx_record_lookup(index, batch.cmd(), queries.span, misaligned_results),
         Errc::invalid_argument, "not a multiple of 16");
  expect(rx_record_lookup(index, nullptr, queries.span, results.span), Errc::invalid_argument,
         "VkCommandBuffer");
  if (ctx.vk().timeline_semaphore)
    expect(rx_submit_lookup(index, queries.span, results.span, {}), Errc::invalid_argument,
           "signal");
  // Nothing was recorded by the refused calls: the batch runs empty.
  batch.submit_and_wait();
}

TEST_CASE("rx device: range lookups from and into host buffers, ranges past the ray bound marked") {
  for (TraversalMode mode : {TraversalMode::pipeline, TraversalMode::ray_query}) {
    if (!test::context().vk().supports(mode)) continue;
    const std::string mode_name = to_string(mode);
    CAPTURE(mode_name);
    check_device_range_configs<uint32_t>(mode);
    check_device_range_configs<uint64_t>(mode);
  }
  auto build = [](KeyWidth w, const DeviceSpan& k, const DeviceSpan& v, const DeviceSync& s) {
    return rx_build(test::context(), w, k, v, {}, s);
  };
  auto submit = [](RxIndex& i, const DeviceSpan& q, const DeviceSpan& r, const DeviceSync& s) {
    return rx_submit_lookup_ranges(i, q, r, s);
  };
  test::check_semaphore_ordered(build, submit, /*ranges=*/true);
}

TEST_CASE("rx device: collect_rows of point lookups into host buffers, overflow counted") {
  for (TraversalMode mode : {TraversalMode::pipeline, TraversalMode::ray_query}) {
    if (!test::context().vk().supports(mode)) continue;
    const std::string mode_name = to_string(mode);
    CAPTURE(mode_name);
    check_device_collect<uint32_t>(mode, false);
    check_device_collect<uint64_t>(mode, mode == TraversalMode::ray_query);
    check_device_collect<uint64_t>(mode, mode == TraversalMode::pipeline);
  }
  // Refusals name the span and write nothing.
  test::ValidationGuard guard;
  std::vector<uint32_t> k = {5, 1, 9, 1};
  HostBuffer keys = upload(k), queries = upload(k), matches = make_buffer(4, sizeof(RxRowMatch));
  HostBuffer total = make_buffer(1, 4);
  auto index = rx_build(test::context(), KeyWidth::bits32, keys.span).value();
  CommandBatch batch(test::context().vk());
  DeviceSpan no_fill = total.span;
  no_fill.usage = VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  expect_error(rx_record_collect_rows(index, batch.cmd(), queries.span, matches.span, no_fill),
               Errc::invalid_argument, "the total buffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT");
  DeviceSpan misaligned = matches.span;
  misaligned.offset = kOffset + 4;
  expect_error(rx_record_collect_rows(index, batch.cmd(), queries.span, misaligned, total.span),
               Errc::invalid_argument, "not a multiple of 8");
  index.set_diagnostic(RxDiagnostic::no_trace);
  expect_error(rx_record_collect_rows(index, batch.cmd(), queries.span, matches.span, total.span),
               Errc::invalid_argument, "diagnostics");
  expect_error(rx_record_collect_rows(index, nullptr, queries.span, matches.span, total.span),
               Errc::invalid_argument, "rx_record_collect_rows needs a VkCommandBuffer");
  batch.submit_and_wait();
}
