// Pipelined lookups from host memory (ops/common/lookup_batch.hpp): chunks in pinned slots, the
// kernel reading and writing them directly, results copied out while later chunks run. Every
// result is compared whole with the CPU reference and with the unpipelined (whole-batch) path, at
// the chunk boundaries (0, 1, chunk - 1, chunk, chunk + 1 and more chunks than slots), for 32-
// and 64-bit keys, points and ranges, and for every key index that runs through the shared code
// (RX also with sort_probes: each chunk sorts its own lookups; cgRX).
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>

#include "backend/vk/context_impl.hpp"
#include "ops/common/lookup_batch.hpp"
#include "raydb/cgrx_index.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/host_buffer.hpp"
#include "raydb/host_time.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/sorted_index.hpp"
#include "raydb/workload.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

constexpr uint64_t kChunk = 64;

// The batch sizes at and around the chunk boundaries; 7 chunks + 1 reuses every slot twice.
const uint64_t kCounts[] = {0, 1, kChunk - 1, kChunk, kChunk + 1, 7 * kChunk + 1};

workload::KeyColumn random_keys(KeyWidth w, size_t n, std::mt19937_64& rng, bool unique) {
  workload::KeyColumn c;
  c.width = w;
  const uint64_t max_key = w == KeyWidth::bits64 ? ~uint64_t{0} : 0xFFFFFFFFull;
  std::vector<uint64_t> ks = test::edge_keys(w == KeyWidth::bits64);
  while (ks.size() < n) ks.push_back(rng() % max_key);
  if (!unique)  // duplicates: runs of equal keys cross chunk boundaries in the results
    for (size_t i = 0; i < n / 4; ++i) ks[n - 1 - i] = ks[i];
  std::sort(ks.begin(), ks.end());
  if (unique) ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  std::shuffle(ks.begin(), ks.end(), rng);
  for (uint64_t k : ks) c.push_back(k);
  return c;
}

workload::KeyColumn probes_for(const workload::KeyColumn& keys, uint64_t count,
                               std::mt19937_64& rng) {
  workload::KeyColumn p;
  p.width = keys.width;
  for (uint64_t i = 0; i < count; ++i)
    p.push_back(i % 3 != 0 ? keys[rng() % keys.size()] : rng());  // hits and misses
  return p;
}

workload::RangeColumn ranges_for(const workload::KeyColumn& keys, uint64_t count,
                                 std::mt19937_64& rng) {
  workload::RangeColumn r;
  r.width = keys.width;
  const uint64_t max_key = keys.width == KeyWidth::bits64 ? ~uint64_t{0} : 0xFFFFFFFFull;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t lo = keys[rng() % keys.size()];
    uint64_t width = 1 + rng() % (uint64_t{1} << 24);
    uint64_t hi = lo > max_key - width ? max_key : lo + width - 1;
    if (r.width == KeyWidth::bits64)
      r.r64.push_back({lo, hi});
    else
      r.r32.push_back({static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)});
  }
  return r;
}

// Runs `lookup(queries)` pipelined, into a caller's span and into a returned vector, and
// unpipelined; each compared whole with the reference. Pipelined also with the queries, the
// results or both in HostBuffers (copied there in place, at offsets that are not the buffers'
// starts).
template <class Lookup, class Span>
void check_modes(Lookup&& lookup, Span queries, const std::vector<RxLookup>& want,
                 const std::string& what) {
  std::vector<RxLookup> out(want.size(), RxLookup{7, 7, 7});
  {
    detail::LookupChunkScope pipelined(kChunk);
    REQUIRE(lookup(queries, std::span<RxLookup>(out)).ok());
    test::check_lookups(out, want, (what + " pipelined, caller's span").c_str());
  }
  {
    detail::LookupChunkScope pipelined(kChunk);
    const uint64_t qbytes = queries.size * (queries.width == KeyWidth::bits64 ? 8 : 4) *
                            (std::is_same_v<Span, RangeSpan> ? 2 : 1);
    auto in = HostBuffer::allocate(test::context(), qbytes + 48).value();
    auto res = HostBuffer::allocate(test::context(), want.size() * sizeof(RxLookup) + 32).value();
    auto* in_at = static_cast<char*>(in.data()) + 48;
    if (qbytes) std::memcpy(in_at, queries.data, qbytes);
    Span pinned = queries;
    pinned.data = in_at;
    std::span<RxLookup> pinned_out(reinterpret_cast<RxLookup*>(static_cast<char*>(res.data()) + 32),
                                   want.size());
    for (int variant = 0; variant < 3; ++variant) {
      Span q = variant == 1 ? queries : pinned;
      std::span<RxLookup> o = variant == 0 ? std::span<RxLookup>(out) : pinned_out;
      std::fill(o.begin(), o.end(), RxLookup{7, 7, 7});
      REQUIRE(lookup(q, o).ok());
      const char* where[] = {"queries", "results", "queries and results"};
      test::check_lookups(std::vector<RxLookup>(o.begin(), o.end()), want,
                          (what + " pipelined, " + where[variant] + " in a HostBuffer").c_str());
    }
  }
  {
    detail::LookupChunkScope whole(0);
    std::fill(out.begin(), out.end(), RxLookup{7, 7, 7});
    REQUIRE(lookup(queries, std::span<RxLookup>(out)).ok());
    test::check_lookups(out, want, (what + " whole batch").c_str());
  }
}

}  // namespace

TEST_CASE("pipelined lookups: RX points and ranges at chunk boundaries equal the CPU reference") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  const DeviceInfo& d = test::context().device();
  for (TraversalMode m : {TraversalMode::pipeline, TraversalMode::ray_query}) {
    if ((m == TraversalMode::pipeline && !d.ray_tracing_pipeline) ||
        (m == TraversalMode::ray_query && !d.ray_query)) {
      MESSAGE("skipped: device has no " << std::string(to_string(m)));
      continue;
    }
    for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64}) {
      auto keys = random_keys(w, 3000, rng, false);
      std::vector<uint32_t> values(keys.size());
      for (auto& v : values) v = static_cast<uint32_t>(rng());
      RxBuildOptions o;
      o.traversal = m;
      auto index = RxIndex::build(test::context(), keys.span(), values, o).value();
      RxReference ref(keys.span(), values);
      for (uint64_t count : kCounts) {
        std::string what = std::string("rx ") + to_string(m) + " " + to_string(w) + "-bit, " +
                           std::to_string(count) + " ";
        auto points = probes_for(keys, count, rng);
        check_modes([&](KeySpan q, std::span<RxLookup> out) { return index.lookup(q, out); },
                    points.span(), ref.lookup(points.span()), what + "points");
        auto ranges = ranges_for(keys, count, rng);
        check_modes(
            [&](RangeSpan q, std::span<RxLookup> out) { return index.lookup_ranges(q, out); },
            ranges.span(), ref.lookup_ranges(ranges.span()), what + "ranges");
        // The returned-vector call takes the same path.
        detail::LookupChunkScope pipelined(kChunk);
        test::check_lookups(index.lookup(points.span()).value(), ref.lookup(points.span()),
                            (what + "points, returned vector").c_str());
      }
    }
  }
}

std::vector<TraversalMode> device_modes() {
  const DeviceInfo& d = test::context().device();
  std::vector<TraversalMode> modes;
  if (d.ray_tracing_pipeline) modes.push_back(TraversalMode::pipeline);
  if (d.ray_query) modes.push_back(TraversalMode::ray_query);
  if (modes.empty()) MESSAGE("skipped: device has no ray tracing");
  return modes;
}

TEST_CASE("pipelined lookups: RX with sorted probes sorts each chunk, results in place") {
  // Each chunk sorts its lookups on the GPU into its slot's order and the trace writes every
  // result back at its place in the chunk; a wrong order or offset in any chunk shows here.
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  for (TraversalMode m : device_modes()) {
    for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64}) {
      auto keys = random_keys(w, 3000, rng, false);
      std::vector<uint32_t> values(keys.size());
      for (auto& v : values) v = static_cast<uint32_t>(rng());
      RxBuildOptions o;
      o.traversal = m;
      o.sort_probes = true;
      auto index = RxIndex::build(test::context(), keys.span(), values, o).value();
      RxReference ref(keys.span(), values);
      for (uint64_t count : kCounts) {
        std::string what = std::string("rx sorted probes ") + to_string(m) + " " + to_string(w) +
                           "-bit, " + std::to_string(count) + " ";
        auto points = probes_for(keys, count, rng);
        check_modes([&](KeySpan q, std::span<RxLookup> out) { return index.lookup(q, out); },
                    points.span(), ref.lookup(points.span()), what + "points");
        auto ranges = ranges_for(keys, count, rng);
        check_modes(
            [&](RangeSpan q, std::span<RxLookup> out) { return index.lookup_ranges(q, out); },
            ranges.span(), ref.lookup_ranges(ranges.span()), what + "ranges");
      }
    }
  }
}

TEST_CASE("pipelined lookups: cgRX at chunk boundaries, its counters summed over the chunks") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  for (TraversalMode m : device_modes()) {
    for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64}) {
      auto keys = random_keys(w, 2000, rng, false);
      std::vector<uint32_t> values(keys.size());
      for (auto& v : values) v = static_cast<uint32_t>(rng());
      CgrxBuildOptions o;
      o.traversal = m;
      o.bucket_size = 4;  // many buckets: rays cross several of them
      auto index = CgrxIndex::build(test::context(), keys.span(), values, o).value();
      RxReference ref(keys.span(), values);
      for (uint64_t count : kCounts) {
        std::string what = std::string("cgrx ") + to_string(m) + " " + to_string(w) + "-bit, " +
                           std::to_string(count) + " ";
        auto points = probes_for(keys, count, rng);
        auto want = ref.lookup(points.span());
        check_modes([&](KeySpan q, std::span<RxLookup> out) { return index.lookup(q, out); },
                    points.span(), want, what + "points");
        auto ranges = ranges_for(keys, count, rng);
        check_modes(
            [&](RangeSpan q, std::span<RxLookup> out) { return index.lookup_ranges(q, out); },
            ranges.span(), ref.lookup_ranges(ranges.span()), what + "ranges");
        // The extra rays and fallbacks, counted on the GPU, equal the whole batch's.
        std::vector<RxLookup> out(count);
        {
          detail::LookupChunkScope whole(0);
          REQUIRE(index.lookup(points.span(), std::span<RxLookup>(out)).ok());
        }
        const uint64_t rays = index.last_stats().rays, fallbacks = index.last_fallbacks();
        detail::LookupChunkScope pipelined(kChunk);
        REQUIRE(index.lookup(points.span(), std::span<RxLookup>(out)).ok());
        test::check_lookups(out, want, (what + "points, counted").c_str());
        CHECK_MESSAGE(index.last_stats().rays == rays, what);
        CHECK_MESSAGE(index.last_fallbacks() == fallbacks, what);
        CHECK_MESSAGE(index.last_stats().rays >= count, what);
      }
    }
  }
}

TEST_CASE("pipelined lookups: RX sorted probes and cgRX allocate nothing from the first call") {
  // The build makes the slots and the chunk sorts' scratch; every call, the first one included,
  // reuses them. The device memory's peak during a call shows any buffer made beside the kept
  // ones (scratch the build did not reserve, or a Temps made per call); a kept buffer freed and
  // made again at the same size would not show.
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  detail::VkContext& vk = test::context().vk();
  detail::LookupChunkScope pipelined(kChunk);
  for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64}) {
    auto keys = random_keys(w, 1000, rng, false);
    RxBuildOptions o;
    o.sort_probes = true;
    auto rx = RxIndex::build(test::context(), keys.span(), {}, o).value();
    auto cgrx = CgrxIndex::build(test::context(), keys.span()).value();
    RxReference ref(keys.span());
    auto points = probes_for(keys, 5 * kChunk + 3, rng);
    std::vector<RxLookup> out(points.size());
    for (int call = 0; call < 2; ++call) {
      for (bool sorted : {true, false}) {
        const std::string what = std::string(sorted ? "rx sorted probes" : "cgrx") + " " +
                                 to_string(w) + "-bit, call " + std::to_string(call + 1);
        const uint64_t before = vk.allocated_bytes;
        vk.reset_peak();
        REQUIRE((sorted ? rx.lookup(points.span(), out) : cgrx.lookup(points.span(), out)).ok());
        CHECK_MESSAGE(vk.peak_bytes == before, what);
        CHECK_MESSAGE(vk.allocated_bytes == before, what);
        test::check_lookups(out, ref.lookup(points.span()), what.c_str());
      }
    }
  }
}

// detail::set_result_path_override for one scope.
struct PathScope {
  explicit PathScope(detail::ResultPath p) { detail::set_result_path_override(p); }
  ~PathScope() { detail::set_result_path_override(std::nullopt); }
};

TEST_CASE("pipelined lookups: the sorted array, the hash table and RX through either result path") {
  // Each index has its own ResultPath (the test below); here each takes both: the kernel writes
  // each chunk's results into device memory for a copy queue to download, or into the slot's
  // pinned memory or the caller's HostBuffer itself.
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  for (detail::ResultPath path : {detail::ResultPath::download, detail::ResultPath::direct}) {
    PathScope scope(path);
    const bool direct = path == detail::ResultPath::direct;
    for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64}) {
      auto keys = random_keys(w, 2000, rng, true);
      std::vector<uint32_t> values(keys.size());
      for (auto& v : values) v = static_cast<uint32_t>(rng());
      auto sorted = SortedIndex::build(test::context(), keys.span(), values).value();
      auto hash = HashIndex::build(test::context(), keys.span(), values).value();
      auto rx = RxIndex::build(test::context(), keys.span(), values).value();
      RxReference ref(keys.span(), values);
      for (uint64_t count : kCounts) {
        std::string what = std::string(to_string(w)) + "-bit, " + std::to_string(count) +
                           (direct ? " direct " : " downloaded ");
        auto points = probes_for(keys, count, rng);
        auto want = ref.lookup(points.span());
        check_modes([&](KeySpan q, std::span<RxLookup> out) { return sorted.lookup(q, out); },
                    points.span(), want, "sorted " + what + "points");
        check_modes([&](KeySpan q, std::span<RxLookup> out) { return hash.lookup(q, out); },
                    points.span(), want, "hash " + what + "points");
        check_modes([&](KeySpan q, std::span<RxLookup> out) { return rx.lookup(q, out); },
                    points.span(), want, "rx " + what + "points");
        auto ranges = ranges_for(keys, count, rng);
        check_modes(
            [&](RangeSpan q, std::span<RxLookup> out) { return sorted.lookup_ranges(q, out); },
            ranges.span(), ref.lookup_ranges(ranges.span()), "sorted " + what + "ranges");
        if (count == 0) continue;
        detail::LookupChunkScope pipelined(kChunk);
        std::vector<RxLookup> out(count);
        REQUIRE(rx.lookup(points.span(), std::span<RxLookup>(out)).ok());
        CHECK(rx.last_stats().results_direct == direct);
        REQUIRE(hash.lookup(points.span(), std::span<RxLookup>(out)).ok());
        CHECK(hash.last_stats().results_direct == direct);
      }
    }
  }
}

TEST_CASE("pipelined lookups: chunks large enough for parallel host copies, the last one shorter") {
  // Chunks of 2^18 lookups move 4 MiB of results each, which the host copies on several threads
  // (smaller copies stay on one). Every slot of the ring (four) is reused, the last chunk a
  // little shorter than the others: its copy-out shares a parallel pass with the next chunk's
  // copy-in, each thread taking a share of both (on the 64-core GPU host an earlier ring
  // overwrote results of 2^25-lookup batches there). Several batch sizes and repeats, since how
  // the threads interleave varies.
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = random_keys(KeyWidth::bits32, 2000, rng, true);
  std::vector<uint32_t> values(keys.size());
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  auto hash = HashIndex::build(test::context(), keys.span(), values).value();
  RxReference ref(keys.span(), values);
  constexpr uint64_t kLarge = uint64_t{1} << 18;
  detail::LookupChunkScope pipelined(kLarge);
  for (uint64_t count : {6 * kLarge - 1, 6 * kLarge - 656, 5 * kLarge + kLarge / 2}) {
    auto points = probes_for(keys, count, rng);
    auto want = ref.lookup(points.span());
    for (int repeat = 0; repeat < 3; ++repeat) {
      std::vector<RxLookup> out(count, RxLookup{7, 7, 7});
      REQUIRE(hash.lookup(points.span(), std::span<RxLookup>(out)).ok());
      std::string what = "hash, " + std::to_string(count) + " points";
      test::check_lookups(out, want, what.c_str());
    }
  }
}

TEST_CASE("pipelined lookups: the indexes of a context share one ring of slots") {
  // The ring is the context's: a second index allocates no slots at build, and lookups through
  // one index stay exact after another that reserved the ring is gone.
  ContextOptions o;
  o.validation = std::getenv("RAYDB_TEST_NO_VALIDATION") == nullptr;
  std::atomic<int> messages{0};
  o.on_validation_message = [&](std::string_view) { messages.fetch_add(1); };
  auto ctx = Context::create(o).value();
  detail::LookupChunkScope pipelined(kChunk);
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = random_keys(KeyWidth::bits32, 2000, rng, true);
  std::vector<uint32_t> values(keys.size());
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  auto allocations = [&](auto&& build) {
    ctx.vk().drain_releases();  // no build takes a scratch buffer an earlier one kept
    const HostTimeBreakdown before = host_time_breakdown();
    build();
    return (host_time_breakdown() - before).allocations;
  };
  std::optional<SortedIndex> first, second;
  const uint64_t first_allocations =
      allocations([&] { first.emplace(SortedIndex::build(ctx, keys.span(), values).value()); });
  const uint64_t second_allocations =
      allocations([&] { second.emplace(SortedIndex::build(ctx, keys.span(), values).value()); });
  // Four slots of four buffers each (queries and results, host and device), made once.
  CHECK(first_allocations == second_allocations + 16);
  first.reset();
  RxReference ref(keys.span(), values);
  auto points = probes_for(keys, 7 * kChunk + 1, rng);
  std::vector<RxLookup> out(points.size());
  REQUIRE(second->lookup(points.span(), std::span<RxLookup>(out)).ok());
  test::check_lookups(out, ref.lookup(points.span()), "second index after the first is gone");
  auto hash = HashIndex::build(ctx, keys.span(), values).value();
  REQUIRE(hash.lookup(points.span(), std::span<RxLookup>(out)).ok());
  test::check_lookups(out, ref.lookup(points.span()), "a hash index on the same ring");
  CHECK(messages.load() == 0);
}

TEST_CASE("pipelined lookups: each index's own result path") {
  // RX writes straight into pinned memory, unless it sorts its probes (its results then land
  // scattered across the chunk, and the next chunk's trace writes them out); the hash table
  // downloads.
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = random_keys(KeyWidth::bits32, 2000, rng, true);
  auto hash = HashIndex::build(test::context(), keys.span()).value();
  auto rx = RxIndex::build(test::context(), keys.span()).value();
  RxBuildOptions sorting;
  sorting.sort_probes = true;
  auto sorted_rx = RxIndex::build(test::context(), keys.span(), {}, sorting).value();
  auto points = probes_for(keys, 3 * kChunk + 1, rng);
  auto want = RxReference(keys.span()).lookup(points.span());
  std::vector<RxLookup> out(points.size());
  detail::LookupChunkScope pipelined(kChunk);
  REQUIRE(rx.lookup(points.span(), std::span<RxLookup>(out)).ok());
  CHECK(rx.last_stats().results_direct);
  test::check_lookups(out, want, "rx");
  REQUIRE(hash.lookup(points.span(), std::span<RxLookup>(out)).ok());
  CHECK(!hash.last_stats().results_direct);
  test::check_lookups(out, want, "hash");
  REQUIRE(sorted_rx.lookup(points.span(), std::span<RxLookup>(out)).ok());
  CHECK(!sorted_rx.last_stats().results_direct);
  test::check_lookups(out, want, "rx, sorted probes");
  // Every chunk but the last is carried by the next one's kernel (no download of its own, though
  // the chunks shrink towards the end: a kernel then writes several results per invocation).
  const auto& timeline = detail::last_pipelined_timeline();
  REQUIRE(timeline.size() >= 4);
  for (size_t i = 0; i < timeline.size(); ++i) {
    CAPTURE(i);
    CHECK(timeline[i].carried == (i + 1 < timeline.size()));
  }
}

TEST_CASE("pipelined lookups: chunks ramp up and down at the ends of a call") {
  using detail::pipelined_chunk;
  auto plan = [](uint64_t count, uint64_t chunk, uint64_t min_piece) {
    std::vector<uint64_t> pieces;
    for (uint64_t done = 0; done < count;) {
      pieces.push_back(pipelined_chunk(pieces.size(), count - done, chunk, min_piece));
      REQUIRE(pieces.back() >= 1);
      REQUIRE(pieces.back() <= chunk);
      done += pieces.back();
    }
    return pieces;
  };
  // The H100's call: 2^27 lookups in chunks of 2^22.
  const uint64_t c = uint64_t{1} << 22;
  std::vector<uint64_t> want = {c / 4, c / 2};
  want.insert(want.end(), 30, c);
  for (uint64_t p : {c * 5 / 8, c * 5 / 16, c * 5 / 16}) want.push_back(p);
  CHECK(plan(uint64_t{1} << 27, c, uint64_t{1} << 16) == want);
  // Fewer lookups than a slot's minimum piece: one chunk.
  CHECK(plan(1000, 1000, uint64_t{1} << 16) == std::vector<uint64_t>{1000});
  // Every size around the boundaries adds up, in chunks that fit the slots; the first and last
  // chunks of a long call are at most a quarter (and three eighths) of a chunk.
  for (uint64_t chunk : {1, 2, 3, 4, 7, 64, 1000})
    for (uint64_t count = 1; count <= 9 * chunk + 3; ++count) {
      CAPTURE(chunk);
      CAPTURE(count);
      const uint64_t slots = std::min(chunk, count);
      const uint64_t min_piece = std::max<uint64_t>(chunk / 4, 1);
      std::vector<uint64_t> pieces = plan(count, slots, min_piece);
      uint64_t sum = 0;
      for (uint64_t p : pieces) sum += p;
      CHECK(sum == count);
      CHECK(*std::max_element(pieces.begin(), pieces.end()) <= slots);
      if (count >= 4 * chunk && chunk >= 4) {
        CHECK(pieces.front() <= chunk / 4);
        CHECK(pieces.back() * 8 <= 3 * chunk + 8);
      }
    }
}
