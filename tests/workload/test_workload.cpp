#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "raydb/workload.hpp"
#include "support.hpp"

using namespace raydb;
using namespace raydb::workload;

TEST_CASE("workload: unique keys and non-members never collide and the hit rate holds") {
  for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64}) {
    for (Distribution d : {Distribution::uniform, Distribution::dense}) {
      KeyOptions ko;
      ko.count = 20000;
      ko.width = w;
      ko.distribution = d;
      ko.seed = test::fresh_seed();
      auto wl = make_keys(ko).value();
      std::set<uint64_t> members;
      for (size_t i = 0; i < wl.keys.size(); ++i) members.insert(wl.keys[i]);
      CHECK(members.size() == ko.count);
      for (uint64_t j = 0; j < 20000; ++j)
        CHECK(members.count(wl.universe.non_member(j * 7919)) == 0);
      ProbeOptions po;
      po.count = 20000;
      po.hit_rate = 0.3;
      po.seed = ko.seed + 1;
      auto probes = make_point_probes(wl.universe, po).value();
      size_t hits = 0;
      for (size_t i = 0; i < probes.size(); ++i) hits += members.count(probes[i]);
      CHECK(hits > 5400);
      CHECK(hits < 6600);
    }
  }
}

TEST_CASE("workload: multiplicity and sorted probes") {
  KeyOptions ko;
  ko.count = 4096;
  ko.multiplicity = 8;
  ko.seed = test::fresh_seed();
  auto wl = make_keys(ko).value();
  std::map<uint64_t, int> counts;
  for (size_t i = 0; i < wl.keys.size(); ++i) counts[wl.keys[i]]++;
  CHECK(counts.size() == 512);
  for (auto& [k, c] : counts) CHECK(c == 8);
  ProbeOptions po;
  po.count = 1000;
  po.sorted = true;
  auto p = make_point_probes(wl.universe, po).value();
  CHECK(std::is_sorted(p.k32.begin(), p.k32.end()));
}

TEST_CASE("workload: Zipf skew concentrates on the first ranks") {
  std::mt19937_64 rng(test::fresh_seed());
  ZipfSampler z(1000000, 1.5);
  int first = 0;
  for (int i = 0; i < 100000; ++i) {
    uint64_t r = z(rng);
    REQUIRE(r >= 1);
    REQUIRE(r <= 1000000);
    first += r == 1;
  }
  // P(rank 1) = 1 / zeta(1.5) ~ 0.383 for large n.
  CHECK(first > 36000);
  CHECK(first < 40600);
  ZipfSampler u(10, 0.0);
  std::vector<int> hist(11);
  for (int i = 0; i < 100000; ++i) hist[u(rng)]++;
  for (int r = 1; r <= 10; ++r) CHECK(std::abs(hist[r] - 10000) < 800);
}

TEST_CASE("workload: bad parameters are rejected") {
  KeyOptions ko;
  ko.multiplicity = 0;
  CHECK(make_keys(ko).error().code() == Errc::invalid_argument);
  auto wl = make_keys(KeyOptions{}).value();
  ProbeOptions po;
  po.hit_rate = std::nan("");
  CHECK(make_point_probes(wl.universe, po).error().code() == Errc::invalid_argument);
  po.hit_rate = 1.5;
  CHECK(make_point_probes(wl.universe, po).error().code() == Errc::invalid_argument);
  CHECK(parse_distribution("gauss").error().code() == Errc::invalid_argument);
}
