// The kernel backend as an option (RxBuildOptions::backend, CgrxBuildOptions::backend,
// SortedOptions::backend, HashOptions::backend): each key index sorts its keys (and RX its
// probes) in Vulkan compute or in CUDA as its options say. Without CUDA (lavapipe), backend = cuda
// is refused by name and vulkan builds; where CUDA runs (the GPU machine), both give the CPU
// reference's answers.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "raydb/cgrx_index.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/sorted_index.hpp"
#include "support.hpp"

namespace raydb::test {
namespace {

struct Data {
  std::vector<uint32_t> keys, values, points;
  std::vector<Range32> ranges;
};

// Keys with duplicates and both ends of the key space; points that hit and miss.
Data make_data(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Data d;
  std::uniform_int_distribution<uint32_t> key(0, 1u << 20);
  for (int i = 0; i < 3000; ++i) d.keys.push_back(key(rng));
  for (uint32_t k : {0u, 0u, 0xFFFFFFFEu, 0xFFFFFFFEu, 7u}) d.keys.push_back(k);
  for (size_t i = 0; i < d.keys.size(); ++i) d.values.push_back(static_cast<uint32_t>(rng()));
  for (int i = 0; i < 2000; ++i)
    d.points.push_back(i % 2 ? d.keys[rng() % d.keys.size()] : key(rng));
  for (uint32_t p : {0u, 0xFFFFFFFEu, 0xFFFFFFFFu}) d.points.push_back(p);
  for (int i = 0; i < 500; ++i) {
    uint32_t lo = key(rng);
    d.ranges.push_back({lo, lo + static_cast<uint32_t>(rng() % 4096)});
  }
  return d;
}

// Builds `Index` with `backend` and checks point (and, where the index has them, range) lookups
// whole against the CPU reference; where CUDA cannot run, backend = cuda must be refused.
template <class Index, class Options>
void check_backend(const Data& d, Backend backend, const char* what) {
  CAPTURE(what);
  std::string backend_name = to_string(backend);
  CAPTURE(backend_name);
  Options o;
  o.backend = backend;
  if constexpr (std::is_same_v<Options, RxBuildOptions>) o.sort_probes = true;  // the probe sort
  auto built = Index::build(context(), KeySpan(std::span<const uint32_t>(d.keys)), d.values, o);
  if (backend == Backend::cuda && !context().cuda().available) {
    REQUIRE_FALSE(built);
    CHECK(built.error().code() == Errc::unsupported);
    std::string msg = built.error().what();
    CHECK_MESSAGE(msg.find("CUDA") != std::string::npos, msg);
    return;
  }
  REQUIRE_MESSAGE(built, std::string(built ? "" : built.error().what()));
  RxReference ref(KeySpan(std::span<const uint32_t>(d.keys)), d.values);
  KeySpan points(std::span<const uint32_t>(d.points));
  check_equal_whole(built.value().lookup(points).value(), ref.lookup(points), "points");
  if constexpr (!std::is_same_v<Index, HashIndex>) {
    RangeSpan ranges(std::span<const Range32>(d.ranges));
    check_equal_whole(built.value().lookup_ranges(ranges).value(), ref.lookup_ranges(ranges),
                      "ranges");
  }
}

}  // namespace

TEST_CASE("kernel backend: each key index sorts in Vulkan or CUDA as its options say") {
  ValidationGuard guard;
  Data d = make_data(fresh_seed());
  for (Backend b : {Backend::vulkan, Backend::cuda, Backend::automatic}) {
    check_backend<RxIndex, RxBuildOptions>(d, b, "rx");
    check_backend<CgrxIndex, CgrxBuildOptions>(d, b, "cgrx");
    check_backend<SortedIndex, SortedOptions>(d, b, "sorted");
    check_backend<HashIndex, HashOptions>(d, b, "hash");
  }
}

}  // namespace raydb::test
