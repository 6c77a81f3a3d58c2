// numpy in: keys, ranges, values, columns and predicates, checked whole (dtype, shape, sign)
// without a Python step per element.
#include <charconv>
#include <limits>

#include "common.hpp"

namespace raydb::python {
namespace {

// `obj` as a C-contiguous array of an unsigned integer dtype of `bits` 32 or 64 (chosen from its
// dtype when bits == 0), negative signed input rejected.
py::array as_unsigned(py::handle obj, int bits, const char* what) {
  py::array a = py::array::ensure(obj);
  if (!a) invalid(std::string(what) + ": expected a numpy array (or a sequence of integers)");
  if (a.size() == 0 && a.dtype().kind() == 'f') a = a.attr("astype")("uint32");  // np.array([])
  char kind = a.dtype().kind();
  if (kind != 'u' && kind != 'i')
    invalid(std::string(what) + ": expected an integer dtype, got " +
            std::string(py::str(a.dtype())));
  if (kind == 'i' && a.size() > 0 && py::cast<long long>(a.attr("min")()) < 0)
    invalid(std::string(what) + ": negative values (keys and values are unsigned)");
  if (bits == 0) bits = item_bytes(a) > 4 ? 64 : 32;
  if (bits == 32 && item_bytes(a) > 4 && a.size() > 0 &&
      py::cast<unsigned long long>(a.attr("max")()) > 0xFFFFFFFFull)
    invalid(std::string(what) + ": values above 2^32 - 1 where 32-bit keys are expected");
  if (bits == 64)
    return py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(a);
  return py::array_t<uint32_t, py::array::c_style | py::array::forcecast>::ensure(a);
}

// One result column: int64 when every cell is an integer, float64 when every cell is a number or
// NULL (as NaN), else str. Parsed in C++; only text columns make Python objects per cell.
py::object text_column(const std::vector<std::vector<std::string>>& rows, size_t c) {
  size_t n = rows.size();
  std::vector<int64_t> ints(n);
  bool all_int = true;
  for (size_t i = 0; i < n && all_int; ++i) {
    const std::string& s = rows[i][c];
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), ints[i]);
    all_int = ec == std::errc() && p == s.data() + s.size() && !s.empty();
  }
  if (all_int) return to_numpy(ints);
  std::vector<double> reals(n);
  bool all_real = true;
  for (size_t i = 0; i < n && all_real; ++i) {
    const std::string& s = rows[i][c];
    if (s == "NULL") {
      reals[i] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), reals[i]);
    all_real = ec == std::errc() && p == s.data() + s.size() && !s.empty();
  }
  if (all_real) return to_numpy(reals);
  py::list cells(n);
  for (size_t i = 0; i < n; ++i) cells[i] = py::str(rows[i][c]);
  return py::module_::import("numpy").attr("array")(cells, py::arg("dtype") = "str");
}

}  // namespace

py::dict text_table_dict(const std::vector<std::string>& columns,
                         const std::vector<std::vector<std::string>>& rows) {
  py::dict d;
  for (size_t c = 0; c < columns.size(); ++c) d[py::str(columns[c])] = text_column(rows, c);
  return d;
}

py::dtype lookup_dtype() {
  return py::dtype::of<RxLookup>();
}

Keys to_keys(py::handle obj, const char* what, int bits) {
  Keys k;
  k.array = as_unsigned(obj, bits, what);
  if (k.array.ndim() != 1) invalid(std::string(what) + ": expected a 1-D array");
  size_t n = static_cast<size_t>(k.array.size());
  if (item_bytes(k.array) == 8)
    k.span = KeySpan(std::span<const uint64_t>(static_cast<const uint64_t*>(k.array.data()), n));
  else
    k.span = KeySpan(std::span<const uint32_t>(static_cast<const uint32_t*>(k.array.data()), n));
  return k;
}

Ranges to_ranges(py::handle obj, const char* what, int bits) {
  Ranges r;
  r.array = as_unsigned(obj, bits, what);
  if (r.array.size() == 0 && r.array.ndim() == 1) r.array = r.array.attr("reshape")(0, 2);
  if (r.array.ndim() != 2 || r.array.shape(1) != 2)
    invalid(std::string(what) + ": expected an (n, 2) array of [lo, hi] rows");
  size_t n = static_cast<size_t>(r.array.shape(0));
  if (item_bytes(r.array) == 8)
    r.span = RangeSpan(std::span<const Range64>(static_cast<const Range64*>(r.array.data()), n));
  else
    r.span = RangeSpan(std::span<const Range32>(static_cast<const Range32*>(r.array.data()), n));
  return r;
}

Values to_values(py::handle obj, size_t expect, const char* what) {
  Values v;
  if (obj.is_none()) return v;
  v.array = as_unsigned(obj, 32, what);
  if (v.array.ndim() != 1 || static_cast<size_t>(v.array.size()) != expect)
    invalid(std::string(what) + ": expected a 1-D array of " + std::to_string(expect) +
            " entries (one per key), got " + std::to_string(v.array.size()));
  v.span = {static_cast<const uint32_t*>(v.array.data()), expect};
  return v;
}

Columns to_columns(py::handle obj, const char* what) {
  Columns c;
  py::list items;
  py::array whole = py::array::ensure(obj);
  if (whole && whole.ndim() == 2) {
    for (py::ssize_t i = 0; i < whole.shape(0); ++i) items.append(whole[py::int_(i)]);
  } else {
    items = py::list(py::reinterpret_borrow<py::object>(obj));
  }
  for (py::handle item : items) {
    std::string name = std::string(what) + "[" + std::to_string(c.arrays.size()) + "]";
    py::array a = as_unsigned(item, 32, name.c_str());
    if (a.ndim() != 1) invalid(name + ": expected a 1-D column");
    c.spans.emplace_back(static_cast<const uint32_t*>(a.data()), static_cast<size_t>(a.size()));
    c.arrays.push_back(std::move(a));
  }
  return c;
}

uint32_t u32_arg(py::handle obj, const std::string& what) {
  // numpy integer scalars pass through __index__; floats (NaN included), text and None do not.
  if (!PyIndex_Check(obj.ptr()))
    invalid(what + ": expected an integer, got " + std::string(py::repr(obj)));
  py::int_ v = py::reinterpret_steal<py::int_>(PyNumber_Index(obj.ptr()));
  if (!v) throw py::error_already_set();
  if (PyObject_RichCompareBool(v.ptr(), py::int_(0).ptr(), Py_LT) == 1 ||
      PyObject_RichCompareBool(v.ptr(), py::int_(0xFFFFFFFFull).ptr(), Py_GT) == 1)
    invalid(what + ": " + std::string(py::str(v)) + " is outside uint32 [0, 4294967295]");
  return v.cast<uint32_t>();
}

std::vector<Predicate> to_predicates(py::handle obj) {
  std::vector<Predicate> out;
  for (py::handle item : obj) {
    if (py::isinstance<Predicate>(item)) {
      out.push_back(item.cast<Predicate>());
      continue;
    }
    if (!py::isinstance<py::tuple>(item) && !py::isinstance<py::list>(item))
      invalid("predicate " + std::to_string(out.size()) +
              ": expected raydb.Predicate or (column, op, value[, value2]), got " +
              std::string(py::repr(item)));
    py::tuple t = py::tuple(py::reinterpret_borrow<py::object>(item));
    if (t.size() < 3 || t.size() > 4)
      invalid("predicate " + std::to_string(out.size()) +
              ": expected (column, op, value[, value2]), got " + std::string(py::repr(item)));
    std::string where = "predicate " + std::to_string(out.size());
    Predicate p;
    p.column = u32_arg(t[0], where + " column");
    if (!py::isinstance<py::str>(t[1]))
      invalid(where + ": op must be text (lt le gt ge eq between), got " +
              std::string(py::repr(t[1])));
    p.op = unwrap(parse_compare_op(t[1].cast<std::string>()));
    p.value = u32_arg(t[2], where + " value");
    if (t.size() == 4) p.value2 = u32_arg(t[3], where + " value2");
    out.push_back(p);
  }
  return out;
}

}  // namespace raydb::python
