// SqlEngine's two operators: the ray-tracing plan and the compute star join give SQLite's answer
// when forced, the automatic choice is explained (EXPLAIN) and calibrated per device under the
// cache directory, and a query too large for the device is refused, naming the limit, before any
// work.
#include <atomic>
#include <filesystem>

#include "raydb/sql.hpp"
#include "raydb/ssb.hpp"
#include "sql/sql_test_support.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using namespace raydb;
using namespace raydb::sql;
namespace st = raydb::sql::test;

namespace {

void check_13(SqlEngine& e, SqlPath path) {
  e.set_path(path);
  for (const auto& [name, text] : st::ssb_queries()) {
    CAPTURE(name);
    std::string path_name = to_string(path);
    CAPTURE(path_name);
    auto got = e.query(text);
    REQUIRE_MESSAGE(got, std::string(got ? "" : got.error().what()));
    if (path != SqlPath::automatic) CHECK(e.last_stats().path == path);
    SqlTable want = e.sqlite(text).value();
    CHECK_MESSAGE(compare_with_sqlite(got.value(), want) == "",
                  compare_with_sqlite(got.value(), want));
    // rerun(): the ray-traced query's kept BVH traced again (its flags and groups cleared first,
    // or the second trace would count nothing or twice); a compute query from the start.
    SqlStats first = e.last_stats();
    auto again = e.rerun();
    REQUIRE_MESSAGE(again, std::string(again ? "" : again.error().what()));
    CHECK_MESSAGE(compare_with_sqlite(again.value(), want) == "",
                  compare_with_sqlite(again.value(), want));
    CHECK(e.last_stats().path == first.path);
    CHECK(e.last_stats().rows_hit == first.rows_hit);
    if (first.path == SqlPath::rt && first.rays > 0) {  // a plan that selects nothing runs again
      CHECK(e.last_stats().bvh_build_ms == first.bvh_build_ms);  // not built again
      CHECK(e.last_stats().plan_ms == first.plan_ms);
    }
  }
}

}  // namespace

TEST_CASE(
    "sql paths: the 13 SSB queries equal SQLite through rt, compute and auto; EXPLAIN says which "
    "and why") {
  raydb::test::ValidationGuard guard;
  st::SqlTempDir dir("sql_paths");
  ssb::generate_ssb(0.002, raydb::test::fresh_seed(), dir.path.string()).value();
  SqlOptions o;
  o.cache_dir = (dir.path / "cache").string();
  SqlEngine e = SqlEngine::create(raydb::test::context(), o).value();
  REQUIRE(e.load_schema_file(st::source_path("share/ssb/schema.sql")));
  REQUIRE(e.load_data_dir(dir.path.string()));
  std::string q11 = st::ssb_queries()[0].second;

  auto none = e.rerun();
  REQUIRE_FALSE(none);
  CHECK(none.error().code() == Errc::invalid_argument);

  // Not calibrated yet: the first automatic query runs both and says so.
  std::string plan = e.explain(q11).value();
  CHECK_MESSAGE(plan.find("engine: rt (cost model not calibrated") != std::string::npos, plan);
  check_13(e, SqlPath::automatic);
  bool found = false;
  for (const auto& f : fs::directory_iterator(dir.path / "cache"))
    found = found || f.path().filename().string().rfind("calibration-", 0) == 0;
  CHECK_MESSAGE(found, "no calibration file in the cache directory");
  check_13(e, SqlPath::rt);
  check_13(e, SqlPath::compute);

  e.set_path(SqlPath::compute);
  plan = e.explain(q11).value();
  for (const char* part : {"engine: compute (forced", "compute star join", "dimension date",
                           "fact attribute lineorder.lo_discount", "kernel: ", "device memory: "})
    CHECK_MESSAGE(plan.find(part) != std::string::npos, part << " missing in:\n" << plan);
  e.set_path(SqlPath::rt);
  plan = e.explain(q11).value();
  CHECK_MESSAGE(plan.find("engine: rt (forced") != std::string::npos, plan);
  // explain() leaves the last query for rerun(); a load drops it.
  SqlTable q11_rt = e.query(q11).value();
  e.explain(st::ssb_queries()[5].second).value();
  CHECK(compare_with_sqlite(e.rerun().value(), q11_rt) == "");
  REQUIRE(e.load_table("supplier", (dir.path / "supplier.tbl").string()));
  auto dropped = e.rerun();
  REQUIRE_FALSE(dropped);
  CHECK(dropped.error().code() == Errc::invalid_argument);

  // A second engine on the same cache directory finds the calibration and explains its choice.
  SqlEngine e2 = SqlEngine::create(raydb::test::context(), o).value();
  REQUIRE(e2.load_schema_file(st::source_path("share/ssb/schema.sql")));
  REQUIRE(e2.load_data_dir(dir.path.string()));
  plan = e2.explain(q11).value();
  CHECK_MESSAGE(plan.find("(cost model: ") != std::string::npos, plan);
  CHECK_MESSAGE(plan.find(" ns per fact row by ray tracing, ") != std::string::npos, plan);
}

TEST_CASE(
    "sql paths: past the ray-tracing plan's memory the compute join answers; past both, the limit "
    "is named") {
  st::SqlTempDir dir("sql_budget");
  ssb::generate_ssb(0.002, raydb::test::fresh_seed(), dir.path.string()).value();
  std::string q21 = st::ssb_queries()[3].second;
  auto engine = [&](Context& ctx) {
    SqlOptions o;
    o.cache_dir = "-";
    SqlEngine e = SqlEngine::create(ctx, o).value();
    REQUIRE(e.load_schema_file(st::source_path("share/ssb/schema.sql")));
    REQUIRE(e.load_data_dir(dir.path.string()));
    return e;
  };
  // The estimates, from an engine without a budget.
  SqlEngine free = engine(raydb::test::context());
  free.set_path(SqlPath::rt);
  SqlTable want = free.query(q21).value();
  uint64_t rt = free.last_stats().rt_device_bytes, cp = free.last_stats().compute_device_bytes;
  REQUIRE(cp < rt);

  std::atomic<int> messages{0};
  auto budgeted = [&](uint64_t bytes) {
    ContextOptions co;
    co.validation = std::getenv("RAYDB_TEST_NO_VALIDATION") == nullptr;
    co.on_validation_message = [&](std::string_view) { messages.fetch_add(1); };
    co.memory_budget_bytes = bytes;
    return Context::create(co).value();
  };
  {
    // Room for the compute join (and its group slots) but not for the triangles and BVH.
    Context ctx = budgeted(0);
    uint64_t held = ctx.allocated_bytes();
    Context small = budgeted(held + cp + (rt - cp) / 4);
    SqlEngine e = engine(small);
    auto got = e.query(q21);
    REQUIRE_MESSAGE(got, std::string(got ? "" : got.error().what()));
    CHECK(e.last_stats().path == SqlPath::compute);
    CHECK_MESSAGE(
        e.last_stats().path_reason.find("the ray-tracing plan cannot run it: the "
                                        "ray-tracing plan needs about") != std::string::npos,
        e.last_stats().path_reason);
    CHECK(compare_with_sqlite(got.value(), e.sqlite(q21).value()) == "");
    CHECK(compare_with_sqlite(got.value(), want) == "");
    // Forced onto the ray-tracing plan, it is refused before any work, naming the limit.
    e.set_path(SqlPath::rt);
    auto refused = e.query(q21);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code() == Errc::limit_exceeded);
    CHECK_MESSAGE(std::string(refused.error().what()).find("query too large for the device") !=
                      std::string::npos,
                  refused.error().what());
  }
  {
    Context tiny = budgeted(1);
    SqlEngine e = engine(tiny);
    auto refused = e.query(q21);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code() == Errc::limit_exceeded);
    std::string what = refused.error().what();
    CHECK_MESSAGE(what.find("ray-tracing plan needs about") != std::string::npos, what);
    CHECK_MESSAGE(what.find("compute star join needs about") != std::string::npos, what);
    CHECK_MESSAGE(what.find("bytes of device memory") != std::string::npos, what);
  }
  CHECK(messages.load() == 0);
}
