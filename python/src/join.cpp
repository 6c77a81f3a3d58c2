// The joins: RxJoin / CgrxJoin (an index on the build side, probed many times), the one-shot
// rx_join and the compute-shader baselines. Pairs come back as a structured array
// (build_row, probe_row), copied whole from the library's vector.
#include "raydb/join.hpp"
#include "common.hpp"

namespace raydb::python {
namespace {

template <class Join>
struct PyJoin {
  std::shared_ptr<PyContext> ctx;
  Join join;
};

py::dict aggregate_dict(const JoinAggregate& a) {
  py::dict d;
  d["matches"] = a.matches;
  d["build_value_sum"] = a.build_value_sum;
  return d;
}

template <class Join, class Options>
void bind_join_class(py::module_& m, const char* name, const char* doc) {
  py::class_<PyJoin<Join>>(m, name, doc)
      .def(py::init([](std::shared_ptr<PyContext> ctx, py::object keys, py::object values) {
             Keys k = to_keys(keys, "build_keys");
             Values v = to_values(values, k.span.size, "build_values");
             GpuSection gpu(ctx->lock);
             return std::make_unique<PyJoin<Join>>(
                 PyJoin<Join>{ctx, unwrap(Join::build(ctx->ctx, k.span, v.span, Options{}))});
           }),
           py::arg("ctx"), py::arg("build_keys"), py::arg("build_values") = py::none(),
           "Index the build side: keys (1-D uint32 or uint64) and optional uint32 values.")
      .def(
          "pairs",
          [](PyJoin<Join>& s, py::object probe) {
            Keys k = to_keys(probe, "probe_keys", static_cast<int>(s.join.index().key_width()));
            std::vector<JoinPair> pairs;
            {
              GpuSection gpu(s.ctx->lock);
              pairs = unwrap(s.join.pairs(k.span));
            }
            return to_numpy(pairs);
          },
          py::arg("probe_keys"),
          "Every matching (build_row, probe_row) pair as a structured array; the order is "
          "unspecified (sort it to compare).")
      .def(
          "aggregate",
          [](PyJoin<Join>& s, py::object probe) {
            Keys k = to_keys(probe, "probe_keys", static_cast<int>(s.join.index().key_width()));
            JoinAggregate a;
            {
              GpuSection gpu(s.ctx->lock);
              a = unwrap(s.join.aggregate(k.span));
            }
            return aggregate_dict(a);
          },
          py::arg("probe_keys"),
          "{'matches': pairs, 'build_value_sum': sum of the build value over every pair mod "
          "2^64}.");
}

JoinSide parse_side(const std::string& s) {
  if (s == "automatic") return JoinSide::automatic;
  if (s == "build") return JoinSide::build;
  if (s == "probe") return JoinSide::probe;
  invalid("indexed: expected automatic | build | probe, got '" + s + "'");
}
JoinIndex parse_join_index(const std::string& s) {
  if (s == "rx") return JoinIndex::rx;
  if (s == "cgrx") return JoinIndex::cgrx;
  invalid("kind: expected rx | cgrx, got '" + s + "'");
}
BaselineJoin parse_baseline(const std::string& s) {
  if (s == "sort_merge") return BaselineJoin::sort_merge;
  if (s == "sort_search") return BaselineJoin::sort_search;
  if (s == "sorted_array") return BaselineJoin::sorted_array;
  if (s == "hash") return BaselineJoin::hash;
  invalid("kind: expected sort_merge | sort_search | sorted_array | hash, got '" + s + "'");
}

}  // namespace

void bind_join(py::module_& m) {
  PYBIND11_NUMPY_DTYPE(JoinPair, build_row, probe_row);
  m.attr("JOIN_PAIR_DTYPE") = py::dtype::of<JoinPair>();
  bind_join_class<RxJoin, RxBuildOptions>(
      m, "RxJoin", "An RX index on the join's build side, probed by key arrays.");
  bind_join_class<CgrxJoin, CgrxBuildOptions>(
      m, "CgrxJoin", "A cgRX index on the join's build side, probed by key arrays.");

  m.def(
      "join",
      [](std::shared_ptr<PyContext> ctx, py::object build, py::object probe,
         const std::string& kind, const std::string& indexed) {
        Keys b = to_keys(build, "build_keys");
        Keys p = to_keys(probe, "probe_keys", static_cast<int>(b.span.width));
        JoinOptions o;
        o.kind = parse_join_index(kind);
        o.indexed = parse_side(indexed);
        std::vector<JoinPair> pairs;
        {
          GpuSection gpu(ctx->lock);
          pairs = unwrap(rx_join(ctx->ctx, b.span, p.span, o));
        }
        return to_numpy(pairs);
      },
      py::arg("ctx"), py::arg("build_keys"), py::arg("probe_keys"), py::arg("kind") = "rx",
      py::arg("indexed") = "automatic",
      "One-shot ray-traced equi-join: every (build_row, probe_row) with equal keys, as a "
      "structured array (unspecified order). kind: rx | cgrx; indexed: automatic | build | probe.");
  m.def(
      "join_aggregate",
      [](std::shared_ptr<PyContext> ctx, py::object build, py::object values, py::object probe,
         const std::string& kind) {
        Keys b = to_keys(build, "build_keys");
        Values v = to_values(values, b.span.size, "build_values");
        Keys p = to_keys(probe, "probe_keys", static_cast<int>(b.span.width));
        JoinOptions o;
        o.kind = parse_join_index(kind);
        JoinAggregate a;
        {
          GpuSection gpu(ctx->lock);
          a = unwrap(rx_join_aggregate(ctx->ctx, b.span, v.span, p.span, o));
        }
        return aggregate_dict(a);
      },
      py::arg("ctx"), py::arg("build_keys"), py::arg("build_values"), py::arg("probe_keys"),
      py::arg("kind") = "rx",
      "One-shot join aggregate: {'matches', 'build_value_sum'} without materialising pairs.");
  m.def(
      "baseline_join",
      [](std::shared_ptr<PyContext> ctx, const std::string& kind, py::object build,
         py::object probe) {
        Keys b = to_keys(build, "build_keys");
        Keys p = to_keys(probe, "probe_keys", static_cast<int>(b.span.width));
        BaselineJoin k = parse_baseline(kind);
        std::vector<JoinPair> pairs;
        {
          GpuSection gpu(ctx->lock);
          pairs = unwrap(baseline_join(ctx->ctx, k, b.span, p.span));
        }
        return to_numpy(pairs);
      },
      py::arg("ctx"), py::arg("kind"), py::arg("build_keys"), py::arg("probe_keys"),
      "A compute-shader join (sort_merge | sort_search | sorted_array | hash), pairs as a "
      "structured array.");
}

}  // namespace raydb::python
