// GLSL generated per query: the any-hit work (side filters, RTCUDB's row flag, the group's
// atomics for each aggregate) and the ray generation / ray query kernels around it; and the
// in-process compiler (glslang) with its SPIR-V cache.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sql/bind.hpp"
#include "sql/plan.hpp"

namespace raydb::sql::detail {

// Push constants of every generated kernel (scalar layout; must match kCommon in codegen.cpp).
struct SqlTraceParams {
  uint64_t vertices, rays, flags, table;
  float ray_x, ray_y;
  uint32_t ray_offset, num_rays;
};
static_assert(sizeof(SqlTraceParams) == 48);

// The address table the shaders read (uint64 device addresses, in this order): the fact columns
// (plan.fact_columns, int64 each), per side filter its codes and mask, the group counts (uint32),
// then one uint64 array per aggregate (sum: two's complement; min/max: value ^ 2^63).
struct TableLayout {
  uint32_t columns = 0, side = 0, counts = 0, groups = 0, aggs = 0, size = 0;
};
TableLayout table_layout(const BoundQuery& q, const RtPlan& p);

enum class Stage { raygen, any_hit, miss, closest_hit, intersection, compute };

struct GeneratedShaders {
  std::string any_hit, raygen, miss, closest_hit, intersection, ray_query;
};
GeneratedShaders generate(const BoundQuery& q, const RtPlan& p);

// GLSL for an integer expression of fact row `row`: column c reads I64s(T(slot)) where slot is
// c's position in `fact_columns`; scaled up by 10^scale_up.
std::string expr_glsl(const Expr& e, const std::vector<int>& fact_columns, int scale_up);

// 64-bit FNV-1a of the text (the SPIR-V cache key).
uint64_t source_hash(const std::string& text);

// Compiles GLSL to SPIR-V in process; caches in memory and, unless dir is "-", on disk as
// <dir>/<hash>.spv. Errc::internal with glslang's log (and the source) on a compile error.
class ShaderCompiler {
 public:
  explicit ShaderCompiler(std::string dir);
  ~ShaderCompiler();
  // `cached` is set when the SPIR-V came from memory or disk; `ms` adds the compile time.
  const std::vector<uint32_t>& compile(const std::string& source, Stage stage, bool& cached,
                                       double& ms);
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::map<uint64_t, std::vector<uint32_t>> memory_;
};

}  // namespace raydb::sql::detail
