// raydb.SqlEngine: ad-hoc SQL over a star schema loaded from a DDL and data files; results as a
// dict of numpy columns, EXPLAIN as text.
#include "raydb/sql.hpp"
#include "common.hpp"

namespace raydb::python {
namespace {

using namespace raydb::sql;

struct PySqlEngine {
  std::shared_ptr<PyContext> ctx;
  SqlEngine engine;
};

// EXPLAIN is answered by SqlEngine::explain; anything else by query. Leading blanks and SQL
// comments are not stripped: the engine's parser reports what it cannot read.
bool is_explain(const std::string& sql) {
  size_t i = sql.find_first_not_of(" \t\r\n");
  if (i == std::string::npos || sql.size() - i < 7) return false;
  std::string head = sql.substr(i, 7);
  for (char& ch : head) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return head == "explain";
}

std::string without_explain(const std::string& sql) {
  size_t i = sql.find_first_not_of(" \t\r\n");
  return sql.substr(i + 7);
}

py::dict stats_dict(const SqlStats& s) {
  py::dict d;
  d["parse_ms"] = s.parse_ms;
  d["plan_ms"] = s.plan_ms;
  d["compile_ms"] = s.compile_ms;
  d["upload_ms"] = s.upload_ms;
  d["bvh_build_ms"] = s.bvh_build_ms;
  d["trace_ms"] = s.trace_ms;
  d["post_ms"] = s.post_ms;
  d["shader_cached"] = s.shader_cached;
  d["rows"] = s.rows;
  d["rays"] = s.rays;
  d["intervals"] = s.intervals;
  d["groups"] = s.groups;
  d["bvh_bytes"] = s.bvh_bytes;
  d["rows_hit"] = s.rows_hit;
  return d;
}

}  // namespace

void bind_sql(py::module_& m) {
  py::class_<PySqlEngine>(
      m, "SqlEngine",
      "Ad-hoc SQL over one star schema: a fact table joined to dimensions on keys, WHERE on one "
      "attribute per conjunct, GROUP BY, SUM/COUNT/MIN/MAX/AVG, HAVING, ORDER BY, LIMIT (see "
      "include/raydb/sql.hpp for the class). Tables come from a DDL and .tbl or CSV files (.gz "
      "accepted). Not thread-safe on its own; calls are serialised on the context.")
      .def(py::init([](std::shared_ptr<PyContext> ctx, py::object schema, py::object data,
                       const std::string& cache_dir, const std::string& traversal) {
             SqlOptions o;
             o.cache_dir = cache_dir;
             o.traversal = parse_traversal(traversal);
             std::string schema_path = schema.is_none() ? "" : py::str(schema).cast<std::string>();
             std::string data_dir = data.is_none() ? "" : py::str(data).cast<std::string>();
             GpuSection gpu(ctx->lock);
             SqlEngine e = unwrap(SqlEngine::create(ctx->ctx, o));
             if (!schema_path.empty()) unwrap(e.load_schema_file(schema_path));
             if (!data_dir.empty()) unwrap(e.load_data_dir(data_dir));
             return std::make_unique<PySqlEngine>(PySqlEngine{ctx, std::move(e)});
           }),
           py::arg("ctx"), py::arg("schema") = py::none(), py::arg("data") = py::none(),
           py::arg("cache_dir") = "", py::arg("traversal") = "automatic",
           "Create an engine on ctx. schema: a DDL file to load (CREATE TABLE statements); data: "
           "a folder holding <table>.tbl/.csv[.gz] for every table of the schema. cache_dir: where "
           "compiled shaders are kept ('' the user cache, '-' none).")
      .def(
          "load_schema",
          [](PySqlEngine& s, const std::string& path) {
            GpuSection gpu(s.ctx->lock);
            unwrap(s.engine.load_schema_file(path));
          },
          py::arg("path"), "Load CREATE TABLE statements from a DDL file.")
      .def(
          "load_schema_text",
          [](PySqlEngine& s, const std::string& ddl) {
            GpuSection gpu(s.ctx->lock);
            unwrap(s.engine.load_schema_text(ddl));
          },
          py::arg("ddl"), "Load CREATE TABLE statements from a string.")
      .def(
          "load_data",
          [](PySqlEngine& s, const std::string& dir) {
            GpuSection gpu(s.ctx->lock);
            unwrap(s.engine.load_data_dir(dir));
          },
          py::arg("dir"), "Load every table of the schema from <dir>/<table>.tbl/.csv[.gz].")
      .def(
          "load_table",
          [](PySqlEngine& s, const std::string& table, const std::string& path) {
            GpuSection gpu(s.ctx->lock);
            unwrap(s.engine.load_table(table, path));
          },
          py::arg("table"), py::arg("path"), "Load one table from a .tbl or CSV file (.gz too).")
      .def(
          "sql",
          [](PySqlEngine& s, const std::string& query) -> py::object {
            if (is_explain(query)) {
              std::string plan;
              {
                GpuSection gpu(s.ctx->lock);
                plan = unwrap(s.engine.explain(without_explain(query)));
              }
              return py::str(plan);
            }
            SqlTable t;
            {
              GpuSection gpu(s.ctx->lock);
              t = unwrap(s.engine.query(query));
            }
            return text_table_dict(t.columns, t.rows);
          },
          py::arg("query"),
          "Run a SELECT: {column: numpy array} in the query's order (int64 where every cell is an "
          "integer, float64 where every cell is a number or NULL (NaN), else str). "
          "'EXPLAIN SELECT ...' returns the plan as text.")
      .def(
          "explain",
          [](PySqlEngine& s, const std::string& query) {
            GpuSection gpu(s.ctx->lock);
            return unwrap(s.engine.explain(query));
          },
          py::arg("query"), "The plan of a SELECT as text (what EXPLAIN prints).")
      .def(
          "sqlite",
          [](PySqlEngine& s, const std::string& query) {
            SqlTable t;
            {
              GpuSection gpu(s.ctx->lock);
              t = unwrap(s.engine.sqlite(query));
            }
            return text_table_dict(t.columns, t.rows);
          },
          py::arg("query"),
          "The same SELECT through SQLite on the same rows (decimals as REAL): the reference.")
      .def_property_readonly(
          "tables", [](const PySqlEngine& s) { return s.engine.table_names(); },
          "Names of the schema's tables.")
      .def(
          "table_ddl",
          [](const PySqlEngine& s, const std::string& table) {
            return unwrap(s.engine.table_ddl(table));
          },
          py::arg("table"), "A table's CREATE TABLE statement.")
      .def(
          "table_rows",
          [](const PySqlEngine& s, const std::string& table) { return s.engine.table_rows(table); },
          py::arg("table"), "Rows loaded into a table (0 when none or not a table).")
      .def_property_readonly(
          "last_stats", [](const PySqlEngine& s) { return stats_dict(s.engine.last_stats()); },
          "Timings (ms) and counts of the most recent query, as a dict.");
}

}  // namespace raydb::python
