// raydb bench ssb --engine sql: the 13 SSB queries, as the specification's SQL, through
// raydb::sql::SqlEngine on the same rows as the other engines (a folder of dbgen .tbl files).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "raydb/ssb.hpp"

namespace raydb::cli {

struct SsbSqlRun {
  std::string data_dir;  // lineorder.tbl ... date.tbl, .gz accepted
  double sf = 0;
  std::vector<std::string> queries;  // canonical names, "1.1" ..
  std::string path = "rt";           // SqlEngine operator: rt, compute or auto
  uint32_t target_rays = 262144;
};

// Per query: a cold run (fresh SPIR-V cache: glslang's compile time), a warm whole run (the
// shaders cached: planning, upload, BVH build and the call's wall clock, call_ms), then, as the
// dedicated engine's rows, `warmup` and `repeats` traces of that run's BVH (SqlEngine::rerun):
// query_ms is their median (GPU timestamps; the clears of the row flags and groups included, as
// the dedicated engine's). cold_trace_ms and call_trace_ms are the first trace of each whole run,
// on a BVH just built. host_time_ms times the same reruns by wall clock, to the table in host
// memory; build_host_ms and build_first_host_ms are the two whole runs' (call_ms, cold_call_ms).
// `expected` gives the reference table of a query (SQLite's, or the dedicated engine's), or
// nullptr.
void bench_ssb_sql(Context& ctx, const SsbSqlRun& r, const BenchRunOptions& run,
                   const std::function<const ssb::ResultTable*(const std::string&)>& expected,
                   std::vector<nlohmann::json>& rows, std::vector<std::string>& table);

}  // namespace raydb::cli
