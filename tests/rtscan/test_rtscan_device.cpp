// RtScanTable over device-resident columns (raydb/device_rtscan.hpp): built from buffers the
// host owns, bitmaps copied into the host's buffer under its timeline semaphores. The test plays
// the host and compares each bitmap whole with the CPU full scan.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "backend/vk/timeline.hpp"
#include "device_host.hpp"
#include "ops/rtscan/rtscan_impl.hpp"
#include "raydb/device_rtscan.hpp"
#include "scan_data.hpp"

using namespace raydb;
using namespace raydb::test;

namespace {

// The host's own download of `count` words of a span.
std::vector<uint32_t> download_words(const HostBuffer& h, uint64_t count) {
  detail::VkContext& c = context().vk();
  Buffer readback(c, count * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                  "test readback");
  CommandBatch batch(c);
  VkBufferCopy region{kOffset, 0, count * 4};
  c.vk.vkCmdCopyBuffer(batch.cmd(), h.buffer.handle(), readback.handle(), 1, &region);
  batch.submit_and_wait();
  readback.invalidate();
  std::vector<uint32_t> out(count);
  std::memcpy(out.data(), readback.mapped(), count * 4);
  return out;
}

void poison_words(const HostBuffer& h, uint64_t count) {
  detail::VkContext& c = context().vk();
  CommandBatch batch(c);
  c.vk.vkCmdFillBuffer(batch.cmd(), h.buffer.handle(), kOffset, count * 4, 0x5A5A5A5Au);
  batch.submit_and_wait();
}

}  // namespace

TEST_CASE("rtscan device: columns from host buffers, bitmaps into a host buffer") {
  ValidationGuard guard;
  detail::VkContext& c = context().vk();
  if (!c.timeline_semaphore) {
    MESSAGE("skipped: the device has no timeline semaphores");
    return;
  }
  std::mt19937_64 rng(fresh_seed());
  // Rows not a multiple of 32 (the last word's tail bits must stay 0); one column of each kind:
  // uniform, one value in 40%, a small range, the edges 0 and 2^32 - 1.
  const size_t rows = 2000 + rng() % 31;
  std::vector<std::vector<uint32_t>> cols;
  for (int kind = 0; kind < 4; ++kind) cols.push_back(column(rng, rows, kind));
  detail::Timeline timeline(c, false);
  std::vector<HostBuffer> host;
  std::vector<DeviceSpan> spans;
  for (size_t k = 0; k < cols.size(); ++k) {
    host.push_back(make_buffer(rows, 4));
    spans.push_back(host.back().span);
  }
  CommandBatch fill(c);
  std::vector<Buffer> staging(cols.size());
  for (size_t k = 0; k < cols.size(); ++k)
    record_fill(fill, staging[k], host[k], cols[k].data(), rows * 4);
  fill.signal(timeline.handle(), 1);
  fill.submit();
  RtScanOptions o;
  o.bins = 16;
  // A coarse lattice (in codes: 1 .. rows) keeps lavapipe's ray counts small.
  o.interval = std::max(1.0, double(rows) / 48);
  o.segment = double(rows) / 3;
  auto table = rtscan_build(context(), spans, o,
                            DeviceSync{{{timeline.handle(), 1}}, {{timeline.handle(), 2}}});
  REQUIRE_MESSAGE(table.ok(), table.error().what());
  fill.wait();
  CHECK(table->rows() == rows);
  CHECK(table->columns() == cols.size());

  const uint64_t words = (rows + 31) / 32;
  HostBuffer bitmap = make_buffer(words, 4);
  std::vector<std::span<const uint32_t>> views(cols.begin(), cols.end());
  uint64_t point = 2;
  for (int q = 0; q < 8; ++q) {
    std::vector<Predicate> preds;
    for (uint32_t k = 0, m = 1 + rng() % 4; k < m; ++k) {
      uint32_t col = static_cast<uint32_t>(rng() % cols.size());
      preds.push_back(random_column_predicate(rng, cols[col], col));
    }
    if (q == 0) preds.clear();  // every row
    poison_words(bitmap, words);
    Status s = rtscan_submit_select(
        *table, preds, bitmap.span,
        DeviceSync{{{timeline.handle(), point}}, {{timeline.handle(), point + 1}}});
    REQUIRE_MESSAGE(s.ok(), s.error().what());
    timeline.host_wait(point + 1);
    ++point;
    CHECK_MESSAGE(download_words(bitmap, words) == full_scan_reference(views, preds),
                  "query " << q << " with " << preds.size() << " predicates");
  }
  // Those selections were submitted in their recorded form (nothing waited for or read back).
  CHECK(!detail::rtscan_impl(*table).record_bitmaps.empty());

  // A table whose boxes could need more than 2^32 - 1 rays cannot take the recorded form: raydb
  // runs the selection, checks its ray count, then submits the copy.
  RtScanOptions fine = o;
  fine.interval = 0x1p-20;
  auto fine_table = rtscan_build(context(), spans, fine).value();
  const std::vector<Predicate> sieved = {{1, CompareOp::ge, 0}};  // every row, no refine
  poison_words(bitmap, words);
  Status s = rtscan_submit_select(fine_table, sieved, bitmap.span,
                                  DeviceSync{{}, {{timeline.handle(), point + 1}}});
  REQUIRE_MESSAGE(s.ok(), s.error().what());
  timeline.host_wait(point + 1);
  CHECK(download_words(bitmap, words) == full_scan_reference(views, sieved));
  CHECK(detail::rtscan_impl(fine_table).record_bitmaps.empty());
}

TEST_CASE("rtscan device: wrong usage flags, unequal columns, short bitmaps and modes are named") {
  ValidationGuard guard;
  std::vector<uint32_t> a = {5, 1, 9, 1, 0xFFFFFFFFu}, b = {0, 2, 2, 7, 3};
  HostBuffer ha = upload(a), hb = upload(b);
  Context& ctx = context();
  std::vector<DeviceSpan> spans = {ha.span, hb.span};

  std::vector<DeviceSpan> no_transfer = spans;
  no_transfer[1].usage = VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  expect_error(rtscan_build(ctx, no_transfer), Errc::invalid_argument,
               "column 1 buffer lacks VK_BUFFER_USAGE_TRANSFER_SRC_BIT");
  std::vector<DeviceSpan> unequal = spans;
  unequal[1].count = 4;
  expect_error(rtscan_build(ctx, unequal), Errc::invalid_argument,
               "column 1 has 4 rows but column 0 has 5");
  std::vector<DeviceSpan> empty = spans;
  empty[0].count = 0;
  expect_error(rtscan_build(ctx, empty), Errc::invalid_argument, "count 0");
  std::vector<DeviceSpan> misaligned = spans;
  misaligned[0].offset = kOffset + 2;
  expect_error(rtscan_build(ctx, misaligned), Errc::invalid_argument, "not a multiple of 4");
  std::vector<DeviceSpan> past_end = spans;
  past_end[0].count = 100;
  past_end[1].count = 100;
  expect_error(rtscan_build(ctx, past_end), Errc::invalid_argument, "but the buffer holds");
  expect_error(rtscan_build(ctx, std::span<const DeviceSpan>{}), Errc::invalid_argument,
               "at least one column");
  RtScanOptions rtc3;
  rtc3.mode = RtScanMode::rtc3;
  expect_error(rtscan_build(ctx, spans, rtc3), Errc::unsupported, "gpu_encoding");

  auto table = rtscan_build(ctx, spans).value();
  HostBuffer bitmap = make_buffer(1, 4);
  DeviceSpan no_dst = bitmap.span;
  no_dst.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  expect_error(rtscan_submit_select(table, {}, no_dst, {}), Errc::invalid_argument, "TRANSFER_DST");
  DeviceSpan small = bitmap.span;
  small.buffer_size = kOffset + 2;
  expect_error(rtscan_submit_select(table, {}, small, {}), Errc::output_too_small,
               "but the buffer holds");
  if (ctx.vk().timeline_semaphore)
    expect_error(rtscan_submit_select(table, {}, bitmap.span, {}), Errc::invalid_argument,
                 "signal");
}

TEST_CASE("rtscan device: selections recorded into the host's command buffer") {
  ValidationGuard guard;
  detail::VkContext& c = context().vk();
  std::mt19937_64 rng(fresh_seed());
  const size_t rows = 1500 + rng() % 1000;
  std::vector<std::vector<uint32_t>> cols;
  for (int kind = 0; kind < 4; ++kind) cols.push_back(column(rng, rows, kind));
  std::vector<HostBuffer> host;
  std::vector<DeviceSpan> spans;
  CommandBatch fill(c);
  std::vector<Buffer> staging(cols.size());
  for (size_t k = 0; k < cols.size(); ++k) {
    host.push_back(make_buffer(rows, 4));
    spans.push_back(host.back().span);
    record_fill(fill, staging[k], host.back(), cols[k].data(), rows * 4);
  }
  fill.submit_and_wait();
  std::vector<std::span<const uint32_t>> views(cols.begin(), cols.end());
  const uint64_t words = (rows + 31) / 32;
  for (bool two_groups : {false, true}) {
    RtScanOptions o;
    o.bins = 1 + static_cast<uint32_t>(rng() % 64);
    o.interval = std::max(1.0, double(rows) / 48);
    o.segment = double(rows) / 3;
    if (two_groups) o.groups = {{0, 1}, {2, 3}};
    auto table = rtscan_build(context(), spans, o).value();
    // Several selections in one command buffer, each into its own host buffer, and the host's own
    // copy of the last bitmap after them (ordered by raydb's closing barrier).
    std::vector<std::vector<Predicate>> queries(4);
    for (size_t q = 1; q < queries.size(); ++q)
      for (uint32_t m = 1 + rng() % 4; m > 0; --m) {
        auto col = static_cast<uint32_t>(rng() % cols.size());
        queries[q].push_back(random_column_predicate(rng, cols[col], col));
      }
    queries.push_back({{0, CompareOp::lt, 0}});  // empty
    std::vector<HostBuffer> bitmaps;
    for (size_t q = 0; q < queries.size(); ++q) {
      bitmaps.push_back(make_buffer(words, 4));
      poison_words(bitmaps.back(), words);
    }
    HostBuffer copy = make_buffer(words, 4);
    CommandBatch batch(c);
    for (size_t q = 0; q < queries.size(); ++q) {
      Status s = rtscan_record_select(table, batch.cmd(), queries[q], bitmaps[q].span);
      REQUIRE_MESSAGE(s.ok(), s.error().what());
    }
    CHECK(table.last_stats().rays == 0);
    VkBufferCopy region{kOffset, kOffset, words * 4};
    c.vk.vkCmdCopyBuffer(batch.cmd(), bitmaps.back().buffer.handle(), copy.buffer.handle(), 1,
                         &region);
    batch.submit_and_wait();
    for (size_t q = 0; q < queries.size(); ++q)
      CHECK_MESSAGE(download_words(bitmaps[q], words) == full_scan_reference(views, queries[q]),
                    "recorded query " << q << ", two groups " << two_groups);
    CHECK(download_words(copy, words) == download_words(bitmaps.back(), words));
    // A submitted selection after the recorded ones equals them.
    auto again = table.select(queries[1]).value().words().value();
    CHECK(again == full_scan_reference(views, queries[1]));
  }

  HostBuffer bitmap = make_buffer(words, 4);
  auto table = rtscan_build(context(), spans).value();
  CommandBatch batch(c);
  expect_error(rtscan_record_select(table, VK_NULL_HANDLE, {}, bitmap.span), Errc::invalid_argument,
               "VkCommandBuffer");
  DeviceSpan small = bitmap.span;
  small.count = words - 1;
  expect_error(rtscan_record_select(table, batch.cmd(), {}, small), Errc::output_too_small,
               "bitmap words");
  std::vector<Predicate> too_many(4097, Predicate{0, CompareOp::ge, 0});
  expect_error(rtscan_record_select(table, batch.cmd(), too_many, bitmap.span),
               Errc::limit_exceeded, "4096 predicates");
  table.set_count_intersections(true);
  expect_error(rtscan_record_select(table, batch.cmd(), {}, bitmap.span), Errc::unsupported,
               "planned on the device");
  RtScanOptions fine;
  fine.interval = 0x1p-20;
  auto fine_table = rtscan_build(context(), spans, fine).value();
  expect_error(rtscan_record_select(fine_table, batch.cmd(), {}, bitmap.span), Errc::limit_exceeded,
               "2^32 - 1");
  batch.submit_and_wait();  // nothing was recorded
}
