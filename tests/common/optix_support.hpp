// Shared by the OptiX twin tests (tests/<op>/test_*_optix.cpp): the skip check and the random
// keys, points and ranges with the magnitude edges.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "raydb/optix.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/workload.hpp"
#include "support.hpp"

namespace raydb::test::optix {

// Whether the OptiX path can be exercised; otherwise says why, in the words bench/gpu/optix.sh
// looks for. Never a pass: the caller returns without checking anything.
inline bool optix_or_skip() {
  const OptixSupport& s = optix_support(test::context());
  if (!s.available) MESSAGE("skipped: no OptiX device (" << s.reason << ")");
  return s.available;
}

// `o` with the tracing API set to OptiX and its experiment switches to `x`.
inline RxBuildOptions optix_options(RxBuildOptions o, RxOptixOptions x = {}) {
  o.api = RayTracingApi::optix;
  o.optix = x;
  return o;
}

struct Config {
  Primitive primitive;
  KeyWidth width;
  RxLookupMethod method;
  bool opaque;
  bool key_order;
};

inline std::vector<Config> configs() {
  std::vector<Config> out;
  for (Primitive p : {Primitive::triangles, Primitive::aabbs})
    for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64}) {
      out.push_back({p, w, RxLookupMethod::hit_and_scan, true, true});
      if (p == Primitive::triangles)
        out.push_back({p, w, RxLookupMethod::hit_and_scan, false, true});
      out.push_back({p, w, RxLookupMethod::any_hit, true, true});
      out.push_back({p, w, RxLookupMethod::any_hit, true, false});  // row-order primitives
    }
  return out;
}

inline std::string name(const Config& c) {
  return std::string(to_string(c.primitive)) + "/" + to_string(c.width) + "-bit/" +
         to_string(c.method) + (c.opaque ? "" : "/any-hit-calls") +
         (c.key_order ? "" : "/row-order");
}

// Random keys with duplicates (1-3 copies) and the magnitude edges, in random row order.
inline workload::KeyColumn make_keys(KeyWidth w, size_t distinct, uint64_t max_key,
                                     std::mt19937_64& rng) {
  std::vector<uint64_t> ks;
  for (size_t i = 0; i < distinct; ++i) {
    uint64_t k = rng() % max_key;
    for (uint64_t r = 0, reps = 1 + rng() % 3; r < reps; ++r) ks.push_back(k);
  }
  for (uint64_t e : test::edge_keys(w == KeyWidth::bits64)) ks.push_back(e);
  std::shuffle(ks.begin(), ks.end(), rng);
  workload::KeyColumn c;
  c.width = w;
  for (uint64_t k : ks) c.push_back(k);
  return c;
}

// Half present keys (edges included), half random ones.
inline workload::KeyColumn make_points(const workload::KeyColumn& keys, size_t n, uint64_t max_key,
                                       std::mt19937_64& rng) {
  workload::KeyColumn p;
  p.width = keys.width;
  for (uint64_t e : test::edge_keys(keys.width == KeyWidth::bits64)) p.push_back(e);
  for (size_t i = 0; i < n; ++i)
    p.push_back(i % 2 == 0 && keys.size() ? keys[rng() % keys.size()] : rng() % max_key);
  return p;
}

// Ranges of 1 to 2^26 keys (up to 9 lines of 2^23), from present and random keys, and ranges at
// the top of the key space.
inline workload::RangeColumn make_ranges(const workload::KeyColumn& keys, size_t n,
                                         uint64_t max_key, std::mt19937_64& rng) {
  workload::RangeColumn r;
  r.width = keys.width;
  auto add = [&](uint64_t lo, uint64_t hi) {
    if (r.width == KeyWidth::bits64)
      r.r64.push_back({lo, hi});
    else
      r.r32.push_back({static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)});
  };
  uint64_t top = r.width == KeyWidth::bits64 ? ~uint64_t{0} : 0xFFFFFFFFull;
  add(top - 5, top);
  add(0, 0);
  for (size_t i = 0; i < n; ++i) {
    uint64_t lo = i % 2 == 0 && keys.size() ? keys[rng() % keys.size()] : rng() % max_key;
    uint64_t width = 1 + rng() % (uint64_t{1} << (rng() % 27));
    add(lo, lo > top - width ? top : lo + width - 1);
  }
  return r;
}

// Points, then ranges, through the OptiX `twin` and the Vulkan `index`: each result equal to the
// CPU reference's and to the other API's, whole. `after(ranges)` runs after each (ranges: false
// after the points), for one operator's checks of the last call (rays, fallbacks). Returns the
// reference's answers to the points.
template <class Twin, class Index, class After>
std::vector<RxLookup> check_twin_lookups(Twin& twin, Index& index, const RxReference& ref,
                                         const workload::KeyColumn& points,
                                         const workload::RangeColumn& ranges,
                                         const std::string& what, After after) {
  std::vector<RxLookup> got(points.size()), twin_vk(points.size());
  REQUIRE(twin.lookup(points.span(), got).ok());
  REQUIRE(index.lookup(points.span(), twin_vk).ok());
  auto want = ref.lookup(points.span());
  test::check_lookups(got, want, ("OptiX " + what + "points vs the CPU reference").c_str());
  test::check_lookups(got, twin_vk, ("OptiX " + what + "points vs Vulkan").c_str());
  after(false);

  std::vector<RxLookup> got_r(ranges.size()), twin_r(ranges.size());
  auto st = twin.lookup_ranges(ranges.span(), got_r);
  REQUIRE_MESSAGE(st.ok(), std::string(st.ok() ? "" : st.error().what()));
  REQUIRE(index.lookup_ranges(ranges.span(), twin_r).ok());
  test::check_lookups(got_r, ref.lookup_ranges(ranges.span()),
                      ("OptiX " + what + "ranges vs the CPU reference").c_str());
  test::check_lookups(got_r, twin_r, ("OptiX " + what + "ranges vs Vulkan").c_str());
  after(true);
  return want;
}

}  // namespace raydb::test::optix
