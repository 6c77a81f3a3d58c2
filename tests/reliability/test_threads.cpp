// Several threads on one Context: lookups on one shared index, lookups on indexes of every kind,
// and builds, all at once; every result is compared whole with the CPU reference. Runs in CI
// under ThreadSanitizer too (tests/sanitize.sh). doctest's assertions are not thread-safe, so
// the threads count failures and the main thread checks the counts.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "raydb/cgrx_index.hpp"
#include "raydb/dpbis.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/join.hpp"
#include "raydb/rtscan.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/scan.hpp"
#include "raydb/sorted_index.hpp"
#include "scan_data.hpp"
#include "support.hpp"

namespace raydb {
namespace {

// Failures seen by the worker threads; the first few messages are kept for the report.
struct Failures {
  std::atomic<uint64_t> wrong{0}, errors{0}, batches{0};
  std::mutex m;
  std::vector<std::string> first;
  void note(std::atomic<uint64_t>& counter, std::string what) {
    counter.fetch_add(1);
    std::lock_guard lock(m);
    if (first.size() < 5) first.push_back(std::move(what));
  }
};

template <class Index>
void check_points(Index& index, const RxReference& ref, const std::vector<uint32_t>& points,
                  const char* name, Failures& f) {
  f.batches.fetch_add(1);
  auto got = index.lookup(KeySpan(points));
  if (!got.ok()) return f.note(f.errors, std::string(name) + ": " + got.error().what());
  if (*got != ref.lookup(KeySpan(points))) f.note(f.wrong, std::string(name) + " points differ");
}

template <class Index>
void check_ranges(Index& index, const RxReference& ref, const std::vector<Range32>& ranges,
                  const char* name, Failures& f) {
  f.batches.fetch_add(1);
  auto got = index.lookup_ranges(RangeSpan(ranges));
  if (!got.ok()) return f.note(f.errors, std::string(name) + ": " + got.error().what());
  if (*got != ref.lookup_ranges(RangeSpan(ranges)))
    f.note(f.wrong, std::string(name) + " ranges differ");
}

// Distinct random keys (the hash index and cgRX take duplicates too, but distinct keys keep the
// reference's first rows unambiguous for every index kind).
std::vector<uint32_t> distinct_keys(size_t n, std::mt19937_64& rng) {
  std::vector<uint32_t> k(n);
  std::iota(k.begin(), k.end(), 0u);
  for (auto& x : k) x = x * 7919u + static_cast<uint32_t>(rng() % 7919);
  std::shuffle(k.begin(), k.end(), rng);
  return k;
}

std::vector<uint32_t> probes(const std::vector<uint32_t>& keys, size_t n, std::mt19937_64& rng) {
  std::vector<uint32_t> p(n);
  for (auto& x : p) x = rng() % 2 ? keys[rng() % keys.size()] : static_cast<uint32_t>(rng());
  return p;
}

std::vector<Range32> ranges(const std::vector<uint32_t>& keys, size_t n, std::mt19937_64& rng) {
  std::vector<Range32> r(n);
  for (auto& x : r) {
    uint32_t lo = keys[rng() % keys.size()];
    x = {lo, lo + static_cast<uint32_t>(rng() % 50000)};
    if (x.hi < x.lo) x.hi = ~0u;
  }
  return r;
}

}  // namespace

TEST_CASE("threads: lookups and builds on one Context from several threads equal the reference") {
  test::ValidationGuard guard;
  Context& ctx = test::context();
  uint64_t seed = test::fresh_seed();
  std::mt19937_64 rng(seed);
  auto keys = distinct_keys(3000, rng);
  std::vector<uint32_t> values(keys.size());
  for (auto& v : values) v = static_cast<uint32_t>(rng() % 1000);
  RxReference ref(KeySpan(keys), values);

  auto rx = RxIndex::build(ctx, KeySpan(keys), values);
  auto cgrx = CgrxIndex::build(ctx, KeySpan(keys), values);
  auto sorted = SortedIndex::build(ctx, KeySpan(keys), values);
  auto hash = HashIndex::build(ctx, KeySpan(keys), values);
  REQUIRE(rx.ok());
  REQUIRE(cgrx.ok());
  REQUIRE(sorted.ok());
  REQUIRE(hash.ok());

  constexpr int kThreads = 4, kRounds = 6;
  Failures f;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 r(seed + 1 + static_cast<uint64_t>(t));
      for (int round = 0; round < kRounds; ++round) {
        auto p = probes(keys, 1500, r);
        auto q = ranges(keys, 300, r);
        // Every thread probes the one shared RxIndex: the case that used to go wrong.
        check_points(*rx, ref, p, "shared rx", f);
        check_ranges(*rx, ref, q, "shared rx", f);
        switch ((t + round) % 4) {
          case 0:
            check_points(*cgrx, ref, p, "cgrx", f);
            check_ranges(*cgrx, ref, q, "cgrx", f);
            break;
          case 1:
            check_points(*sorted, ref, p, "sorted", f);
            check_ranges(*sorted, ref, q, "sorted", f);
            break;
          case 2:
            check_points(*hash, ref, p, "hash", f);
            break;
          default: {
            // A build beside the others' lookups: a thread's own index over fresh keys.
            auto own_keys = distinct_keys(1000 + 100 * static_cast<size_t>(t), r);
            RxReference own_ref{KeySpan(own_keys)};
            auto own = RxIndex::build(ctx, KeySpan(own_keys));
            f.batches.fetch_add(1);
            if (!own.ok()) {
              f.note(f.errors, std::string("build: ") + own.error().what());
              break;
            }
            check_points(*own, own_ref, probes(own_keys, 1000, r), "own rx", f);
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& m : f.first) MESSAGE(m);
  CHECK(f.batches.load() >= kThreads * kRounds * 3);
  CHECK_MESSAGE(f.errors.load() == 0, f.errors.load() << " calls failed");
  CHECK_MESSAGE(f.wrong.load() == 0, f.wrong.load() << " of " << f.batches.load()
                                                    << " batches differ from the reference");
}

TEST_CASE(
    "threads: scans, RTScan, DP-BIS and a join shared by several threads equal the reference") {
  test::ValidationGuard guard;
  Context& ctx = test::context();
  uint64_t seed = test::fresh_seed();
  std::mt19937_64 rng(seed);
  constexpr uint64_t kRows = 5000;
  std::vector<std::vector<uint32_t>> data;
  for (int k = 0; k < 3; ++k) data.push_back(test::column(rng, kRows, k));
  std::vector<std::span<const uint32_t>> cols(data.begin(), data.end());
  auto rtscan = RtScanTable::build(ctx, cols);
  auto dpbis = DpBisTable::build(ctx, cols);
  auto table = ColumnTable::upload(ctx, cols);
  REQUIRE_MESSAGE(rtscan.ok(), std::string(rtscan.ok() ? "" : rtscan.error().what()));
  REQUIRE_MESSAGE(dpbis.ok(), std::string(dpbis.ok() ? "" : dpbis.error().what()));
  REQUIRE(table.ok());
  // The join's build side: keys with duplicates, so pairs and sums are not trivial.
  std::vector<uint32_t> build_keys(2000), build_values(2000);
  for (auto& k : build_keys) k = static_cast<uint32_t>(rng() % 1500);
  for (auto& v : build_values) v = static_cast<uint32_t>(rng() % 100);
  RxReference join_ref(KeySpan(build_keys), build_values);
  auto join = RxJoin::build(ctx, KeySpan(build_keys), build_values);
  REQUIRE(join.ok());

  constexpr int kThreads = 3, kRounds = 4;
  Failures f;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 r(seed + 100 + static_cast<uint64_t>(t));
      for (int round = 0; round < kRounds; ++round) {
        std::vector<Predicate> preds;
        for (uint32_t c = 0; c < 2; ++c) {
          uint32_t col = (c + static_cast<uint32_t>(t)) % 3;
          preds.push_back(test::random_column_predicate(r, data[col], col));
        }
        auto want_all = test::reference(cols, preds, Combine::all, kRows);
        auto want_any = test::reference(cols, preds, Combine::any, kRows);
        auto check = [&](Result<Bitmap> got, const std::vector<uint32_t>& want, const char* name) {
          f.batches.fetch_add(1);
          if (!got.ok()) return f.note(f.errors, std::string(name) + ": " + got.error().what());
          auto words = got->words();
          if (!words.ok()) return f.note(f.errors, std::string(name) + ": " + words.error().what());
          if (*words != want) f.note(f.wrong, std::string(name) + " bitmap differs");
        };
        check(rtscan->select(preds), want_all, "rtscan");
        check(dpbis->select(preds, Combine::all), want_all, "dpbis all");
        check(dpbis->select(preds, Combine::any), want_any, "dpbis any");
        check(full_scan(*table, preds), want_all, "full_scan");

        std::vector<uint32_t> probe(800);
        for (auto& k : probe) k = static_cast<uint32_t>(r() % 2000);
        JoinAggregate want{};
        for (const RxLookup& l : join_ref.lookup(KeySpan(probe))) {
          want.matches += l.count;
          want.build_value_sum += l.sum;
        }
        f.batches.fetch_add(1);
        auto got = join->aggregate(KeySpan(probe));
        if (!got.ok())
          f.note(f.errors, std::string("join: ") + got.error().what());
        else if (!(*got == want))
          f.note(f.wrong, "join aggregate differs");
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& m : f.first) MESSAGE(m);
  CHECK(f.batches.load() == kThreads * kRounds * 5);
  CHECK_MESSAGE(f.errors.load() == 0, f.errors.load() << " calls failed");
  CHECK_MESSAGE(f.wrong.load() == 0, f.wrong.load() << " of " << f.batches.load()
                                                    << " results differ from the reference");
}

}  // namespace raydb
