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
    REQUIRE_MESSAGE(built.ok(), built.error().what());
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
  REQUIRE_MESSAGE(s.ok(), s.error().what());
  timeline.host_wait(4);
  host.wait();
  RxReference ref(std::span<const uint64_t>(d.keys), d.values);
  test::check_lookups(download(results), ref.lookup(std::span<const uint64_t>(d.queries)),
                      "semaphore-ordered device lookups");
  // A second submission on the same index reuses nothing of the first's.
  poison(results);
  s = rx_submit_lookup(*index, queries.span, results.span,
                       DeviceSync{{{timeline.handle(), 4}}, {{timeline.handle(), 5}}});
  REQUIRE_MESSAGE(s.ok(), s.error().what());
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
