// detail::WorkerPool (common/worker_pool.hpp): the threads kept for the pipelined lookups' host
// copies.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "common/host_copy.hpp"
#include "common/worker_pool.hpp"

using namespace raydb;

TEST_CASE("worker pool: every block runs once per pass") {
  detail::WorkerPool& pool = detail::WorkerPool::shared();
  REQUIRE(pool.size() >= 1);
  for (uint32_t blocks : {0u, 1u, 2u, pool.size(), 4 * pool.size() + 3, 1000u}) {
    CAPTURE(blocks);
    for (int pass = 0; pass < 30; ++pass) {
      std::vector<std::atomic<int>> runs(blocks + 1);
      const std::function<void(uint32_t)> block = [&](uint32_t b) { runs[b].fetch_add(1); };
      REQUIRE(pool.try_run(blocks, block));
      int wrong = 0;
      for (uint32_t b = 0; b < runs.size(); ++b) wrong += runs[b].load() != (b < blocks ? 1 : 0);
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("worker pool: a pass started while another runs is refused, then the pool is free") {
  detail::WorkerPool& pool = detail::WorkerPool::shared();
  bool second = true;
  std::atomic<bool> asked{false};
  const std::function<void(uint32_t)> inner = [](uint32_t) {};
  const std::function<void(uint32_t)> outer = [&](uint32_t) {
    if (!asked.exchange(true)) std::thread([&] { second = pool.try_run(1, inner); }).join();
  };
  REQUIRE(pool.try_run(8, outer));
  CHECK(asked.load());
  CHECK_FALSE(second);
  CHECK(pool.try_run(1, inner));
}

TEST_CASE("worker pool: host copies from several threads at once each copy exactly") {
  // Above host_copies' 4 MiB threshold, so each call wants the pool; the ones that find it taken
  // copy on threads of their own.
  constexpr size_t kBytes = (size_t{5} << 20) + 99;
  constexpr int kThreads = 4, kCalls = 12;
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int c = 0; c < kThreads; ++c)
    callers.emplace_back([&, c] {
      std::vector<uint8_t> src(kBytes), dst(kBytes);
      for (int call = 0; call < kCalls; ++call) {
        for (size_t i = 0; i < kBytes; i += 4093) src[i] = static_cast<uint8_t>(c * 31 + call + i);
        src[kBytes - 1] = static_cast<uint8_t>(call ^ c);
        detail::host_copies({{dst.data(), src.data(), kBytes}});
        wrong += std::memcmp(dst.data(), src.data(), kBytes) != 0;
      }
    });
  for (auto& t : callers) t.join();
  CHECK(wrong.load() == 0);
}
