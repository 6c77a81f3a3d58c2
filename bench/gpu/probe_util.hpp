// What the standalone probes of bench/gpu share (each is built alone with one compiler line; see
// its header): failing with a message, a wall clock and medians.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace probe {

// Prints "<name>: <what>" and exits with status 2 (the probes' "could not measure").
[[noreturn]] inline void fail(const char* name, const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", name, what.c_str());
  std::exit(2);
}

inline double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// The upper median (the middle of an odd count).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace probe
