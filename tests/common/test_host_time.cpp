// raydb::host_time_breakdown: where calls spend host time (raydb/host_time.hpp). The bench rows'
// breakdowns of end-to-end builds and lookups rest on two promises checked here: a kind counts
// only as the outermost scope on its thread, so kinds never add up to more than the wall clock,
// and the backend's allocations, waits and releases are all seen.
#include <doctest/doctest.h>

#include <chrono>
#include <numeric>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "common/host_time.hpp"
#include "raydb/sorted_index.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

double wall_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("host time: only the outermost scope on a thread counts") {
  using namespace std::chrono_literals;
  const HostTimeBreakdown before = host_time_breakdown();
  const auto t0 = std::chrono::steady_clock::now();
  {
    detail::HostPhaseScope outer(detail::HostPhase::allocate);
    std::this_thread::sleep_for(20ms);
    detail::HostPhaseScope inner(detail::HostPhase::wait);
    std::this_thread::sleep_for(10ms);
  }
  const double wall = wall_ms(t0);
  const HostTimeBreakdown d = host_time_breakdown() - before;
  CHECK(d.allocations == 1);
  CHECK(d.allocate_ms >= 30.0);
  CHECK(d.allocate_ms <= wall);
  CHECK(d.wait_ms == 0.0);
  // Scopes on another thread count on their own.
  const HostTimeBreakdown mid = host_time_breakdown();
  std::thread([] {
    detail::HostPhaseScope w(detail::HostPhase::wait);
    std::this_thread::sleep_for(5ms);
  }).join();
  CHECK((host_time_breakdown() - mid).wait_ms >= 5.0);
}

TEST_CASE("host time: a build's allocations, waits and copies are seen, within its wall clock") {
  test::ValidationGuard guard;
  const uint64_t n = 1u << 16;
  std::mt19937 rng(21);
  std::vector<uint32_t> keys(n), values(n);
  for (auto& k : keys) k = rng();
  std::iota(values.begin(), values.end(), 0u);
  const HostTimeBreakdown before = host_time_breakdown();
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<SortedIndex> index;
  index.emplace(SortedIndex::build(test::context(), KeySpan(keys), values).value());
  const double wall = wall_ms(t0);
  const HostTimeBreakdown built = host_time_breakdown() - before;
  CHECK(built.allocations >= 4);  // values, records, fences, counters (keys may be kept spares)
  CHECK(built.allocate_ms > 0.0);
  CHECK(built.wait_ms > 0.0);  // the build waits for its upload, sort and layout
  CHECK(built.copy_ms > 0.0);  // keys and values staged from the vectors
  // The duplicate counter goes before the build returns; staging and sort scratch are freed on the
  // context's release queue, whose thread counts nothing.
  CHECK(built.release_ms > 0.0);
  CHECK(built.sum_ms() <= wall);
  const HostTimeBreakdown kept = host_time_breakdown();
  index.reset();
  CHECK((host_time_breakdown() - kept).release_ms > 0.0);
}
