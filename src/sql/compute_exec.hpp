// The compute path: a Crystal-style star join for queries the ray-tracing plan cannot express or
// that the cost model (sql/cost_model.hpp) says run faster without a BVH. The host folds each
// joined dimension's filters and group-by attributes into one table over its rows (the row's
// share of the group slot, or "filtered out"); one generated kernel reads every fact row's
// dimension rows through the join index, its own attributes' codes, and adds its aggregates into
// the slot. Group slots are mixed radix over the group attributes' dictionaries, so no host pass
// over the fact rows is needed per query.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "raydb/sql.hpp"
#include "sql/codegen.hpp"
#include "sql/plan.hpp"
#include "sql/rt_exec.hpp"

namespace raydb::detail {
struct VkContext;
}

namespace raydb::sql::detail {

inline constexpr uint32_t kComputeNone = 0xffffffffu;
// Group slots: counts and 64-bit aggregates per slot must fit beside the columns.
inline constexpr uint64_t kMaxComputeSlots = uint64_t{1} << 28;

struct ComputePlan {
  uint64_t rows = 0;
  bool empty = false;  // a filter selects nothing
  uint64_t slots = 1;
  struct DimTable {
    int dim = -1;                 // index into BoundQuery::dims
    std::vector<uint32_t> share;  // per dimension row: its share of the slot, or kComputeNone
  };
  std::vector<DimTable> dims;
  struct FactAttr {
    std::string name;
    int column = -1;
    const RowVector<uint32_t>* codes = nullptr;  // per fact row (the cached dictionary's)
    std::vector<uint32_t> mask;                  // one bit per code: selected; empty: no filter
    uint64_t stride = 0;                         // weight in the slot; 0: not grouped
  };
  std::vector<FactAttr> fact;
  std::vector<const Dictionary*> group_dicts;
  std::vector<uint64_t> group_stride;  // per group attribute
  std::vector<int> fact_columns;       // the aggregates' input columns (slot order)
  std::string explain_notes;
};

// Errc::limit_exceeded where the group slots exceed kMaxComputeSlots.
ComputePlan plan_compute(const BoundQuery& q, const Catalog& cat, PlanCache& cache);
std::string generate_compute(const BoundQuery& q, const ComputePlan& p);

// Device bytes the compute join needs for the query, from the row counts, the query's shape and
// its group slots (set; past kMaxComputeSlots: kMaxComputeSlots + 1), before any device work.
uint64_t compute_device_bytes(const BoundQuery& q, const Catalog& cat, PlanCache& cache,
                              uint64_t& slots);

class ComputeExecutor {
 public:
  explicit ComputeExecutor(std::shared_ptr<raydb::detail::VkContext> ctx);
  ~ComputeExecutor();
  ComputeExecutor(ComputeExecutor&&) noexcept;
  ComputeExecutor& operator=(ComputeExecutor&&) noexcept;
  void prepare(const std::string& glsl, ShaderCompiler& compiler, SqlStats& stats, uint64_t& hash);
  // The non-empty groups (the one group without GROUP BY), `tuples` their attribute codes.
  GroupResults run(const BoundQuery& q, const ComputePlan& p, const Catalog& cat, PlanCache& cache,
                   SqlStats& stats, std::vector<std::vector<uint32_t>>& tuples);
  // Drops the device copies of columns and join indices (a table was reloaded).
  void forget();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace raydb::sql::detail
