// raydb bench ssb: the 13 SSB queries on the ray-tracing engine, the star-join baselines
// (star_join in Vulkan, crystal_cuda in CUDA) and the SQL engine (sql: the specification's SQL
// through SqlEngine) at given scale factors, or on a folder of reference dbgen tables (--data). RT
// engine, per query: the BVH build (time and bytes, reported apart), then the query alone (rays
// over the built BVH) as the median of repeats after warm-up, GPU timestamps; optionally checked
// against SQLite. Every engine's rows also carry the wall clock of the same calls and of what is
// built from the host tables (host to host: docs/ssb.md).
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include "backend/cuda/cuda.hpp"
#include "cli/cli.hpp"
#include "cli/ssb_tbl.hpp"
#ifdef RAYDB_HAS_SQL
#include "cli/bench_ssb_sql.hpp"
#endif
#include "raydb/ssb.hpp"
#include "raydb/ssb_sqlite.hpp"

namespace raydb::cli {

namespace {

struct BenchSsbOptions {
  CommonOptions common;
  BenchRunOptions run;
  std::vector<double> sfs = {0.01};
  std::vector<std::string> queries = {"all"};
  double check_max_sf = 1;
  uint32_t max_lanes = ssb::SsbEngineOptions{}.max_lanes;
  uint32_t target_rays = ssb::SsbEngineOptions{}.target_rays;
  bool per_row_atomics = false;
  std::string prefer = "fast_trace";  // the RT engine's BVH build preference, both APIs
  std::vector<std::string> engines = {"rt", "star_join"};
  std::vector<std::string> apis = {"vulkan"};  // the RT engine's rays: vulkan and/or optix
  std::vector<std::string> geometries = {"filter_only"};  // SsbEngineOptions::geometry, list
  // crystal_cuda: the CUDA stream is held this long before each query's first event, so the
  // host's launches of the build and probe kernels fall outside the events (docs/cuda.md).
  double cuda_hold_us = 100;
  std::string data;             // a folder of dbgen .tbl (or .tbl.gz) files instead of --sf
  std::string sql_path = "rt";  // --engine sql: SqlEngine's operator (rt, compute, auto)
};

// The bytes of the lineorder columns a query reads (4-byte codes, each column once over every
// row), for both engines: the star-join kernel's reads (an upper bound: early exits skip some
// sectors) and the RT engine's "lineorder-equivalent" bytes, since the BVH bytes it touches are
// not known. query_gbps = these bytes / the query time.
uint64_t lineorder_query_bytes(const std::string& q, uint64_t rows) {
  // Q1: orderdate, discount, quantity, extendedprice. Q2: orderdate, partkey, suppkey, revenue.
  // Q3: orderdate, custkey, suppkey, revenue. Q4: those of Q2 and Q3 and supplycost.
  uint64_t columns = q[0] == '4' ? 6 : 4;
  return rows * columns * 4;
}

double gbps(uint64_t bytes, double ms) {
  return ms > 0 ? double(bytes) / (ms * 1e6) : 0;
}

// Wall-clock milliseconds of one public API call, its result in host memory: what a user with
// tables in host memory waits for (host to host). Outside every GPU timestamp span.
template <class F>
double wall_ms(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void run(BenchSsbOptions& o) {
  auto ctx = open_context(o.common).value();
  const DeviceInfo& dev = ctx.device();
  std::vector<std::string> names;
  for (const auto& q : o.queries) {
    if (q == "all") {
      names.insert(names.end(), ssb::query_names().begin(), ssb::query_names().end());
    } else {
      names.push_back(ssb::canonical_query_name(q).value());
    }
  }
  bool rt = false, star = false, crystal = false, sql = false;
  for (const auto& e : o.engines) {
    if (e == "rt")
      rt = true;
    else if (e == "star_join")
      star = true;
    else if (e == "crystal_cuda")
      crystal = true;
    else if (e == "sql")
      sql = true;
    else
      throw Error(
          Errc::invalid_argument,
          fmt::format("--engine takes rt, star_join, crystal_cuda and/or sql, not '{}'", e));
  }
#ifndef RAYDB_HAS_SQL
  if (sql) throw Error(Errc::unsupported, "--engine sql: built without the SQL engine (RAYDB_SQL)");
#endif
  // --data: one run on those tables; the scale factor is dbgen's customer count / 30,000.
  std::vector<double> sfs = o.sfs;
  std::unique_ptr<SsbTblDir> data;
  if (!o.data.empty()) {
    data = std::make_unique<SsbTblDir>(o.data);
    sfs = {-1};
  }
  // Before any data is generated: a missing CUDA device or OptiX fails at once, naming why.
  const ApiChoice apis = parse_apis(ctx, o.apis);
  if (crystal && !ctx.cuda().available)
    throw Error(Errc::unsupported, "CUDA not available: " + ctx.cuda().reason);
  uint64_t seed = run_seed(o.run);
  std::vector<nlohmann::json> rows;
  std::vector<std::string> table;
  for (double sf : sfs) {
    auto t0 = std::chrono::steady_clock::now();
    ssb::SsbTables tables;
    // The SQL engine reads files: generated tables are written to a temporary folder for it.
    std::unique_ptr<SsbTblDir> generated;
    if (data) {
      tables = ssb::load_ssb_tbl(data->plain()).value();
      sf = std::round(double(tables.customer.size()) / 30000 * 1000) / 1000;
      ssb::SsbEngine::check_fits(ctx, tables.lineorder.size()).value();
    } else {
      ssb::SsbRowCounts n = ssb::ssb_row_counts(sf).value();
      ssb::SsbEngine::check_fits(ctx, n.orders * 7).value();
      if (sql) generated = std::make_unique<SsbTblDir>();
      tables = ssb::generate_ssb(sf, seed, generated ? generated->plain() : "").value();
    }
    double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bench_progress(
        "ssb", fmt::format("SF {}: {} lineorder rows {} in {:.1f} s", sf, tables.lineorder.size(),
                           data ? "loaded from " + o.data : std::string("generated"), gen_s));
    std::unique_ptr<ssb::SqliteReference> ref;
    if (!o.run.no_check && sf <= o.check_max_sf)
      ref = std::make_unique<ssb::SqliteReference>(ssb::SqliteReference::load(tables).value());
    // SQLite's answers, once per query whatever the number of engines (SQLite is the slow part).
    std::map<std::string, ssb::ResultTable> answers;
    auto expected = [&](const std::string& q) -> const ssb::ResultTable& {
      auto it = answers.find(q);
      if (it == answers.end()) it = answers.emplace(q, ref->run(q).value()).first;
      return it->second;
    };
    // The two baselines: the same loop, their own kernel times (Vulkan timestamps, CUDA events).
    // `create_ms`: the wall clock of the baseline's create(), its tables from host memory.
    auto baseline = [&](const char* engine, auto& join, double create_ms, auto extra) {
      for (const auto& q : names) {
        ssb::ResultTable first;
        double first_ms = wall_ms([&] { first = join.run(q).value(); });
        for (int i = 0; i < o.run.warmup; ++i) (void)join.run(q).value();
        std::vector<double> times, host;
        bool stable = true;
        for (int i = 0; i < o.run.repeats; ++i) {
          ssb::ResultTable again;
          host.push_back(wall_ms([&] { again = join.run(q).value(); }));
          stable = stable && again == first;
          times.push_back(join.last_stats().kernel_ms);
        }
        std::string checked = "unchecked";
        if (ref) checked = expected(q) == first ? "MATCH" : "MISMATCH";
        if (!stable) checked = "MISMATCH (repeats differ)";
        double ms = median(times);
        nlohmann::json j = result_fields(ctx, "ssb", o.run);
        j.update({{"engine", engine},
                  {"sf", sf},
                  {"query", "Q" + q},
                  {"rows", tables.lineorder.size()},
                  {"query_ms", ms},
                  {"query_ms_all", times},
                  {"column_bytes", join.column_bytes()},
                  {"query_bytes", lineorder_query_bytes(q, tables.lineorder.size())},
                  {"query_gbps", gbps(lineorder_query_bytes(q, tables.lineorder.size()), ms)},
                  {"result_rows", first.rows.size()},
                  // Host to host: run() from the call to its result table in host memory.
                  {"host_time_ms", median(host)},
                  {"host_time_ms_all", host},
                  {"host_first_ms", first_ms},
                  {"build_host_ms", create_ms},
                  {"seed", seed},
                  {"checked_result", checked}});
        if (data) j["data"] = o.data;
        std::string build = extra(join, j);
        rows.push_back(j);
        table.push_back(
            fmt::format("{:>6} {:<5} {:<12} {:>11} {:>10.3f} {:>10} {:>9} {:>9} {:>7} "
                        "{:>6} {:>6} {:>9.3f}  {}",
                        sf, "Q" + q, engine, tables.lineorder.size(), ms, build, "-", "-", "-", "-",
                        first.rows.size(), median(host), checked));
        bench_progress("ssb", table.back());
      }
    };
    if (star) {
      std::optional<ssb::SsbStarJoin> join;
      double create_ms =
          wall_ms([&] { join.emplace(ssb::SsbStarJoin::create(ctx, tables).value()); });
      baseline("star_join", *join, create_ms,
               [](ssb::SsbStarJoin&, nlohmann::json&) { return std::string("-"); });
    }
    if (crystal) {
      // Errc::unsupported, "CUDA not available: ...", where there is no CUDA device or build.
      std::optional<ssb::SsbCrystalCuda> join;
      double create_ms =
          wall_ms([&] { join.emplace(ssb::SsbCrystalCuda::create(ctx, tables).value()); });
      detail::cuda::set_timer_hold(ctx.vk(), o.cuda_hold_us);
      baseline("crystal_cuda", *join, create_ms, [&o](ssb::SsbCrystalCuda& c, nlohmann::json& j) {
        // The hash-table build kernels of the last repeat, apart from the fused kernel's time.
        j["build_ms"] = c.last_stats().build_ms;
        j["timer"] = "cuda_events";
        j["cuda_hold_us"] = o.cuda_hold_us;
        return fmt::format("{:.3f}", c.last_stats().build_ms);
      });
    }
    std::map<std::string, ssb::ResultTable> dedicated;  // the RT engine's answers, for sql
    if (rt) {
      // Each API's engine and geometry in turn (one query's BVH resident at a time); every
      // configuration's tables are compared whole with the first one's.
      std::map<std::string, ssb::ResultTable> first_answers;
      std::string first_config;
      for (RayTracingApi api : {RayTracingApi::vulkan, RayTracingApi::optix})
        for (const std::string& geometry : o.geometries) {
          if (!(api == RayTracingApi::vulkan ? apis.vulkan : apis.optix)) continue;
          const char* api_name = api == RayTracingApi::vulkan ? "vulkan" : "optix";
          ssb::SsbEngineOptions eo;
          eo.max_lanes = o.max_lanes;
          eo.target_rays = o.target_rays;
          eo.per_row_atomics = o.per_row_atomics;
          eo.preference = parse_preference(o.prefer);
          eo.api = api;
          eo.geometry = parse_geometry(geometry);
          std::string config = geometry == o.geometries.front()
                                   ? std::string(api_name)
                                   : fmt::format("{} {}", api_name, geometry);
          if (first_config.empty()) first_config = config;
          std::optional<ssb::SsbEngine> made;
          double create_ms =
              wall_ms([&] { made.emplace(ssb::SsbEngine::create(ctx, tables, eo).value()); });
          ssb::SsbEngine& engine = *made;
          for (const auto& q : names) {
            // Host to host: run() builds the query's BVH from the host tables and traces it once;
            // each rerun() traces it again; both end with the result table in host memory.
            ssb::ResultTable first;
            double build_host_ms = wall_ms([&] { first = engine.run(q).value(); });
            ssb::SsbQueryStats build = engine.last_stats();
            for (int i = 0; i < o.run.warmup; ++i) (void)engine.rerun().value();
            std::vector<double> trace, clear, host;
            bool stable = true;
            for (int i = 0; i < o.run.repeats; ++i) {
              ssb::ResultTable again;
              host.push_back(wall_ms([&] { again = engine.rerun().value(); }));
              stable = stable && again == first;
              trace.push_back(engine.last_stats().trace_ms);
              clear.push_back(engine.last_stats().clear_ms);
            }
            std::string checked = "unchecked";
            if (ref) checked = expected(q) == first ? "MATCH" : "MISMATCH";
            if (!stable) checked = "MISMATCH (repeats differ)";
            std::string api_check = "-";
            if (config == first_config) {
              first_answers[q] = first;
              if (api == RayTracingApi::vulkan) dedicated[q] = first;
            } else {
              bool same = first_answers.at(q) == first;
              api_check =
                  fmt::format("{} {}", same ? "identical to" : "differs from", first_config);
              if (!same) checked = fmt::format("MISMATCH (differs from {})", first_config);
            }
            double ms = median(trace);
            nlohmann::json j = result_fields(ctx, "ssb", o.run);
            j.update({{"engine", "rt"},
                      {"api", api_name},
                      {"api_check", api_check},
                      {"traversal",
                       api == RayTracingApi::optix ? "optix" : to_string(engine.traversal())},
                      {"sf", sf},
                      {"query", "Q" + q},
                      {"rows", build.rows},
                      {"query_ms", ms},
                      {"query_ms_all", trace},
                      {"clear_ms", median(clear)},
                      {"bvh_build_ms", build.bvh_build_ms},
                      {"bvh_bytes", build.bvh_bytes},
                      {"triangle_bytes", build.triangle_bytes},
                      {"side_bytes", build.side_bytes},
                      {"upload_ms", build.upload_ms},
                      {"encode_ms", build.encode_ms},
                      {"post_ms", build.post_ms},
                      {"intervals", build.intervals},
                      {"rays", build.rays},
                      {"rows_hit", build.rows_hit},
                      {"query_bytes", lineorder_query_bytes(q, build.rows)},
                      {"query_gbps", gbps(lineorder_query_bytes(q, build.rows), ms)},
                      {"lanes", build.lanes},
                      {"target_rays", o.target_rays},
                      {"atomics", o.per_row_atomics ? "per_row" : "per_ray_run"},
                      {"build_preference", to_string(eo.preference)},
                      {"geometry", geometry},
                      {"groups", build.groups},
                      {"side_values", build.side_values},
                      {"result_rows", first.rows.size()},
                      {"host_time_ms", median(host)},
                      {"host_time_ms_all", host},
                      {"build_host_ms", build_host_ms},
                      {"create_host_ms", create_ms},
                      {"seed", seed},
                      {"checked_result", checked}});
            if (data) j["data"] = o.data;
            rows.push_back(j);
            table.push_back(
                fmt::format("{:>6} {:<5} {:<12} {:>11} {:>10.3f} {:>10.2f} {:>9.1f} {:>9} {:>7} "
                            "{:>6} {:>6} {:>9.3f}  {}",
                            sf, "Q" + q,
                            std::string(api == RayTracingApi::optix ? "rt (optix)" : "rt") +
                                (eo.geometry == StarGeometry::filter_only ? " flat" : ""),
                            build.rows, ms, build.bvh_build_ms, build.bvh_bytes / 1048576.0,
                            build.rays, build.lanes, build.groups > 999999 ? 999999 : build.groups,
                            first.rows.size(), median(host), checked));
            bench_progress("ssb", table.back());
          }
        }
    }
#ifdef RAYDB_HAS_SQL
    if (sql) {
      SsbSqlRun r;
      r.data_dir = data ? data->original() : generated->plain();
      r.sf = sf;
      r.queries = names;
      r.path = o.sql_path;
      r.target_rays = o.target_rays;
      // SQLite's answer where checked, else the dedicated RT engine's (from above, or run here).
      if (!ref && !o.run.no_check && dedicated.empty()) {
        ssb::SsbEngine engine = ssb::SsbEngine::create(ctx, tables).value();
        for (const auto& q : names) dedicated[q] = engine.run(q).value();
      }
      bench_ssb_sql(
          ctx, r, o.run,
          [&](const std::string& q) -> const ssb::ResultTable* {
            if (ref) return &expected(q);
            auto it = dedicated.find(q);
            return it == dedicated.end() ? nullptr : &it->second;
          },
          rows, table);
    }
#endif
  }
  finish_bench(
      ctx, "ssb", o.run,
      fmt::format("raydb bench ssb on {} ({} {}), RT engine (query = median trace "
                  "of {} after {} warm-up, BVH build apart) and the star-join baselines (fused "
                  "kernel; crystal_cuda: CUDA events, hash-table builds apart); GPU timestamps.\n"
                  "host ms: the median query call (RT and SQL: rerun()) with its result table "
                  "read into host memory, wall clock",
                  dev.name, dev.driver_name, dev.driver_info, o.run.repeats, o.run.warmup),
      fmt::format("{:>6} {:<5} {:<12} {:>11} {:>10} {:>10} {:>9} {:>9} {:>7} {:>6} {:>6} {:>9}  {}",
                  "SF", "query", "engine", "rows", "query ms", "build ms", "BVH MiB", "rays",
                  "lanes", "groups", "result", "host ms", "check"),
      table, rows);
}

}  // namespace

void register_bench_ssb(CLI::App& bench) {
  auto o = std::make_shared<BenchSsbOptions>();
  auto* cmd = bench.add_subcommand(
      "ssb", "Star Schema Benchmark queries as ray-tracing jobs (RTCUDB): query and BVH build");
  add_common_options(*cmd, o->common);
  add_reals(*cmd, "--sf", o->sfs, "scale factors, list (fractions allowed)", 1e-4, 1000);
  cmd->add_option("--query", o->queries, "1.1 .. 4.3, or all; list")->delimiter(',');
  add_real(*cmd, "--check-max-sf", o->check_max_sf,
           "compare with SQLite up to this scale factor (SQLite is slow beyond)", 0, 1000);
  add_count(*cmd, "--max-lanes", o->max_lanes, "SsbEngineOptions::max_lanes", 1);
  add_count(*cmd, "--target-rays", o->target_rays, "SsbEngineOptions::target_rays", 1);
  cmd->add_flag("--per-row-atomics", o->per_row_atomics,
                "the paper's atomics per row instead of per run of one group along a ray");
  cmd->add_option("--prefer", o->prefer,
                  "the RT engine's BVH build preference in either API: fast_trace (default), "
                  "none, fast_build");
  cmd->add_option("--geometry", o->geometries,
                  "the RT engine's triangles: filter_only (one XY footprint, Z = filter code "
                  "only), value_group (RTCUDB's X = value, Y = group); list, each timed and "
                  "compared with the first")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--engine", o->engines,
                  "rt (the ray-tracing engine), star_join (the Crystal-style baseline, Vulkan), "
                  "crystal_cuda (the same in CUDA, Crystal's tiles) and/or sql (the "
                  "specification's SQL through SqlEngine, compile times apart)")
      ->delimiter(',');
  cmd->add_option(
      "--data", o->data,
      "a folder of dbgen tables (lineorder, customer, supplier, part, date; .tbl or "
      ".tbl.gz) to run on instead of generating --sf; every engine reads the same rows");
  cmd->add_option("--sql-path", o->sql_path,
                  "--engine sql: the SQL engine's operator, rt, compute or auto")
      ->capture_default_str();
  cmd->add_option("--api", o->apis,
                  "the RT engine's rays: vulkan and/or optix (the OptiX twin on the same "
                  "encoding; results compared whole with Vulkan's)")
      ->delimiter(',');
  add_real(*cmd, "--cuda-hold-us", o->cuda_hold_us,
           "crystal_cuda: hold the CUDA stream this long before each query's first event "
           "(0: none)",
           0, 1e6);
  add_bench_run_options(*cmd, o->run);
  cmd->callback([o] { run(*o); });
}

}  // namespace raydb::cli
