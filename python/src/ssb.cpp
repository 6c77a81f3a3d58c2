// raydb.ssb: Star Schema Benchmark tables (generated, loaded from dbgen .tbl files, or from numpy
// columns) and the ray-tracing SSB engine; results as a dict of numpy columns.
#include "raydb/ssb.hpp"
#include "common.hpp"
#include "raydb/ssb_data.hpp"

namespace raydb::python {
namespace {

using namespace raydb::ssb;

struct PySsbEngine {
  std::shared_ptr<PyContext> ctx;
  SsbEngine engine;
};

// The tables as {table: {column: array}}: uint32 columns as numpy arrays (copied whole), text
// columns as lists of str.
py::dict tables_dict(const SsbTables& t) {
  py::dict lo, cust, supp, part, date, all;
  const LineorderColumns& l = t.lineorder;
  lo["orderdate"] = to_numpy(l.orderdate);
  lo["custkey"] = to_numpy(l.custkey);
  lo["partkey"] = to_numpy(l.partkey);
  lo["suppkey"] = to_numpy(l.suppkey);
  lo["quantity"] = to_numpy(l.quantity);
  lo["extendedprice"] = to_numpy(l.extendedprice);
  lo["discount"] = to_numpy(l.discount);
  lo["revenue"] = to_numpy(l.revenue);
  lo["supplycost"] = to_numpy(l.supplycost);
  auto party = [](py::dict& d, const PartyColumns& p) {
    d["key"] = to_numpy(p.key);
    d["city"] = p.city;
    d["nation"] = p.nation;
    d["region"] = p.region;
  };
  party(cust, t.customer);
  party(supp, t.supplier);
  part["partkey"] = to_numpy(t.part.partkey);
  part["mfgr"] = t.part.mfgr;
  part["category"] = t.part.category;
  part["brand1"] = t.part.brand1;
  date["datekey"] = to_numpy(t.date.datekey);
  date["year"] = to_numpy(t.date.year);
  date["yearmonthnum"] = to_numpy(t.date.yearmonthnum);
  date["weeknuminyear"] = to_numpy(t.date.weeknuminyear);
  date["yearmonth"] = t.date.yearmonth;
  all["lineorder"] = lo;
  all["customer"] = cust;
  all["supplier"] = supp;
  all["part"] = part;
  all["date"] = date;
  return all;
}

std::vector<uint32_t> u32(py::dict d, const char* table, const char* name) {
  std::string what = std::string(table) + "." + name;
  if (!d.contains(name)) invalid("SSB tables: missing column " + what);
  Keys k = to_keys(d[name], what.c_str());
  if (k.span.width != KeyWidth::bits32) {
    py::array a = py::array_t<uint32_t, py::array::c_style | py::array::forcecast>::ensure(k.array);
    k = to_keys(a, what.c_str());
  }
  auto p = static_cast<const uint32_t*>(k.array.data());
  return std::vector<uint32_t>(p, p + k.span.size);
}

std::vector<std::string> strs(py::dict d, const char* table, const char* name) {
  if (!d.contains(name)) invalid(std::string("SSB tables: missing column ") + table + "." + name);
  return py::cast<std::vector<std::string>>(py::list(d[name]));
}

SsbTables tables_from_dict(py::dict all) {
  SsbTables t;
  py::dict lo = all["lineorder"];
  LineorderColumns& l = t.lineorder;
  l.orderdate = u32(lo, "lineorder", "orderdate");
  l.custkey = u32(lo, "lineorder", "custkey");
  l.partkey = u32(lo, "lineorder", "partkey");
  l.suppkey = u32(lo, "lineorder", "suppkey");
  l.quantity = u32(lo, "lineorder", "quantity");
  l.extendedprice = u32(lo, "lineorder", "extendedprice");
  l.discount = u32(lo, "lineorder", "discount");
  l.revenue = u32(lo, "lineorder", "revenue");
  l.supplycost = u32(lo, "lineorder", "supplycost");
  for (auto* c : {&l.custkey, &l.partkey, &l.suppkey, &l.quantity, &l.extendedprice, &l.discount,
                  &l.revenue, &l.supplycost})
    if (c->size() != l.orderdate.size()) invalid("SSB tables: lineorder columns differ in length");
  auto party = [](py::dict d, const char* name, PartyColumns& p) {
    p.key = u32(d, name, "key");
    p.city = strs(d, name, "city");
    p.nation = strs(d, name, "nation");
    p.region = strs(d, name, "region");
  };
  party(all["customer"], "customer", t.customer);
  party(all["supplier"], "supplier", t.supplier);
  py::dict part = all["part"];
  t.part.partkey = u32(part, "part", "partkey");
  t.part.mfgr = strs(part, "part", "mfgr");
  t.part.category = strs(part, "part", "category");
  t.part.brand1 = strs(part, "part", "brand1");
  py::dict date = all["date"];
  t.date.datekey = u32(date, "date", "datekey");
  t.date.year = u32(date, "date", "year");
  t.date.yearmonthnum = u32(date, "date", "yearmonthnum");
  t.date.weeknuminyear = u32(date, "date", "weeknuminyear");
  t.date.yearmonth = strs(date, "date", "yearmonth");
  return t;
}

}  // namespace

void bind_ssb(py::module_& root) {
  py::module_ m = root.def_submodule("ssb", "The Star Schema Benchmark: tables and the engine.");
  py::class_<SsbTables>(m, "Tables",
                        "The five SSB tables in host memory (lineorder, customer, supplier, part, "
                        "date). Picklable (as its dict of columns).")
      .def_static(
          "generate",
          [](double sf, uint64_t seed) {
            py::gil_scoped_release release;
            return unwrap(generate_ssb(sf, seed));
          },
          py::arg("scale_factor"), py::arg("seed") = 1,
          "Generate the tables at a scale factor (deterministic for a seed).")
      .def_static(
          "load_tbl",
          [](const std::string& dir) {
            py::gil_scoped_release release;
            return unwrap(load_ssb_tbl(dir));
          },
          py::arg("dir"), "Load dbgen's .tbl files from a folder.")
      .def_static("from_dict", &tables_from_dict, py::arg("tables"),
                  "Tables from {table: {column: values}} as to_dict() returns it.")
      .def("to_dict", &tables_dict,
           "{table: {column: values}}: uint32 numpy arrays, text columns as lists of str.")
      .def(
          "slice_lineorder",
          [](const SsbTables& t, size_t begin, size_t end) {
            if (begin > end || end > t.lineorder.size())
              invalid("slice_lineorder: [" + std::to_string(begin) + ", " + std::to_string(end) +
                      ") is outside the " + std::to_string(t.lineorder.size()) + " rows");
            SsbTables out = t;
            auto cut = [&](std::vector<uint32_t>& v) {
              v = std::vector<uint32_t>(v.begin() + begin, v.begin() + end);
            };
            LineorderColumns& l = out.lineorder;
            for (auto* c : {&l.orderdate, &l.custkey, &l.partkey, &l.suppkey, &l.quantity,
                            &l.extendedprice, &l.discount, &l.revenue, &l.supplycost})
              cut(*c);
            return out;
          },
          py::arg("begin"), py::arg("end"),
          "The same dimension tables with lineorder rows [begin, end) only.")
      .def_property_readonly(
          "lineorder_rows", [](const SsbTables& t) { return t.lineorder.size(); },
          "Rows of the fact table.")
      .def(py::pickle([](const SsbTables& t) { return tables_dict(t); },
                      [](py::dict d) { return tables_from_dict(d); }));

  m.def("query_names", &query_names, "The SSB queries: q1.1 ... q4.3.");
  m.def(
      "query_sql", [](const std::string& name) { return unwrap(query_sql(name)); }, py::arg("name"),
      "A query's SQL text (SQLite's dialect, over the dbgen schema).");

  py::class_<PySsbEngine>(m, "Engine",
                          "The ray-tracing SSB engine: the fact table as triangles, a query as "
                          "rays; results as a dict of numpy columns.")
      .def(py::init([](std::shared_ptr<PyContext> ctx, const SsbTables& tables,
                       const std::string& traversal) {
             SsbEngineOptions o;
             o.traversal = parse_traversal(traversal);
             GpuSection gpu(ctx->lock);
             return std::make_unique<PySsbEngine>(
                 PySsbEngine{ctx, unwrap(SsbEngine::create(ctx->ctx, tables, o))});
           }),
           // The engine reads the host tables after create (the dimension strings when decoding
           // results): they live as long as the engine.
           py::keep_alive<1, 3>(), py::arg("ctx"), py::arg("tables"),
           py::arg("traversal") = "automatic", "Load the tables onto the context's device.")
      .def(
          "run",
          [](PySsbEngine& s, const std::string& query) {
            ResultTable r;
            {
              GpuSection gpu(s.ctx->lock);
              r = unwrap(s.engine.run(query));
            }
            return text_table_dict(r.columns, r.rows);
          },
          py::arg("query"),
          "Run a query by name (q1.1 ... q4.3): {column: numpy array} in the query's ORDER BY "
          "order; integer columns int64, text columns str.")
      .def_property_readonly(
          "rows", [](const PySsbEngine& s) { return s.engine.rows(); }, "Fact-table rows.")
      .def_property_readonly(
          "last_stats",
          [](const PySsbEngine& s) {
            const SsbQueryStats& q = s.engine.last_stats();
            py::dict d;
            d["trace_ms"] = q.trace_ms;
            d["bvh_build_ms"] = q.bvh_build_ms;
            d["encode_ms"] = q.encode_ms;
            d["rays"] = q.rays;
            d["groups"] = q.groups;
            return d;
          },
          "Timings (ms) and counts of the most recent query, as a dict.");
}

}  // namespace raydb::python
