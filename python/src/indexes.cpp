// The four point/range indexes (RxIndex, CgrxIndex, SortedIndex, HashIndex): built from numpy
// keys (uint32 or uint64) and optional uint32 values; lookups write straight into a structured
// numpy array of dtype raydb.LOOKUP_DTYPE (first_row, count, sum).
#include "common.hpp"
#include "raydb/cgrx_index.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/sorted_index.hpp"

namespace raydb::python {
namespace {

template <class Index>
struct PyIndex {
  std::shared_ptr<PyContext> ctx;
  Index index;
};

template <class Index, class Options>
std::unique_ptr<PyIndex<Index>> build_index(const std::shared_ptr<PyContext>& ctx, py::handle keys,
                                            py::handle values, const Options& options) {
  Keys k = to_keys(keys, "keys");
  Values v = to_values(values, k.span.size, "values");
  GpuSection gpu(ctx->lock);
  if constexpr (std::is_same_v<Index, HashIndex>) {
    (void)options;
    return std::make_unique<PyIndex<Index>>(
        PyIndex<Index>{ctx, unwrap(Index::build(ctx->ctx, k.span, v.span))});
  } else {
    return std::make_unique<PyIndex<Index>>(
        PyIndex<Index>{ctx, unwrap(Index::build(ctx->ctx, k.span, v.span, options))});
  }
}

template <class Index>
py::array lookup_points(PyIndex<Index>& self, py::handle points) {
  Keys k = to_keys(points, "points", static_cast<int>(self.index.key_width()));
  py::array_t<RxLookup> out = new_array<RxLookup>(k.span.size);
  std::span<RxLookup> dst(out.mutable_data(), k.span.size);
  {
    GpuSection gpu(self.ctx->lock);
    unwrap(self.index.lookup(k.span, dst));
  }
  return out;
}

template <class Index>
py::array lookup_ranges(PyIndex<Index>& self, py::handle ranges) {
  Ranges r = to_ranges(ranges, "ranges", static_cast<int>(self.index.key_width()));
  py::array_t<RxLookup> out = new_array<RxLookup>(r.span.size);
  std::span<RxLookup> dst(out.mutable_data(), r.span.size);
  {
    GpuSection gpu(self.ctx->lock);
    unwrap(self.index.lookup_ranges(r.span, dst));
  }
  return out;
}

constexpr const char* kLookupDoc =
    "Point lookups: one row of LOOKUP_DTYPE per key, in input order: first_row (a row holding "
    "the key; 0xFFFFFFFF on a miss), count (rows holding it), sum (their values, mod 2^64).";
constexpr const char* kRangeDoc =
    "Range lookups over an (n, 2) array of inclusive [lo, hi] rows: one row of LOOKUP_DTYPE per "
    "range (first_row, count of rows in range, sum of their values).";

template <class Index>
py::class_<PyIndex<Index>> common(py::module_& m, const char* name, const char* doc, bool ranges) {
  py::class_<PyIndex<Index>> c(m, name, doc);
  c.def("lookup", &lookup_points<Index>, py::arg("points"), kLookupDoc)
      .def_property_readonly(
          "size", [](const PyIndex<Index>& s) { return s.index.size(); }, "Keys indexed.")
      .def(
          "__len__", [](const PyIndex<Index>& s) { return s.index.size(); }, "Keys indexed.")
      .def_property_readonly(
          "context", [](const PyIndex<Index>& s) { return s.ctx; }, "The index's Context.");
  if constexpr (!std::is_same_v<Index, HashIndex>) {
    if (ranges) c.def("lookup_ranges", &lookup_ranges<Index>, py::arg("ranges"), kRangeDoc);
  }
  return c;
}

Primitive parse_primitive(const std::string& s) {
  if (s == "triangles") return Primitive::triangles;
  if (s == "aabbs") return Primitive::aabbs;
  invalid("primitive: expected triangles | aabbs, got '" + s + "'");
}
RxLookupMethod parse_method(const std::string& s) {
  if (s == "automatic") return RxLookupMethod::automatic;
  if (s == "any_hit") return RxLookupMethod::any_hit;
  if (s == "hit_and_scan") return RxLookupMethod::hit_and_scan;
  invalid("method: expected automatic | any_hit | hit_and_scan, got '" + s + "'");
}

}  // namespace

void bind_indexes(py::module_& m) {
  PYBIND11_NUMPY_DTYPE(RxLookup, first_row, count, sum);
  m.attr("LOOKUP_DTYPE") = lookup_dtype();
  m.attr("MISS_ROW") = kMissRow;

  common<RxIndex>(m, "RxIndex",
                  "RX: each key a triangle (or box) in a BVH; lookups are rays. Exact at any key "
                  "magnitude (hits are re-checked).",
                  true)
      .def(py::init([](std::shared_ptr<PyContext> ctx, py::object keys, py::object values,
                       const std::string& primitive, bool compact, bool key_order,
                       uint32_t partitions, const std::string& method, bool sort_probes,
                       bool compress_duplicates, const std::string& traversal,
                       double compact_min_saving) {
             RxBuildOptions o;
             o.primitive = parse_primitive(primitive);
             o.compact = compact;
             o.compact_min_saving = compact_min_saving;
             o.key_order = key_order;
             o.partitions = partitions;
             o.method = parse_method(method);
             o.sort_probes = sort_probes;
             o.compress_duplicates = compress_duplicates;
             o.traversal = parse_traversal(traversal);
             return build_index<RxIndex>(ctx, keys, values, o);
           }),
           py::arg("ctx"), py::arg("keys"), py::arg("values") = py::none(),
           py::arg("primitive") = "triangles", py::arg("compact") = true,
           py::arg("key_order") = true, py::arg("partitions") = 1, py::arg("method") = "automatic",
           py::arg("sort_probes") = false, py::arg("compress_duplicates") = false,
           py::arg("traversal") = "automatic",
           py::arg("compact_min_saving") = RxBuildOptions{}.compact_min_saving,
           "Build from keys (1-D uint32 or uint64; non-negative int arrays accepted) and optional "
           "uint32 values (row i's value; None: the row ids' sums are of zeros). compact: copy the "
           "BVH into its compacted size where that saves at least compact_min_saving of its "
           "bytes.")
      .def_property_readonly(
          "build_stats",
          [](const PyIndex<RxIndex>& s) {
            const RxBuildStats& b = s.index.build_stats();
            py::dict d;
            d["upload_ms"] = b.upload_ms;
            d["sort_ms"] = b.sort_ms;
            d["build_ms"] = b.build_ms();
            d["bvh_bytes"] = b.bvh_bytes;
            d["bvh_uncompacted_bytes"] = b.bvh_uncompacted_bytes;
            d["bvh_compacted_bytes"] = b.bvh_compacted_bytes;
            d["resident_bytes"] = b.resident_bytes;
            d["primitives"] = b.primitives;
            return d;
          },
          "Build timings (ms) and sizes (bytes) as a dict.")
      .def_property_readonly(
          "last_stats",
          [](const PyIndex<RxIndex>& s) {
            const RxProbeStats& p = s.index.last_stats();
            py::dict d;
            d["upload_ms"] = p.upload_ms;
            d["sort_ms"] = p.sort_ms;
            d["probe_ms"] = p.probe_ms;
            d["download_ms"] = p.download_ms;
            d["rays"] = p.rays;
            d["results_direct"] = p.results_direct;
            return d;
          },
          "Timings (ms) and rays of the most recent lookup, and whether its kernels wrote the "
          "results straight into pinned host memory, as a dict.");

  common<CgrxIndex>(m, "CgrxIndex",
                    "cgRX: one triangle per bucket of sorted keys; a ray finds the bucket, the "
                    "bucket is then searched.",
                    true)
      .def(py::init([](std::shared_ptr<PyContext> ctx, py::object keys, py::object values,
                       uint32_t bucket_size, bool compact, const std::string& traversal) {
             CgrxBuildOptions o;
             o.bucket_size = bucket_size;
             o.compact = compact;
             o.traversal = parse_traversal(traversal);
             return build_index<CgrxIndex>(ctx, keys, values, o);
           }),
           py::arg("ctx"), py::arg("keys"), py::arg("values") = py::none(),
           py::arg("bucket_size") = 32, py::arg("compact") = true,
           py::arg("traversal") = "automatic",
           "Build from keys (1-D uint32 or uint64) and optional uint32 values.");

  common<SortedIndex>(m, "SortedIndex",
                      "A sorted array searched by compute shaders (the non-ray-tracing baseline).",
                      true)
      .def(py::init([](std::shared_ptr<PyContext> ctx, py::object keys, py::object values,
                       const std::string& layout) {
             SortedOptions o;
             o.layout = unwrap(parse_sorted_layout(layout));
             return build_index<SortedIndex>(ctx, keys, values, o);
           }),
           py::arg("ctx"), py::arg("keys"), py::arg("values") = py::none(),
           py::arg("layout") = "lines",
           "Build from keys (1-D uint32 or uint64) and optional uint32 values. layout: lines | "
           "fences.");

  common<HashIndex>(m, "HashIndex", "A GPU hash table (point lookups only).", false)
      .def(py::init([](std::shared_ptr<PyContext> ctx, py::object keys, py::object values) {
             return build_index<HashIndex>(ctx, keys, values, 0);
           }),
           py::arg("ctx"), py::arg("keys"), py::arg("values") = py::none(),
           "Build from keys (1-D uint32 or uint64) and optional uint32 values.");
}

}  // namespace raydb::python
