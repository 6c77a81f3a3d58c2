// raydb.DpBisTable: DP-BIS selections (bin codes, boundary-bin refinement) on compute shaders.
#include "raydb/dpbis.hpp"
#include "common.hpp"

namespace raydb::python {
namespace {

struct PyDpBis {
  std::shared_ptr<PyContext> ctx;
  DpBisTable table;
};

}  // namespace

void bind_dpbis(py::module_& m) {
  py::class_<PyDpBis>(m, "DpBisTable",
                      "DP-BIS: each uint32 column binned into 8-bit codes; predicates select on "
                      "the codes and refine only the boundary bins.")
      .def(py::init([](std::shared_ptr<PyContext> ctx, py::object columns, uint32_t bins,
                       bool sieve_vectors, const std::string& backend) {
             Columns c = to_columns(columns, "columns");
             DpBisOptions o;
             o.bins = bins;
             o.sieve_vectors = sieve_vectors;
             o.backend = parse_backend_arg(backend);
             GpuSection gpu(ctx->lock);
             return std::make_unique<PyDpBis>(
                 PyDpBis{ctx, unwrap(DpBisTable::build(ctx->ctx, c.spans, o))});
           }),
           py::arg("ctx"), py::arg("columns"), py::arg("bins") = 256,
           py::arg("sieve_vectors") = false, py::arg("backend") = "automatic",
           "Build from columns (a sequence of equal-length uint32 arrays or a 2-D array). bins: 2 "
           "to 256. backend: auto | vulkan | cuda.")
      .def(
          "select",
          [](PyDpBis& s, py::object predicates, const std::string& combine) {
            std::vector<Predicate> p = to_predicates(predicates);
            Combine how;
            if (combine == "all")
              how = Combine::all;
            else if (combine == "any")
              how = Combine::any;
            else
              invalid("combine: expected all | any, got '" + combine + "'");
            Bitmap b = [&] {
              GpuSection gpu(s.ctx->lock);
              return unwrap(s.table.select(p, how));
            }();
            return wrap_bitmap(s.ctx, std::move(b));
          },
          py::arg("predicates"), py::arg("combine") = "all",
          "Rows meeting all (AND) or any (OR) of the predicates, as a raydb.Bitmap.")
      .def_property_readonly(
          "rows", [](const PyDpBis& s) { return s.table.rows(); }, "Rows of the table.")
      .def_property_readonly(
          "columns", [](const PyDpBis& s) { return s.table.columns(); }, "Columns of the table.");
}

}  // namespace raydb::python
