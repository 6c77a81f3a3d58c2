// Host-side parallel loops for the CPU reference and the workload generators.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
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

// An allocator that leaves new elements uninitialised. A vector that a parallel pass fills whole
// then skips the serial zero fill: on a many-core host, zeroing gigabytes on one thread (and
// taking every page fault there) costs more than the parallel pass that writes them.
template <class T>
struct NoInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <class U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// A vector whose resize() leaves the new elements for the caller to write (trivial T only).
template <class T>
using FillLaterVector = std::vector<T, NoInitAllocator<T>>;

// Resizes v to n zeroed elements, zeroing contiguous slices on all threads: the pages are first
// touched in order and in parallel, which a scattered fill that follows cannot do as cheaply.
template <class T>
void resize_zeroed(FillLaterVector<T>& v, size_t n) {
  v.resize(n);
  unsigned parts = n * sizeof(T) < (size_t{1} << 22) ? 1 : host_threads();
  parallel_slices(
      n, parts, [&v](size_t b, size_t e, unsigned) { std::fill(v.data() + b, v.data() + e, T{}); });
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
