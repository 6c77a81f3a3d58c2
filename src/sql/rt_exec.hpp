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
  GroupResults run(const BoundQuery& q, const RtPlan& p, const Table& fact, uint32_t target_rays,
                   SqlStats& stats);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Rays of at most ceil(total / target) codes each, covering the intervals.
std::vector<std::pair<uint32_t, uint32_t>> split_rays(
    const std::vector<std::pair<uint32_t, uint32_t>>& intervals, uint32_t target);

}  // namespace raydb::sql::detail
