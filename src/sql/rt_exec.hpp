// Runs an RtPlan on the device: triangles and side arrays up, BVH (one BLAS under one TLAS), the
// generated shaders' pipeline (cached by their hash), the launch over the Z intervals, and the
// per-group counts and aggregates back.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/sql.hpp"
#include "sql/codegen.hpp"

namespace raydb::detail {
struct VkContext;
}

namespace raydb::sql::detail {

struct GroupResults {
  std::vector<uint32_t> counts;             // per group
  std::vector<std::vector<uint64_t>> aggs;  // per aggregate, per group (see TableLayout)
};

class RtExecutor {
 public:
  RtExecutor(std::shared_ptr<raydb::detail::VkContext> ctx, TraversalMode mode);
  ~RtExecutor();
  RtExecutor(RtExecutor&&) noexcept;
  RtExecutor& operator=(RtExecutor&&) noexcept;
  TraversalMode mode() const;
  // Compiles (or finds) the query's shaders; `hash` is the any-hit source's.
  void prepare(const GeneratedShaders& g, ShaderCompiler& compiler, SqlStats& stats,
               uint64_t& hash);
  // Device bytes a plan of `rows` triangles needs at its peak (triangles, BVH and build scratch,
  // row flags, `columns` int64 columns), from the driver's build sizes; before any work.
  uint64_t device_bytes(uint64_t rows, size_t columns) const;
  // Uploads the plan's arrays, builds its BVH and traces it. The BVH, arrays and pipeline stay
  // on the device until the next run() or forget(), for retrace().
  GroupResults run(const BoundQuery& q, const RtPlan& p, const Table& fact, uint32_t target_rays,
                   SqlStats& stats);
  // The last run()'s trace again over what it kept (flags and groups cleared first); `stats` gets
  // that run's upload and BVH figures and this trace's. Errc::invalid_argument when nothing is
  // kept.
  GroupResults retrace(SqlStats& stats);
  // Frees what the last run() kept.
  void forget();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Rays of at most ceil(total / target) codes each, covering the intervals.
std::vector<std::pair<uint32_t, uint32_t>> split_rays(
    const std::vector<std::pair<uint32_t, uint32_t>>& intervals, uint32_t target);

}  // namespace raydb::sql::detail
