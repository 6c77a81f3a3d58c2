// Host-side parallel loops for the CPU reference and the workload generators.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace raydb::detail {

inline unsigned host_threads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

// Calls f(begin, end, part) on `parts` contiguous slices of [0, n), one thread each.
template <class F>
void parallel_slices(size_t n, unsigned parts, F&& f) {
  if (parts <= 1 || n < 2 * parts) {
    f(size_t{0}, n, 0u);
    return;
  }
  std::vector<std::thread> pool;
  size_t per = (n + parts - 1) / parts;
  for (unsigned t = 0; t < parts; ++t) {
    size_t b = std::min(n, t * per), e = std::min(n, b + per);
    pool.emplace_back([&f, b, e, t] { f(b, e, t); });
  }
  for (auto& t : pool) t.join();
}

// Runs f(i) for every i in [0, n) on all hardware threads.
template <class F>
void parallel_for(size_t n, F&& f) {
  unsigned parts = n < 4096 ? 1 : host_threads();
  parallel_slices(n, parts, [&f](size_t b, size_t e, unsigned) {
    for (size_t i = b; i < e; ++i) f(i);
  });
}

}  // namespace raydb::detail
