// Which path runs a query the ray-tracing plan can express: the measured cost, per fact row, of
// each path on this device and driver. Every query run records its path's time (plan, upload,
// BVH build, launch and finish; not parsing or shader compiles, which the SPIR-V cache hides),
// blended with the earlier measurements; the numbers persist under the cache directory, one file
// per device and driver, like the SPIR-V cache.
#pragma once

#include <cstdint>
#include <string>

#include "raydb/context.hpp"

namespace raydb::sql::detail {

class CostModel {
 public:
  // dir "-": kept in memory only.
  CostModel(const std::string& dir, const DeviceInfo& device);
  // Nanoseconds per fact row; negative where not measured yet.
  double ns_per_row(bool compute) const { return compute ? compute_ : rt_; }
  bool calibrated() const { return rt_ >= 0 && compute_ >= 0; }
  void record(bool compute, double ms, uint64_t rows);
  const std::string& file() const { return file_; }

 private:
  void save() const;
  std::string file_, device_;
  double rt_ = -1, compute_ = -1;
};

}  // namespace raydb::sql::detail
