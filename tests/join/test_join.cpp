// RxJoin against the CPU hash join: duplicates on both sides, misses, all-match joins far larger
// than either side, empty sides, and mismatched key widths.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <random>

#include "raydb/join.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

template <class K>
std::vector<K> keys_from(std::mt19937_64& rng, size_t n, uint64_t universe, uint64_t top) {
  std::vector<K> k(n);
  // A small universe gives duplicates on both sides; `top` puts some keys at the width's edge.
  for (auto& x : k) x = static_cast<K>(rng() % 8 == 0 ? top - rng() % 3 : rng() % universe);
  return k;
}

template <class K>
void check_join(RxJoin& join, const std::vector<K>& build, const std::vector<uint32_t>& values,
                const std::vector<K>& probe, const char* what) {
  CAPTURE(what);
  auto pairs = join.pairs(probe);
  REQUIRE_MESSAGE(pairs.ok(), std::string(pairs.ok() ? "" : pairs.error().what()));
  std::sort(pairs->begin(), pairs->end());
  test::check_equal_whole(*pairs, join_pairs_reference(build, probe), what);
  CHECK(join.last_stats().matches == pairs->size());
  auto agg = join.aggregate(probe);
  REQUIRE(agg.ok());
  CHECK(*agg == join_aggregate_reference(build, values, probe));
}

}  // namespace

TEST_CASE_TEMPLATE("join: pairs and aggregates equal the CPU hash join", K, uint32_t, uint64_t) {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  const uint64_t top = std::numeric_limits<K>::max();
  auto build = keys_from<K>(rng, 3000, 1200, top);
  std::vector<uint32_t> values(build.size());
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  auto probe = keys_from<K>(rng, 2500, 1500, top);  // some keys only on one side
  auto join = RxJoin::build(test::context(), build, values).value();
  check_join(join, build, values, probe, "random keys");

  // All-match: every probe key meets 400 build rows, 80,000 pairs from 200 probes.
  std::vector<K> same(400, static_cast<K>(top - 1)), probe_same(200, static_cast<K>(top - 1));
  std::vector<uint32_t> ones(same.size(), 0xFFFFFFFFu);
  auto all = RxJoin::build(test::context(), same, ones).value();
  check_join(all, same, ones, probe_same, "all-match");
  CHECK(all.last_stats().matches == 80000);

  // Empty sides.
  std::vector<K> none;
  check_join(join, build, values, none, "empty probe side");
  auto empty = RxJoin::build(test::context(), none).value();
  check_join(empty, none, {}, probe, "empty build side");
}

namespace {

// The one-shot join indexing either side (automatic: the smaller one) with `base`'s index, for
// build / probe sizes (nb, np) and the reverse: pairs and aggregate equal the CPU join's.
template <class K>
void check_either_side(JoinOptions base, size_t large, size_t small) {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  const uint64_t top = std::numeric_limits<K>::max();
  for (auto [nb, np] : {std::pair<size_t, size_t>{large, small}, {small, large}}) {
    CAPTURE(nb);
    auto build = keys_from<K>(rng, nb, 500, top);
    auto probe = keys_from<K>(rng, np, 700, top);
    std::vector<uint32_t> values(build.size());
    for (auto& v : values) v = static_cast<uint32_t>(rng());
    auto want_pairs = join_pairs_reference(build, probe);
    auto want_agg = join_aggregate_reference(build, values, probe);
    for (JoinSide side : {JoinSide::automatic, JoinSide::build, JoinSide::probe}) {
      CAPTURE(to_string(side));
      JoinOptions o = base;
      o.indexed = side;
      JoinStats stats;
      auto pairs = rx_join(test::context(), build, probe, o, &stats).value();
      std::sort(pairs.begin(), pairs.end());
      test::check_equal_whole(pairs, want_pairs, "pairs");
      JoinSide expected = side != JoinSide::automatic ? side
                          : np < nb                   ? JoinSide::probe
                                                      : JoinSide::build;
      CHECK(stats.indexed == expected);
      CHECK(stats.matches == want_pairs.size());
      CHECK(rx_join_aggregate(test::context(), build, values, probe, o).value() == want_agg);
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("join: indexing either side gives the same join", K, uint32_t, uint64_t) {
  // A large build side and a small probe side (automatic indexes the probe side), and the reverse.
  check_either_side<K>(JoinOptions{}, 4000, 300);
}

namespace {

template <class K>
void check_cgrx_join(CgrxJoin& join, const std::vector<K>& build,
                     const std::vector<uint32_t>& values, const std::vector<K>& probe,
                     const char* what) {
  CAPTURE(what);
  auto pairs = join.pairs(probe);
  REQUIRE_MESSAGE(pairs.ok(), std::string(pairs.ok() ? "" : pairs.error().what()));
  CHECK(join.index().last_fallbacks() == 0);  // the rays, not the exact fallback, found buckets
  std::sort(pairs->begin(), pairs->end());
  test::check_equal_whole(*pairs, join_pairs_reference(build, probe), what);
  CHECK(join.last_stats().matches == pairs->size());
  auto agg = join.aggregate(probe);
  REQUIRE_MESSAGE(agg.ok(), std::string(agg.ok() ? "" : agg.error().what()));
  CHECK(*agg == join_aggregate_reference(build, values, probe));
  CHECK(join.last_stats().matches == agg->matches);
}

}  // namespace

TEST_CASE_TEMPLATE("join: the cgRX join equals the CPU hash join", K, uint32_t, uint64_t) {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  const uint64_t top = std::numeric_limits<K>::max();
  auto build = keys_from<K>(rng, 3000, 1200, top);
  auto probe = keys_from<K>(rng, 2500, 1500, top);  // duplicates on both sides, misses
  for (uint64_t e : test::edge_keys(sizeof(K) == 8)) {
    build.push_back(static_cast<K>(e));
    build.push_back(static_cast<K>(e));
    probe.push_back(static_cast<K>(e));
  }
  std::shuffle(build.begin(), build.end(), rng);
  std::vector<uint32_t> values(build.size());
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  // All-match: every probe key meets 400 build rows (runs over many buckets), 80,000 pairs.
  std::vector<K> same(400, static_cast<K>(top)), probe_same(200, static_cast<K>(top));
  std::vector<uint32_t> ones(same.size(), 0xFFFFFFFFu);
  std::vector<K> none;
  // Bucket size 2: nearly every run of duplicates crosses a bucket boundary.
  for (uint32_t bucket : {2u, 32u}) {
    CAPTURE(bucket);
    CgrxBuildOptions o;
    o.bucket_size = bucket;
    auto join = CgrxJoin::build(test::context(), build, values, o).value();
    check_cgrx_join(join, build, values, probe, "random keys and edges");
    check_cgrx_join(join, build, values, none, "empty probe side");
    auto all = CgrxJoin::build(test::context(), same, ones, o).value();
    check_cgrx_join(all, same, ones, probe_same, "all-match");
    CHECK(all.last_stats().matches == 80000);
    auto empty = CgrxJoin::build(test::context(), none, {}, o).value();
    check_cgrx_join(empty, none, {}, probe, "empty build side");
  }
}

TEST_CASE_TEMPLATE("join: the one-shot cgRX join indexes either side", K, uint32_t, uint64_t) {
  JoinOptions o;
  o.kind = JoinIndex::cgrx;
  o.cgrx.bucket_size = 8;
  check_either_side<K>(o, 2000, 200);
}

TEST_CASE("join: the cgRX join refuses mismatched key widths and bad buckets") {
  std::vector<uint32_t> build{1, 2, 3};
  std::vector<uint64_t> probe{1, 2};
  auto join = CgrxJoin::build(test::context(), build).value();
  for (bool pairs : {true, false}) {
    CAPTURE(pairs);
    Error e = pairs ? join.pairs(probe).error() : join.aggregate(probe).error();
    CHECK(e.code() == Errc::invalid_argument);
    CHECK(std::string(e.what()).find("width") != std::string::npos);
  }
  JoinOptions o;
  o.kind = JoinIndex::cgrx;
  for (JoinSide side : {JoinSide::build, JoinSide::probe}) {
    o.indexed = side;
    auto one_shot = rx_join(test::context(), build, probe, o);
    REQUIRE(!one_shot.ok());
    CHECK(one_shot.error().code() == Errc::invalid_argument);
  }
  o.indexed = JoinSide::build;
  o.cgrx.bucket_size = 3;
  auto bad_bucket = rx_join(test::context(), build, build, o);
  REQUIRE(!bad_bucket.ok());
  CHECK(bad_bucket.error().code() == Errc::invalid_argument);
}

TEST_CASE("join: mismatched key widths get a clear error") {
  std::vector<uint32_t> build{1, 2, 3};
  std::vector<uint64_t> probe{1, 2};
  auto join = RxJoin::build(test::context(), build).value();
  auto p = join.pairs(probe);
  REQUIRE(!p.ok());
  CHECK(p.error().code() == Errc::invalid_argument);
  auto a = join.aggregate(probe);
  REQUIRE(!a.ok());
  CHECK(a.error().code() == Errc::invalid_argument);
  for (JoinSide side : {JoinSide::build, JoinSide::probe}) {
    JoinOptions o;
    o.indexed = side;
    auto one_shot = rx_join(test::context(), build, probe, o);
    REQUIRE(!one_shot.ok());
    CHECK(one_shot.error().code() == Errc::invalid_argument);
  }
  std::vector<uint32_t> too_few{7};
  auto bad_values = rx_join_aggregate(test::context(), build, too_few, build);
  REQUIRE(!bad_values.ok());
  CHECK(bad_values.error().code() == Errc::invalid_argument);
}

namespace {

template <class K>
void check_baseline_join(BaselineJoin kind, const std::vector<K>& build,
                         const std::vector<uint32_t>& values, const std::vector<K>& probe,
                         const char* what) {
  CAPTURE(what);
  CAPTURE(to_string(kind));
  JoinStats stats;
  auto pairs = baseline_join(test::context(), kind, build, probe, &stats);
  REQUIRE_MESSAGE(pairs.ok(), std::string(pairs.ok() ? "" : pairs.error().what()));
  std::sort(pairs->begin(), pairs->end());
  test::check_equal_whole(*pairs, join_pairs_reference(build, probe), what);
  CHECK(stats.matches == pairs->size());
  auto agg = baseline_join_aggregate(test::context(), kind, build, values, probe);
  REQUIRE_MESSAGE(agg.ok(), std::string(agg.ok() ? "" : agg.error().what()));
  CHECK(*agg == join_aggregate_reference(build, values, probe));
}

}  // namespace

TEST_CASE_TEMPLATE("join: the sort-merge and sorted-array and hash joins equal the CPU hash join",
                   K, uint32_t, uint64_t) {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  const uint64_t top = std::numeric_limits<K>::max();
  auto build = keys_from<K>(rng, 3000, 1200, top);
  auto probe = keys_from<K>(rng, 2500, 1500, top);  // duplicates on both sides, misses
  // The magnitude edges on both sides, twice on the build side.
  for (uint64_t e : test::edge_keys(sizeof(K) == 8)) {
    build.push_back(static_cast<K>(e));
    build.push_back(static_cast<K>(e));
    probe.push_back(static_cast<K>(e));
  }
  std::shuffle(build.begin(), build.end(), rng);
  std::vector<uint32_t> values(build.size());
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  std::vector<K> same(400, static_cast<K>(top - 1)), probe_same(200, static_cast<K>(top - 1));
  std::vector<uint32_t> ones(same.size(), 0xFFFFFFFFu);
  std::vector<K> none;
  // Unique build keys (the hash table then holds rows inline, not runs).
  std::vector<K> unique_build = build;
  std::sort(unique_build.begin(), unique_build.end());
  unique_build.erase(std::unique(unique_build.begin(), unique_build.end()), unique_build.end());
  std::shuffle(unique_build.begin(), unique_build.end(), rng);
  std::vector<uint32_t> unique_values(unique_build.size());
  for (auto& v : unique_values) v = static_cast<uint32_t>(rng());
  auto long_runs = keys_from<K>(rng, 20000, 500, top);
  auto long_probe = keys_from<K>(rng, 5000, 600, top);
  std::vector<uint32_t> long_values(long_runs.size());
  for (auto& v : long_values) v = static_cast<uint32_t>(rng());
  for (BaselineJoin kind : {BaselineJoin::sort_merge, BaselineJoin::sort_search,
                            BaselineJoin::sorted_array, BaselineJoin::hash}) {
    check_baseline_join(kind, build, values, probe, "random keys");
    check_baseline_join(kind, unique_build, unique_values, probe, "unique build keys");
    // Long runs on both sides (about 40 build and 8 probe rows a key): merge-path splits fall
    // inside runs, and every merge step of a workgroup meets duplicates.
    check_baseline_join(kind, long_runs, long_values, long_probe, "long runs on both sides");
    // All-match: 80,000 pairs from 400 x 200 rows, the output sized by the counting pass alone.
    check_baseline_join(kind, same, ones, probe_same, "all-match");
    check_baseline_join(kind, build, values, none, "empty probe side");
    check_baseline_join(kind, none, {}, probe, "empty build side");
  }
}

TEST_CASE("join: the baseline joins refuse mismatched key widths and value counts") {
  std::vector<uint32_t> build{1, 2, 3};
  std::vector<uint64_t> probe{1, 2};
  for (BaselineJoin kind : {BaselineJoin::sort_merge, BaselineJoin::sort_search,
                            BaselineJoin::sorted_array, BaselineJoin::hash}) {
    auto p = baseline_join(test::context(), kind, build, probe);
    REQUIRE(!p.ok());
    CHECK(p.error().code() == Errc::invalid_argument);
    CHECK(std::string(p.error().what()).find("width") != std::string::npos);
    auto a = baseline_join_aggregate(test::context(), kind, build, {}, probe);
    REQUIRE(!a.ok());
    CHECK(a.error().code() == Errc::invalid_argument);
    std::vector<uint32_t> too_few{7};
    auto bad_values = baseline_join_aggregate(test::context(), kind, build, too_few, build);
    REQUIRE(!bad_values.ok());
    CHECK(bad_values.error().code() == Errc::invalid_argument);
  }
}

// 2^16 build rows and 2^16 probe rows, all of one key: 2^32 pairs, one more than a pass can
// write. pairs() must refuse with limit_exceeded (nothing truncated), the aggregate must still
// count every pair in 64 bits.
TEST_CASE("join: more than 2^32 - 1 pairs is refused and the aggregate still counts them") {
  const uint32_t key = 0xFFFFFFFFu - static_cast<uint32_t>(test::fresh_seed() % 1000);
  std::vector<uint32_t> build(1u << 16, key), probe(1u << 16, key);
  std::vector<uint32_t> values(build.size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint32_t>(i * 2654435761u);
  uint64_t value_sum = 0;
  for (uint32_t v : values) value_sum += v;
  const JoinAggregate want{uint64_t{1} << 32, value_sum << 16};
  for (BaselineJoin kind : {BaselineJoin::sort_merge, BaselineJoin::hash}) {
    CAPTURE(to_string(kind));
    auto p = baseline_join(test::context(), kind, build, probe);
    REQUIRE(!p.ok());
    CHECK(p.error().code() == Errc::limit_exceeded);
    auto a = baseline_join_aggregate(test::context(), kind, build, values, probe);
    REQUIRE_MESSAGE(a.ok(), std::string(a.ok() ? "" : a.error().what()));
    CHECK(*a == want);
  }
  // RX with duplicate compression counts a run without walking it.
  RxBuildOptions o;
  o.compress_duplicates = true;
  auto join = RxJoin::build(test::context(), build, values, o).value();
  auto p = join.pairs(probe);
  REQUIRE(!p.ok());
  CHECK(p.error().code() == Errc::limit_exceeded);
  auto a = join.aggregate(probe);
  REQUIRE(a.ok());
  CHECK(*a == want);
}
