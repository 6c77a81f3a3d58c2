// SqlEngine: the catalog, the planner's cache, the compiler and the RT operator, in one object.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/capture.hpp"
#include "raydb/sql.hpp"
#include "sql/codegen.hpp"
#include "sql/finish.hpp"
#include "sql/rt_exec.hpp"
#include "sql/sqlite_mirror.hpp"

namespace raydb::sql {

using namespace detail;
namespace fs = std::filesystem;

namespace {
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
  std::unique_ptr<SqliteMirror> sqlite;
  SqlStats stats;

  Table& table(std::string_view name) {
    int t = cat.find(name);
    if (t < 0) throw Error(Errc::invalid_argument, fmt::format("unknown table {}", name));
    return cat.tables[size_t(t)];
  }

  void loaded() {
    cache.clear();
    sqlite.reset();
  }

  std::string explain_text(const BoundQuery& q, const RtPlan& p, uint64_t hash) {
    std::string s;
    const Table& fact = cat.tables[size_t(q.fact)];
    s += fmt::format("ray-tracing plan (RTCUDB): fact table {} ({} rows", fact.name, fact.rows);
    for (const Dim& d : q.dims)
      s += fmt::format(", joins {} on {} = {}", cat.tables[size_t(d.table)].name,
                       fact.columns[size_t(d.fact_column)].name,
                       cat.tables[size_t(d.table)].columns[size_t(d.key_column)].name);
    s += ")\n";
    s +=
        fmt::format("  traversal: {}\n",
                    exec->mode() == TraversalMode::pipeline ? "ray-tracing pipeline" : "ray query");
    s += fmt::format("  X: {}\n", p.x_agg >= 0 ? "aggregate " + q.aggs[size_t(p.x_agg)].key +
                                                     " (float32 holds every value)"
                                               : std::string("0 (aggregates from side arrays)"));
    std::string yattrs;
    for (AttrRef a : q.group) yattrs += (yattrs.empty() ? "" : ", ") + attr_name(cat, q, a);
    s += fmt::format(
        "  Y: group code over ({}), {} groups (dictionary of the tuples, value "
        "order)\n",
        yattrs.empty() ? "none" : yattrs, p.group_tuples.size());
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
    return s;
  }

  // Parses, binds, plans and (unless explain only) runs.
  SqlTable run(std::string_view sql, bool explain_only, std::string* explain) {
    stats = {};
    auto t0 = std::chrono::steady_clock::now();
    Parsed parsed = parse_sql(sql, "<query>");
    BoundQuery q = bind_select(cat, parsed);
    stats.parse_ms = ms_since(t0);
    auto t1 = std::chrono::steady_clock::now();
    RtPlan p = plan_rt(q, cat, cache);
    GeneratedShaders g = generate(q, p);
    stats.plan_ms = ms_since(t1);
    if (!exec) exec = std::make_unique<RtExecutor>(ctx, options.traversal);
    uint64_t hash = 0;
    exec->prepare(g, *compiler, stats, hash);
    if (explain_only || q.explain) {
      std::string e = explain_text(q, p, hash);
      if (explain) *explain = e;
      SqlTable t;
      t.columns = {"QUERY PLAN"};
      std::istringstream in(e);
      for (std::string line; std::getline(in, line);) t.rows.push_back({line});
      return t;
    }
    GroupResults r = exec->run(q, p, cat.tables[size_t(q.fact)], options.target_rays, stats);
    auto t2 = std::chrono::steady_clock::now();
    SqlTable t = finish(q, cat, p, r);
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
    if (!fs::is_directory(dir)) throw Error(Errc::io, fmt::format("{}: not a directory", dir));
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

}  // namespace raydb::sql
