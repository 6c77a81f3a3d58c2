// Shared helpers of the raydb Python bindings: the context wrapper every object keeps alive, numpy
// conversions of keys, ranges and columns, and unwrapping raydb::Result into exceptions.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/error.hpp"
#include "raydb/keys.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/scan.hpp"

namespace py = pybind11;

namespace raydb::python {

// A raydb::Context with the lock that serialises its queue: raydb objects are not thread-safe, and
// the GIL is released while the GPU works, so every object made from a context takes this lock
// (after releasing the GIL) around its GPU calls.
struct PyContext {
  Context ctx;
  std::shared_ptr<std::mutex> lock = std::make_shared<std::mutex>();
};

// Releases the GIL, then holds the context's lock, for the scope of a GPU call.
class GpuSection {
 public:
  explicit GpuSection(const std::shared_ptr<std::mutex>& lock) : lock_(*lock) {}

 private:
  py::gil_scoped_release release_;
  std::lock_guard<std::mutex> lock_;
};

// Throws the raydb::Error (translated to a raydb.Error subclass) when the call failed.
template <class T>
T unwrap(Result<T>&& r) {
  return std::move(r).value();
}
inline void unwrap(Status&& s) {
  s.value();
}

[[noreturn]] void invalid(const std::string& message);

// A key array held as uint32 or uint64, contiguous, with its KeySpan. Signed integer arrays are
// accepted when no value is negative (numpy's default int64 of np.arange and friends). `bits` 32
// or 64 converts to that width (queries take their index's); 0 keeps the dtype's (up to 4 bytes:
// 32).
struct Keys {
  py::array array;
  KeySpan span;
};
Keys to_keys(py::handle obj, const char* what, int bits = 0);

// Ranges [lo, hi] (inclusive) from an (n, 2) integer array.
struct Ranges {
  py::array array;
  RangeSpan span;
};
Ranges to_ranges(py::handle obj, const char* what, int bits = 0);

// Optional uint32 values (None: none), `expect` entries long.
struct Values {
  py::array array;
  std::span<const uint32_t> span;
};
Values to_values(py::handle obj, size_t expect, const char* what);

// A table of uint32 columns, from a sequence of 1-D arrays or a 2-D array (one row per column).
struct Columns {
  std::vector<py::array> arrays;
  std::vector<std::span<const uint32_t>> spans;
};
Columns to_columns(py::handle obj, const char* what);

// An integer argument in uint32's range (Python int or numpy integer); anything else, NaN
// included, raises InvalidArgument naming `what`.
uint32_t u32_arg(py::handle obj, const std::string& what);

// Predicates from a sequence of raydb.Predicate or (column, op, value[, value2]) tuples.
std::vector<Predicate> to_predicates(py::handle obj);

// A new 1-D numpy array of n elements of T, its stride given rather than derived from the dtype:
// pybind11 before 2.12 reads a dtype's item size at numpy 1's descriptor offset, which numpy 2
// moved, so under numpy 2 a default-strided array would repeat its first element.
template <class T>
py::array_t<T> new_array(size_t n) {
  return py::array_t<T>({static_cast<py::ssize_t>(n)}, {static_cast<py::ssize_t>(sizeof(T))});
}

// An array's item size in bytes, asked of numpy (right under numpy 1 and 2; see new_array).
inline py::ssize_t item_bytes(const py::array& a) {
  return a.dtype().attr("itemsize").cast<py::ssize_t>();
}

// A copy of a vector of trivially copyable T into a new numpy array of dtype T (one memcpy).
template <class T>
py::array_t<T> to_numpy(const std::vector<T>& v) {
  py::array_t<T> out = new_array<T>(v.size());
  if (!v.empty()) std::memcpy(out.mutable_data(), v.data(), v.size() * sizeof(T));
  return out;
}

// A table of text cells (the SSB and SQL engines' results) as {column: numpy array}: int64 where
// every cell is an integer, float64 where every cell is a number or NULL (NaN), else str.
py::dict text_table_dict(const std::vector<std::string>& columns,
                         const std::vector<std::vector<std::string>>& rows);

// The lookup result dtype: first_row (uint32; 0xFFFFFFFF on a miss), count (uint32), sum (uint64).
py::dtype lookup_dtype();

TraversalMode parse_traversal(const std::string& text);
Backend parse_backend_arg(const std::string& text);

void bind_errors(py::module_& m);
void bind_context(py::module_& m);
void bind_indexes(py::module_& m);
void bind_scan(py::module_& m);
void bind_rtscan(py::module_& m);
void bind_dpbis(py::module_& m);
void bind_join(py::module_& m);
void bind_ssb(py::module_& m);
void bind_sql(py::module_& m);  // only with RAYDB_SQL

}  // namespace raydb::python

namespace raydb::python {
// A raydb.Bitmap object holding `bitmap` made on `ctx`.
py::object wrap_bitmap(const std::shared_ptr<PyContext>& ctx, Bitmap bitmap);
}  // namespace raydb::python
