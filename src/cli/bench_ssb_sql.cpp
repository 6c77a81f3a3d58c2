// raydb bench ssb --engine sql (see bench_ssb_sql.hpp).
#include "cli/bench_ssb_sql.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <sstream>

#include "cli/ssb_sql.hpp"
#include "raydb/sql.hpp"

namespace raydb::cli {

namespace {

namespace fs = std::filesystem;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// "-- Q1.1" headers, then the query up to its ';'.
std::map<std::string, std::string> ssb_queries() {
  std::map<std::string, std::string> out;
  std::istringstream in(kSsbQueriesSql);
  std::string line, cur;
  while (std::getline(in, line)) {
    if (line.rfind("-- Q", 0) == 0) {
      cur = line.substr(4);
      continue;
    }
    if (cur.empty()) continue;
    if (!line.empty() && line.back() == ';') line.pop_back();
    out[cur] += line + "\n";
  }
  return out;
}

sql::SqlPath parse_path(const std::string& p) {
  if (p == "rt") return sql::SqlPath::rt;
  if (p == "compute") return sql::SqlPath::compute;
  if (p == "auto") return sql::SqlPath::automatic;
  throw Error(Errc::invalid_argument,
              fmt::format("--sql-path {}: expected rt, compute or auto", p));
}

// A fresh SPIR-V cache, so the first run of each query is a cold compile; removed at the end.
struct TempCache {
  fs::path dir;
  TempCache() {
    dir = fs::temp_directory_path() /
          fmt::format("raydb-bench-sql-{}-{}", static_cast<long>(::getpid()),
                      std::chrono::steady_clock::now().time_since_epoch().count());
    fs::create_directories(dir);
  }
  ~TempCache() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

}  // namespace

void bench_ssb_sql(Context& ctx, const SsbSqlRun& r, const BenchRunOptions& run,
                   const std::function<const ssb::ResultTable*(const std::string&)>& expected,
                   std::vector<nlohmann::json>& rows, std::vector<std::string>& table) {
  auto queries = ssb_queries();
  TempCache cache;
  sql::SqlOptions so;
  so.cache_dir = cache.dir.string();
  so.path = parse_path(r.path);
  so.target_rays = r.target_rays;
  sql::SqlEngine e = sql::SqlEngine::create(ctx, so).value();
  e.load_schema_text(kSsbSchemaSql, "share/ssb/schema.sql").value();
  auto t0 = std::chrono::steady_clock::now();
  e.load_data_dir(r.data_dir).value();
  double load_s = ms_since(t0) / 1000;
  uint64_t fact_rows = e.table_rows("lineorder");
  bench_progress("ssb", fmt::format("SF {}: SqlEngine loaded {} lineorder rows from {} in {:.1f} s",
                                    r.sf, fact_rows, r.data_dir, load_s));
  for (const auto& q : r.queries) {
    auto it = queries.find(q);
    if (it == queries.end())
      throw Error(Errc::internal, fmt::format("share/ssb/queries.sql has no Q{}", q));
    const std::string& text = it->second;
    auto tc = std::chrono::steady_clock::now();
    sql::SqlTable first = e.query(text).value();
    double cold_wall = ms_since(tc);
    sql::SqlStats cold = e.last_stats();
    // A second whole query (warm shader cache) for the host phases and the call's wall clock;
    // then, as the dedicated engine's rows, the trace of that query's BVH: warm-up, then the
    // median of the repeats (SqlEngine::rerun).
    auto tw = std::chrono::steady_clock::now();
    sql::SqlTable warm = e.query(text).value();
    double warm_wall = ms_since(tw);
    sql::SqlStats whole = e.last_stats();
    bool stable = warm.rows == first.rows;
    for (int i = 0; i < run.warmup; ++i) stable = e.rerun().value().rows == first.rows && stable;
    std::vector<double> trace, post, host;
    sql::SqlStats last = whole;
    for (int i = 0; i < run.repeats; ++i) {
      auto th = std::chrono::steady_clock::now();
      sql::SqlTable again = e.rerun().value();
      host.push_back(ms_since(th));
      last = e.last_stats();
      stable = stable && again.rows == first.rows;
      trace.push_back(last.trace_ms);
      post.push_back(last.post_ms);
    }
    std::string checked = "unchecked";
    if (const ssb::ResultTable* want = expected(q)) {
      sql::SqlTable w;
      w.columns = want->columns;
      w.rows = want->rows;
      w.order_keys = first.order_keys;
      std::string diff = sql::compare_with_sqlite(first, w);
      checked = diff.empty() ? "MATCH" : "MISMATCH: " + diff;
    }
    if (!stable) checked = "MISMATCH (repeats differ)";
    double ms = trace.empty() ? whole.trace_ms : median(trace);
    auto med = [&](const std::vector<double>& v, double fallback) {
      return v.empty() ? fallback : median(v);
    };
    nlohmann::json j = result_fields(ctx, "ssb", run);
    j.update({{"engine", "sql"},
              {"sql_path", sql::to_string(last.path)},
              {"sql_path_requested", r.path},
              {"sql_path_reason", last.path_reason},
              {"data", r.data_dir},
              {"sf", r.sf},
              {"query", "Q" + q},
              {"rows", fact_rows},
              {"query_ms", ms},
              {"query_ms_all", trace},
              {"plan_ms", whole.plan_ms},
              {"stage_ms", whole.stage_ms},
              {"upload_ms", whole.upload_ms},
              {"bvh_build_ms", whole.bvh_build_ms},
              {"bvh_bytes", last.bvh_bytes},
              {"post_ms", med(post, whole.post_ms)},
              {"call_ms", warm_wall},
              {"call_trace_ms", whole.trace_ms},
              {"cold_trace_ms", cold.trace_ms},
              {"cold_call_ms", cold_wall},
              {"compile_cold_ms", cold.compile_ms},
              {"compile_cold_cached", cold.shader_cached},
              {"compile_cached_ms", whole.compile_ms},
              {"parse_ms", last.parse_ms},
              {"rays", last.rays},
              {"intervals", last.intervals},
              {"groups", last.groups},
              {"rows_hit", last.rows_hit},
              {"load_s", load_s},
              {"result_rows", first.rows.size()},
              // Host to host: rerun() to its table in host memory (the repeats query_ms times);
              // a whole query() from SQL text on the host tables (plan, upload, BVH build, one
              // trace, the table read back), warm (as call_ms) and the first, cold one.
              {"host_time_ms", med(host, warm_wall)},
              {"host_time_ms_all", host},
              {"build_host_ms", warm_wall},
              {"build_first_host_ms", cold_wall},
              {"checked_result", checked}});
    rows.push_back(j);
    table.push_back(fmt::format(
        "{:>6} {:<5} {:<12} {:>11} {:>10.3f} {:>10.2f} {:>9.1f} {:>9} {:>7} {:>6} {:>6} {:>9.3f}  "
        "{} (plan {:.0f} ms, compile cold {:.1f} ms / cached {:.1f} ms)",
        r.sf, "Q" + q, fmt::format("sql ({})", sql::to_string(last.path)), fact_rows, ms,
        whole.bvh_build_ms, last.bvh_bytes / 1048576.0, last.rays, "-",
        last.groups > 999999 ? 999999 : last.groups, first.rows.size(), med(host, warm_wall),
        checked, whole.plan_ms, cold.compile_ms, whole.compile_ms));
    bench_progress("ssb", table.back());
  }
}

}  // namespace raydb::cli
