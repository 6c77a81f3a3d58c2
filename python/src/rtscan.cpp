// raydb.RtScanTable: RTScan selections (uniform encoding, sieving, ray-traced refinement).
#include "raydb/rtscan.hpp"
#include "common.hpp"

namespace raydb::python {
namespace {

struct PyRtScan {
  std::shared_ptr<PyContext> ctx;
  RtScanTable table;
};

}  // namespace

void bind_rtscan(py::module_& m) {
  py::class_<PyRtScan>(m, "RtScanTable",
                       "RTScan: uint32 columns encoded into a BVH of cubes; a conjunction of "
                       "predicates is answered by sieving, then ray-traced refinement.")
      .def(py::init([](std::shared_ptr<PyContext> ctx, py::object columns, const std::string& mode,
                       uint32_t bins, std::vector<std::vector<uint32_t>> groups,
                       const std::string& traversal, double interval, double segment,
                       double spacing) {
             Columns c = to_columns(columns, "columns");
             RtScanOptions o;
             o.mode = unwrap(parse_rtscan_mode(mode));
             o.bins = bins;
             o.groups = std::move(groups);
             o.traversal = parse_traversal(traversal);
             o.interval = interval;
             o.segment = segment;
             o.spacing = spacing;
             GpuSection gpu(ctx->lock);
             return std::make_unique<PyRtScan>(
                 PyRtScan{ctx, unwrap(RtScanTable::build(ctx->ctx, c.spans, o))});
           }),
           py::arg("ctx"), py::arg("columns"), py::arg("mode") = "rtscan", py::arg("bins") = 128,
           py::arg("groups") = std::vector<std::vector<uint32_t>>{},
           py::arg("traversal") = "automatic", py::arg("interval") = 0.0, py::arg("segment") = 0.0,
           py::arg("spacing") = 0.0,
           "Build from columns: a sequence of equal-length 1-D uint32 arrays, or a 2-D array of "
           "one row per column. mode: rtscan | rtc3 | rtc1 | rtindex. groups: column groups "
           "(at most 3 columns each) traced together; [] lets raydb choose. interval, segment, "
           "spacing: the ray lattice in key units (codes in rtscan mode), 0 for the defaults "
           "(include/raydb/rtscan.hpp); a coarser lattice means fewer rays (CPU ray tracers want "
           "interval ~ rows / 48, segment ~ rows / 3).")
      .def(
          "select",
          [](PyRtScan& s, py::object predicates) {
            std::vector<Predicate> p = to_predicates(predicates);
            Bitmap b = [&] {
              GpuSection gpu(s.ctx->lock);
              return unwrap(s.table.select(p));
            }();
            return wrap_bitmap(s.ctx, std::move(b));
          },
          py::arg("predicates"),
          "Rows meeting every predicate (raydb.Predicate or (column, op, value[, value2])), as a "
          "raydb.Bitmap.")
      .def_property_readonly(
          "rows", [](const PyRtScan& s) { return s.table.rows(); }, "Rows of the table.")
      .def_property_readonly(
          "columns", [](const PyRtScan& s) { return s.table.columns(); }, "Columns of the table.")
      .def_property_readonly(
          "last_stats",
          [](const PyRtScan& s) {
            const RtScanQueryStats& q = s.table.last_stats();
            py::dict d;
            d["sieve_ms"] = q.sieve_ms;
            d["refine_ms"] = q.refine_ms;
            d["merge_ms"] = q.merge_ms;
            d["rays"] = q.rays;
            d["refined_rows"] = q.refined_rows;
            return d;
          },
          "Timings (ms) and counts of the most recent select, as a dict.");
}

}  // namespace raydb::python
