// Differential testing: random queries of the class on SSB and on a retail star schema, every
// result compared row by row with SQLite on the same rows. A fixed seed and a fresh one (printed;
// RAYDB_TEST_SEED replays it); RAYDB_SQL_RANDOM_QUERIES sets the queries per schema and seed.
#include <chrono>
#include <cstdlib>
#include <string>

#include "raydb/sql.hpp"
#include "raydb/ssb.hpp"
#include "sql/random_queries.hpp"
#include "sql/sql_test_support.hpp"
#include "support.hpp"

using namespace raydb;
using namespace raydb::sql;
namespace st = raydb::sql::test;

namespace {

int queries_per_seed() {
  if (const char* n = std::getenv("RAYDB_SQL_RANDOM_QUERIES")) return std::atoi(n);
  return 500;
}

void run_random(SqlEngine& e, const st::RandSchema& schema, uint64_t seed, int count,
                const std::string& what) {
  std::mt19937_64 rng(seed);
  int failures = 0, nonempty = 0;
  double compile = 0, trace = 0, build = 0, sqlite_ms = 0;
  auto t0 = std::chrono::steady_clock::now();
  int auto_compute = 0;
  double trace_rt = 0, trace_compute = 0;
  for (int i = 0; i < count && failures < 5; ++i) {
    std::string sql = st::random_query(schema, rng);
    auto ts = std::chrono::steady_clock::now();
    SqlTable want = e.sqlite(sql).value();
    sqlite_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - ts).count();
    // Every query through both operators, forced, and through the automatic choice.
    for (SqlPath path : {SqlPath::rt, SqlPath::compute, SqlPath::automatic}) {
      e.set_path(path);
      auto got = e.query(sql);
      if (!got) {
        ++failures;
        FAIL_CHECK(what << " seed " << seed << " query " << i << " (path " << to_string(path)
                        << "): " << got.error().what() << "\n  " << sql);
        break;
      }
      const SqlStats& st = e.last_stats();
      CHECK((path == SqlPath::automatic || st.path == path));
      compile += st.compile_ms;
      trace += st.trace_ms;
      (st.path == SqlPath::compute ? trace_compute : trace_rt) += st.trace_ms;
      build += st.bvh_build_ms;
      if (path == SqlPath::automatic) auto_compute += st.path == SqlPath::compute;
      std::string diff = compare_with_sqlite(got.value(), want);
      if (!diff.empty()) {
        ++failures;
        FAIL_CHECK(what << " seed " << seed << " query " << i << " (path " << to_string(path)
                        << "): " << diff << "\n  " << sql);
        if (std::getenv("RAYDB_SQL_DUMP"))
          MESSAGE("engine:\n" << got.value().format_csv() << "SQLite:\n" << want.format_csv());
        break;
      }
      if (path == SqlPath::rt) nonempty += !got.value().rows.empty();
    }
  }
  double wall =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE(what << " seed " << seed << ": " << count << " queries in " << wall << " ms (glslang "
               << compile << ", BVH " << build << ", trace " << trace << " = rt " << trace_rt
               << " + compute " << trace_compute << ", SQLite " << sqlite_ms
               << "); automatic chose compute for " << auto_compute);
  // Most queries must return rows, or the comparison proves little.
  CHECK_MESSAGE(nonempty > count / 2,
                what << ": only " << nonempty << " of " << count << " queries returned rows");
}

}  // namespace

TEST_CASE("sql random: SSB queries equal SQLite (fixed and fresh seed)") {
  raydb::test::ValidationGuard guard;
  st::SqlTempDir dir("sql_rand_ssb");
  ssb::generate_ssb(0.001, 7, dir.path.string()).value();
  st::RandSchema s = st::ssb_random_schema();
  uint64_t fresh = raydb::test::fresh_seed();
  MESSAGE("sql random SSB: seeds 1 (value_group) and " << fresh << " (filter_only)");
  for (StarGeometry g : {StarGeometry::value_group, StarGeometry::filter_only}) {
    SqlOptions o;
    o.cache_dir = (dir.path / "cache").string();
    o.geometry = g;
    SqlEngine e = SqlEngine::create(raydb::test::context(), o).value();
    REQUIRE(e.load_schema_file(st::source_path("share/ssb/schema.sql")));
    REQUIRE(e.load_data_dir(dir.path.string()));
    bool fixed = g == StarGeometry::value_group;
    run_random(e, s, fixed ? 1 : fresh, queries_per_seed(), fixed ? "SSB value_group" : "SSB");
  }
}

TEST_CASE("sql random: retail star schema queries equal SQLite (fixed and fresh seed)") {
  raydb::test::ValidationGuard guard;
  st::SqlTempDir dir("sql_rand_retail");
  st::RandSchema s = st::write_retail(dir.path, 3, 4000);
  uint64_t fresh = raydb::test::fresh_seed();
  MESSAGE("sql random retail: seeds 1 (value_group) and " << fresh << " (filter_only)");
  for (StarGeometry g : {StarGeometry::value_group, StarGeometry::filter_only}) {
    SqlOptions o;
    o.cache_dir = (dir.path / "cache").string();
    o.geometry = g;
    if (const char* m = std::getenv("RAYDB_SQL_TRAVERSAL"))
      o.traversal =
          std::string(m) == "ray_query" ? TraversalMode::ray_query : TraversalMode::pipeline;
    SqlEngine e = SqlEngine::create(raydb::test::context(), o).value();
    REQUIRE(e.load_schema_text(st::retail_ddl()));
    auto loaded = e.load_data_dir(dir.path.string());
    REQUIRE_MESSAGE(loaded, std::string(loaded ? "" : loaded.error().what()));
    bool fixed = g == StarGeometry::value_group;
    run_random(e, s, fixed ? 1 : fresh, queries_per_seed(),
               fixed ? "retail value_group" : "retail");
  }
}
