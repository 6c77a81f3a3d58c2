// raydb.Predicate and raydb.Bitmap: what RtScanTable and DpBisTable select with and return.
#include "common.hpp"

namespace raydb::python {

// A selection's bitmap with the context it lives on (its GPU calls take the context's lock).
struct PyBitmap {
  std::shared_ptr<PyContext> ctx;
  Bitmap bitmap;
};

void bind_scan(py::module_& m) {
  py::class_<Predicate>(m, "Predicate",
                        "column OP value on a uint32 column: op lt | le | gt | ge | eq | between "
                        "(value <= x <= value2).")
      .def(py::init(
               [](py::object column, const std::string& op, py::object value, py::object value2) {
                 Predicate p;
                 p.column = u32_arg(column, "Predicate column");
                 p.op = unwrap(parse_compare_op(op));
                 p.value = u32_arg(value, "Predicate value");
                 p.value2 = u32_arg(value2, "Predicate value2");
                 return p;
               }),
           py::arg("column"), py::arg("op"), py::arg("value"), py::arg("value2") = 0,
           "A predicate on column `column` (0-based).")
      .def_readwrite("column", &Predicate::column, "The column, 0-based.")
      .def_property_readonly(
          "op", [](const Predicate& p) { return std::string(to_string(p.op)); },
          "The comparison: lt | le | gt | ge | eq | between.")
      .def_readwrite("value", &Predicate::value, "The constant (between: the low bound).")
      .def_readwrite("value2", &Predicate::value2, "between: the high bound (inclusive).")
      .def("__repr__", [](const Predicate& p) {
        return "Predicate(" + std::to_string(p.column) + ", '" + to_string(p.op) + "', " +
               std::to_string(p.value) +
               (p.op == CompareOp::between ? ", " + std::to_string(p.value2) : "") + ")";
      });

  py::class_<PyBitmap>(m, "Bitmap",
                       "A selection on the device: one bit per row. Read it with row_ids(), "
                       "count() or words().")
      .def_property_readonly(
          "rows", [](const PyBitmap& b) { return b.bitmap.rows(); }, "Rows the bitmap covers.")
      .def(
          "count",
          [](PyBitmap& b) {
            GpuSection gpu(b.ctx->lock);
            return unwrap(b.bitmap.count());
          },
          "Set rows.")
      .def(
          "row_ids",
          [](PyBitmap& b) {
            std::vector<uint32_t> ids;
            {
              GpuSection gpu(b.ctx->lock);
              ids = unwrap(b.bitmap.row_ids());
            }
            return to_numpy(ids);
          },
          "The set rows, ascending, as a uint32 array.")
      .def(
          "words",
          [](PyBitmap& b) {
            std::vector<uint32_t> w;
            {
              GpuSection gpu(b.ctx->lock);
              w = unwrap(b.bitmap.words());
            }
            return to_numpy(w);
          },
          "The bitmap as uint32 words, row r at bit r % 32 of word r / 32.")
      .def(
          "to_bool",
          [](PyBitmap& b) {
            std::vector<uint32_t> w;
            {
              GpuSection gpu(b.ctx->lock);
              w = unwrap(b.bitmap.words());
            }
            py::module_ np = py::module_::import("numpy");
            py::object bits = np.attr("unpackbits")(to_numpy(w).attr("view")("uint8"),
                                                    py::arg("bitorder") = "little");
            return bits
                .attr("__getitem__")(py::slice(0, static_cast<py::ssize_t>(b.bitmap.rows()), 1))
                .attr("astype")("bool");
          },
          "The bitmap as a bool array of one entry per row.")
      .def(
          "__iand__",
          [](PyBitmap& a, const PyBitmap& b) -> PyBitmap& {
            GpuSection gpu(a.ctx->lock);
            unwrap(a.bitmap.and_with(b.bitmap));
            return a;
          },
          "AND with another bitmap of the same row count, in place.")
      .def(
          "__ior__",
          [](PyBitmap& a, const PyBitmap& b) -> PyBitmap& {
            GpuSection gpu(a.ctx->lock);
            unwrap(a.bitmap.or_with(b.bitmap));
            return a;
          },
          "OR with another bitmap of the same row count, in place.")
      .def(
          "invert",
          [](PyBitmap& a) {
            GpuSection gpu(a.ctx->lock);
            unwrap(a.bitmap.invert());
          },
          "Flip every row's bit, in place.");
}

py::object wrap_bitmap(const std::shared_ptr<PyContext>& ctx, Bitmap bitmap) {
  return py::cast(PyBitmap{ctx, std::move(bitmap)});
}

}  // namespace raydb::python
