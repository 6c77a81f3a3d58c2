// SqlEngine: the catalog, the planner's cache, the compiler and the RT operator, in one object.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "backend/vk/context_impl.hpp"
#include "common/capture.hpp"
#include "raydb/sql.hpp"
#include "sql/codegen.hpp"
#include "sql/compute_exec.hpp"
#include "sql/cost_model.hpp"
#include "sql/finish.hpp"
#include "sql/rt_exec.hpp"
#include "sql/sqlite_mirror.hpp"

namespace raydb::sql {

using namespace detail;
namespace fs = std::filesystem;

namespace {
// Both operators' tables, cell by cell (same group order: both list groups in value order).
std::string compare_tables(const SqlTable& a, const SqlTable& b) {
  if (a.rows.size() != b.rows.size())
    return fmt::format("{} rows against {}", a.rows.size(), b.rows.size());
  for (size_t r = 0; r < a.rows.size(); ++r)
    if (a.rows[r] != b.rows[r]) return fmt::format("row {} differs", r + 1);
  return {};
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

struct SqlEngine::Impl {
  std::shared_ptr<raydb::detail::VkContext> ctx;
  SqlOptions options;
  Catalog cat;
  PlanCache cache;
  std::unique_ptr<ShaderCompiler> compiler;
  std::unique_ptr<RtExecutor> exec;
  std::unique_ptr<ComputeExecutor> compute;
  std::unique_ptr<CostModel> cost;
  std::unique_ptr<SqliteMirror> sqlite;
  SqlStats stats;
  bool compute_fits = false;  // the last query's: the compute join can run it
  // The last query() that ran, for rerun(): its text, and for the ray-tracing operator the bound
  // query and what finish() reads of its plan (the device state is RtExecutor's).
  std::string last_sql;
  std::optional<BoundQuery> last_rt;
  RtPlan last_shape;

  Table& table(std::string_view name) {
    int t = cat.find(name);
    if (t < 0) throw Error(Errc::invalid_argument, fmt::format("unknown table {}", name));
    return cat.tables[size_t(t)];
  }

  void loaded() {
    if (compute) compute->forget();
    forget_last();
    cache.clear();
    sqlite.reset();
  }

  void forget_last() {
    if (exec) exec->forget();
    last_sql.clear();
    last_rt.reset();
    last_shape = RtPlan{};
  }

  std::string memory_line() const {
    return fmt::format("device memory: about {} bytes by ray tracing, {} by compute, {} left\n",
                       stats.rt_device_bytes, stats.compute_device_bytes, stats.device_bytes_left);
  }

  std::string explain_text(const BoundQuery& q, const RtPlan& p, uint64_t hash) {
    std::string s;
    const Table& fact = cat.tables[size_t(q.fact)];
    s += fmt::format("engine: rt ({})\n", stats.path_reason) + memory_line();
    s += fmt::format("ray-tracing plan (RTCUDB): fact table {} ({} rows", fact.name, fact.rows);
    for (const Dim& d : q.dims)
      s += fmt::format(", joins {} on {} = {}", cat.tables[size_t(d.table)].name,
                       fact.columns[size_t(d.fact_column)].name,
                       cat.tables[size_t(d.table)].columns[size_t(d.key_column)].name);
    s += ")\n";
    s +=
        fmt::format("  traversal: {}\n",
                    exec->mode() == TraversalMode::pipeline ? "ray-tracing pipeline" : "ray query");
    const bool filter_only = p.geometry == StarGeometry::filter_only;
    s += fmt::format("  geometry: {}\n",
                     filter_only ? "filter_only (every triangle on one X-Y footprint, Z alone)"
                                 : "value_group (X an aggregate, Y the group code)");
    s += fmt::format("  X: {}\n", p.x_agg >= 0 ? "aggregate " + q.aggs[size_t(p.x_agg)].key +
                                                     " (float32 holds every value)"
                                               : std::string("0 (aggregates from side arrays)"));
    std::string yattrs;
    for (AttrRef a : q.group) yattrs += (yattrs.empty() ? "" : ", ") + attr_name(cat, q, a);
    s += fmt::format(
        "  {}: group code over ({}), {} groups (dictionary of the tuples, value "
        "order)\n",
        p.row_groups.empty() ? "Y" : "group (side array)", yattrs.empty() ? "none" : yattrs,
        p.group_tuples.size());
    s += fmt::format(
        "  Z: mixed-radix filter code, {} codes ({} lanes: row number modulo {} as "
        "the last digit)\n",
        p.z_codes, p.lanes, p.lanes);
    for (const ZAttr& z : p.z)
      s += fmt::format("    {}: domain {}, stride {}, {} selected in {} runs\n", z.name, z.domain,
                       z.stride, z.selected, z.runs);
    for (const SideFilter& f : p.side)
      s += fmt::format("  any-hit filter: {} (codes from a side array)\n", f.name);
    s += p.explain_notes;
    s += fmt::format("  intervals: {}{}\n", p.intervals.size(),
                     p.empty ? " (a filter selects nothing)" : "");
    auto rays = split_rays(p.intervals, options.target_rays);
    s += fmt::format("  rays: {} (lattice point x = {}, y = {}, along +Z)\n", rays.size(), p.ray_x,
                     p.ray_y);
    s += fmt::format("  triangles: {} ({} bytes)\n", p.rows, p.vertices.size() * 4);
    s += fmt::format("  BVH: {}\n", stats.bvh_bytes ? fmt::format("{} bytes", stats.bvh_bytes)
                                                    : std::string("built at run time"));
    s += fmt::format("  aggregates:");
    for (const Aggregate& a : q.aggs) s += " " + a.key;
    s += fmt::format("\n  any-hit shader: {:016x}\n", hash);
    s += "  host encoding, ms wall/CPU:";
    for (const auto& ph : p.host_ms)
      s += fmt::format(" {} {:.1f}/{:.1f},", ph.name, ph.wall_ms, ph.cpu_ms);
    s.back() = '\n';
    return s;
  }

  std::string explain_compute(const BoundQuery& q, const ComputePlan& p, uint64_t hash) {
    const Table& fact = cat.tables[size_t(q.fact)];
    std::string s = fmt::format("engine: compute ({})\n", stats.path_reason) + memory_line();
    s += fmt::format("compute star join (Crystal-style): fact table {} ({} rows", fact.name,
                     fact.rows);
    for (const Dim& d : q.dims)
      s += fmt::format(", joins {} on {} = {}", cat.tables[size_t(d.table)].name,
                       fact.columns[size_t(d.fact_column)].name,
                       cat.tables[size_t(d.table)].columns[size_t(d.key_column)].name);
    s += ")\n" + p.explain_notes;
    if (p.empty) s += "  a filter selects nothing: no kernel runs\n";
    s += "  aggregates:";
    for (const Aggregate& a : q.aggs) s += " " + a.key;
    s += fmt::format("\n  kernel: {:016x}\n", hash);
    return s;
  }

  // Device memory left for a query's buffers: the context's budget, else the device-local heap.
  uint64_t memory_left() const {
    uint64_t budget = ctx->memory_budget ? ctx->memory_budget : ctx->info.device_local_bytes;
    uint64_t held = ctx->allocated_bytes.load();
    return budget > held ? budget - held : 0;
  }

  // Which operator runs q, and why (before any planning or device work). Refuses, naming the
  // limit, a query that neither operator can hold.
  bool choose_compute(const BoundQuery& q) {
    const Table& fact = cat.tables[size_t(q.fact)];
    uint64_t rows = fact.rows, max_prims = ctx->info.max_primitive_count;
    uint64_t left = memory_left();
    uint64_t rt_bytes = exec->device_bytes(rows, q.aggs.size());
    uint64_t slots = 0;
    uint64_t cp_bytes = compute_device_bytes(q, cat, cache, slots);
    stats.rt_device_bytes = rt_bytes;
    stats.compute_device_bytes = cp_bytes;
    stats.device_bytes_left = left;
    std::string rt_no;
    if (rows > max_prims)
      rt_no =
          fmt::format("{} fact rows exceed the device's maxPrimitiveCount ({})", rows, max_prims);
    else if (rt_bytes > left)
      rt_no = fmt::format(
          "the ray-tracing plan needs about {} bytes of device memory, {} left "
          "of the budget",
          rt_bytes, left);
    std::string cp_no;
    if (slots > kMaxComputeSlots)
      cp_no = fmt::format(
          "the GROUP BY attributes' value combinations exceed the compute join's "
          "{} group slots",
          kMaxComputeSlots);
    else if (cp_bytes > left)
      cp_no = fmt::format(
          "the compute star join needs about {} bytes of device memory, {} left "
          "of the budget",
          cp_bytes, left);
    compute_fits = cp_no.empty();
    SqlPath want = options.path;
    if (want == SqlPath::rt && !rt_no.empty())
      throw Error(Errc::limit_exceeded, fmt::format("query too large for the device: {}", rt_no));
    if (want == SqlPath::compute && !cp_no.empty())
      throw Error(Errc::limit_exceeded, fmt::format("query too large for the device: {}", cp_no));
    if (!rt_no.empty() && !cp_no.empty())
      throw Error(Errc::limit_exceeded,
                  fmt::format("query too large for the device: {}; {}", rt_no, cp_no));
    if (want == SqlPath::rt) {
      stats.path_reason = "forced (path rt)";
      return false;
    }
    if (want == SqlPath::compute) {
      stats.path_reason = "forced (path compute)";
      return true;
    }
    if (!rt_no.empty()) {
      stats.path_reason = "the ray-tracing plan cannot run it: " + rt_no;
      return true;
    }
    if (!cp_no.empty()) {
      stats.path_reason = "the compute star join cannot run it: " + cp_no;
      return false;
    }
    if (!cost->calibrated()) {
      stats.path_reason =
          "cost model not calibrated on this device yet: both operators run, "
          "the ray-tracing one answers";
      return false;
    }
    double rt = cost->ns_per_row(false), cp = cost->ns_per_row(true);
    stats.path_reason = fmt::format(
        "cost model: {} ns per fact row by ray tracing, {} by "
        "compute, measured on this device",
        fmt::format("{:.3g}", rt), fmt::format("{:.3g}", cp));
    return cp < rt;
  }

  SqlTable as_table(const std::string& e) {
    SqlTable t;
    t.columns = {"QUERY PLAN"};
    std::istringstream in(e);
    for (std::string line; std::getline(in, line);) t.rows.push_back({line});
    return t;
  }

  SqlTable run_compute(const BoundQuery& q, bool explain_only, std::string* explain) {
    auto t1 = std::chrono::steady_clock::now();
    ComputePlan p = plan_compute(q, cat, cache);
    std::string glsl = generate_compute(q, p);
    stats.plan_ms = ms_since(t1);
    stats.path = SqlPath::compute;
    if (!compute) compute = std::make_unique<ComputeExecutor>(ctx);
    uint64_t hash = 0;
    compute->prepare(glsl, *compiler, stats, hash);
    if (explain_only || q.explain) {
      std::string e = explain_compute(q, p, hash);
      if (explain) *explain = e;
      return as_table(e);
    }
    RtPlan shape;  // what finish() reads: the groups' tuples and dictionaries
    GroupResults r = compute->run(q, p, cat, cache, stats, shape.group_tuples);
    shape.group_dicts = p.group_dicts;
    auto t2 = std::chrono::steady_clock::now();
    SqlTable t = finish(q, cat, shape, r);
    stats.post_ms = ms_since(t2);
    cost->record(true, stats.plan_ms + stats.upload_ms + stats.trace_ms + stats.post_ms, p.rows);
    return t;
  }

  SqlTable run_rt(const BoundQuery& q, bool explain_only, std::string* explain) {
    auto t1 = std::chrono::steady_clock::now();
    RtPlan p = plan_rt(q, cat, cache, options.geometry);
    GeneratedShaders g = generate(q, p);
    stats.plan_ms = ms_since(t1);
    stats.path = SqlPath::rt;
    uint64_t hash = 0;
    exec->prepare(g, *compiler, stats, hash);
    if (explain_only || q.explain) {
      std::string e = explain_text(q, p, hash);
      if (explain) *explain = e;
      return as_table(e);
    }
    GroupResults r = exec->run(q, p, cat.tables[size_t(q.fact)], options.target_rays, stats);
    last_rt = q;
    last_shape.empty = p.empty;
    last_shape.group_tuples = p.group_tuples;
    last_shape.group_dicts = p.group_dicts;
    auto t2 = std::chrono::steady_clock::now();
    SqlTable t = finish(q, cat, p, r);
    stats.post_ms = ms_since(t2);
    cost->record(
        false,
        stats.plan_ms + stats.upload_ms + stats.bvh_build_ms + stats.trace_ms + stats.post_ms,
        p.rows);
    return t;
  }

  // Parses, binds, chooses the operator, plans and (unless explain only) runs.
  SqlTable run(std::string_view sql, bool explain_only, std::string* explain) {
    if (!explain_only) forget_last();  // explain() leaves the last query for rerun()
    stats = {};
    auto t0 = std::chrono::steady_clock::now();
    Parsed parsed = parse_sql(sql, "<query>");
    BoundQuery q = bind_select(cat, parsed);
    stats.parse_ms = ms_since(t0);
    if (!exec) exec = std::make_unique<RtExecutor>(ctx, options.traversal);
    if (!cost) cost = std::make_unique<CostModel>(compiler->dir(), ctx->info);
    bool calibrating = options.path == SqlPath::automatic && !cost->calibrated();
    if (choose_compute(q)) {
      SqlTable t = run_compute(q, explain_only, explain);
      if (!explain_only && !q.explain) last_sql = std::string(sql);
      return t;
    }
    SqlTable t;
    try {
      t = run_rt(q, explain_only, explain);
    } catch (const Error& e) {
      // A limit of the RTCUDB encoding (group codes, Z codes): the compute join has none of them.
      if (options.path != SqlPath::automatic || e.code() != Errc::limit_exceeded) throw;
      std::string why = e.what();
      SqlStats before = stats;
      stats = {};
      stats.parse_ms = before.parse_ms;
      stats.rt_device_bytes = before.rt_device_bytes;
      stats.compute_device_bytes = before.compute_device_bytes;
      stats.device_bytes_left = before.device_bytes_left;
      stats.path_reason = "the ray-tracing plan cannot express it: " + why;
      t = run_compute(q, explain_only, explain);
      if (!explain_only && !q.explain) last_sql = std::string(sql);
      return t;
    }
    if (!explain_only && !q.explain) last_sql = std::string(sql);
    if (calibrating && compute_fits && !explain_only && !q.explain) {
      // The other operator's measurement, on this query; its answer must be the same.
      SqlStats keep = stats;
      SqlTable other = run_compute(q, false, nullptr);
      std::string diff = compare_tables(t, other);
      stats = keep;
      if (!diff.empty())
        throw Error(
            Errc::internal,
            fmt::format("the compute star join and the ray-tracing plan disagree: {}", diff));
    }
    return t;
  }

  // The last query again: a ray-traced one over the BVH it built (the trace alone), a compute
  // one from the start.
  SqlTable rerun() {
    if (last_sql.empty())
      throw Error(Errc::invalid_argument,
                  "rerun: no query has run since the engine was created or its tables loaded");
    if (!last_rt || last_shape.empty) {  // nothing on the device to trace again
      std::string sql = last_sql;
      return run(sql, false, nullptr);
    }
    GroupResults r = exec->retrace(stats);
    auto t2 = std::chrono::steady_clock::now();
    SqlTable t = finish(*last_rt, cat, last_shape, r);
    stats.post_ms = ms_since(t2);
    return t;
  }
};

SqlEngine::SqlEngine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SqlEngine::SqlEngine(SqlEngine&&) noexcept = default;
SqlEngine& SqlEngine::operator=(SqlEngine&&) noexcept = default;
SqlEngine::~SqlEngine() = default;

Result<SqlEngine> SqlEngine::create(const Context& ctx, const SqlOptions& options) {
  return raydb::detail::capture([&] {
    auto impl = std::make_unique<Impl>();
    impl->ctx = ctx.shared();
    impl->options = options;
    impl->compiler = std::make_unique<ShaderCompiler>(
        options.cache_dir.empty() ? std::string("-") : options.cache_dir);
    return SqlEngine(std::move(impl));
  });
}

Status SqlEngine::load_schema_file(const std::string& path) {
  return raydb::detail::capture([&] {
    // A folder opens as an empty stream on Linux: it would read as a schema of no tables.
    if (fs::is_directory(path))
      throw Error(Errc::io, fmt::format("{}: is a folder, not a DDL file", path));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(Errc::io, fmt::format("{}: cannot open", path));
    std::stringstream ss;
    ss << in.rdbuf();
    load_ddl(impl_->cat, ss.str(), path);
    impl_->loaded();
  });
}

Status SqlEngine::load_schema_text(std::string_view ddl, std::string_view source) {
  return raydb::detail::capture([&] {
    load_ddl(impl_->cat, ddl, source);
    impl_->loaded();
  });
}

Status SqlEngine::load_table(std::string_view table, const std::string& path) {
  return raydb::detail::capture([&] {
    load_table_file(impl_->table(table), path, impl_->options.csv_delimiter);
    impl_->loaded();
  });
}

Status SqlEngine::load_data_dir(const std::string& dir) {
  return raydb::detail::capture([&] {
    if (!fs::is_directory(dir))
      throw Error(Errc::io, fs::exists(dir) ? fmt::format("{}: is a file, not a data folder", dir)
                                            : fmt::format("{}: no such data folder", dir));
    for (Table& t : impl_->cat.tables) {
      std::string found;
      for (const char* ext : {".tbl", ".csv", ".tbl.gz", ".csv.gz"}) {
        fs::path f = fs::path(dir) / (t.name + ext);
        if (fs::exists(f)) {
          found = f.string();
          break;
        }
      }
      if (found.empty())
        throw Error(Errc::io, fmt::format("{}: no data file for table {} ({}.tbl, .csv, .tbl.gz "
                                          "or .csv.gz)",
                                          dir, t.name, t.name));
      load_table_file(t, found, impl_->options.csv_delimiter);
    }
    impl_->loaded();
  });
}

Result<SqlTable> SqlEngine::query(std::string_view sql) {
  return raydb::detail::capture([&] { return impl_->run(sql, false, nullptr); });
}

Result<SqlTable> SqlEngine::rerun() {
  return raydb::detail::capture([&] { return impl_->rerun(); });
}

Result<std::string> SqlEngine::explain(std::string_view sql) {
  return raydb::detail::capture([&] {
    std::string e;
    impl_->run(sql, true, &e);
    return e;
  });
}

Result<SqlTable> SqlEngine::sqlite(std::string_view sql) {
  return raydb::detail::capture([&] {
    if (!impl_->sqlite) impl_->sqlite = std::make_unique<SqliteMirror>(impl_->cat);
    return impl_->sqlite->run(sql);
  });
}

std::vector<std::string> SqlEngine::table_names() const {
  std::vector<std::string> n;
  for (const Table& t : impl_->cat.tables) n.push_back(t.name);
  return n;
}

Result<std::string> SqlEngine::table_ddl(std::string_view table) const {
  return raydb::detail::capture([&] { return impl_->table(table).ddl; });
}

uint64_t SqlEngine::table_rows(std::string_view table) const {
  int t = impl_->cat.find(table);
  return t < 0 ? 0 : impl_->cat.tables[size_t(t)].rows;
}

const SqlStats& SqlEngine::last_stats() const {
  return impl_->stats;
}

void SqlEngine::set_path(SqlPath path) {
  impl_->options.path = path;
}

const char* to_string(SqlPath path) {
  switch (path) {
    case SqlPath::automatic:
      return "auto";
    case SqlPath::rt:
      return "rt";
    case SqlPath::compute:
      return "compute";
  }
  return "auto";
}

}  // namespace raydb::sql
