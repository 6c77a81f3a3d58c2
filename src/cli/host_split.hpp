// Bench rows' breakdown of a call's host time (raydb/host_time.hpp): wall clock against the kinds
// of backend work, to tell where end-to-end time goes that no GPU timestamp shows.
#pragma once

#include <chrono>
#include <cmath>
#include <vector>

#include "cli/cli.hpp"
#include "raydb/host_time.hpp"

namespace raydb::cli {

struct HostSplits {
  std::vector<double> wall_ms;
  std::vector<HostTimeBreakdown> parts;

  // Runs `f`; returns its wall clock in ms.
  template <class F>
  double add(F&& f) {
    const HostTimeBreakdown before = host_time_breakdown();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    wall_ms.push_back(ms);
    parts.push_back(host_time_breakdown() - before);
    return ms;
  }

  // Medians over the calls, each part on its own; other_ms: wall clock outside every part. To 1 us
  // (a row holds up to eight of these and must fit a page, cli/results.cpp).
  nlohmann::json json() const {
    if (parts.empty()) return nullptr;
    auto med = [&](auto part) {
      std::vector<double> v;
      for (size_t i = 0; i < parts.size(); ++i) v.push_back(part(i));
      return std::round(median(v) * 1000) / 1000;
    };
    const double allocations = med([&](size_t i) { return double(parts[i].allocations); });
    return {{"allocate_ms", med([&](size_t i) { return parts[i].allocate_ms; })},
            {"release_ms", med([&](size_t i) { return parts[i].release_ms; })},
            {"pipeline_ms", med([&](size_t i) { return parts[i].pipeline_ms; })},
            {"wait_ms", med([&](size_t i) { return parts[i].wait_ms; })},
            {"copy_ms", med([&](size_t i) { return parts[i].copy_ms; })},
            {"other_ms", med([&](size_t i) { return wall_ms[i] - parts[i].sum_ms(); })},
            {"allocations", std::llround(allocations)}};
  }
};

}  // namespace raydb::cli
