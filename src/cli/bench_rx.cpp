// raydb bench rx: the RTIndeX experiments. Builds an RX index over generated keys and times
// batches of point or range lookups with GPU timestamps (warm-up, median of repeats), checking
// every result whole against the CPU reference, and appends one JSON line per configuration.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <random>

#include "cli/cli.hpp"
#include "raydb/cgrx_index.hpp"
#include "raydb/cgrx_optix.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_optix.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/sorted_index.hpp"
#include "raydb/workload.hpp"

namespace raydb::cli {

namespace {

struct BenchRxOptions {
  CommonOptions common;
  std::string size = "auto";
  uint64_t keys = 0, lookups = 0;  // 0: from --size
  std::vector<int> key_bits = {32};
  std::vector<double> hit_rates = {1.0};
  std::vector<std::string> orders = {"unsorted"};
  std::vector<uint64_t> range_widths = {0};
  std::vector<std::string> primitives = {"triangles"};
  std::vector<std::string> traversals;  // empty: --traversal
  std::vector<std::string> layouts = {"key"};
  std::vector<std::string> methods = {"automatic"};
  std::vector<std::string> opaque = {"on"};
  std::string diagnostic = "none";
  std::vector<std::string> indexes = {"rx"};
  std::vector<std::string> apis = {"vulkan"};           // --api: vulkan and/or optix (RX only)
  std::vector<std::string> optix_variants = {"base"};   // --optix-variant: RxOptixOptions
  std::vector<std::string> sorted_layouts = {"lines"};  // --index sorted: SortedLayout, swept
  std::vector<uint32_t> bucket_sizes = {32};            // --index cgrx
  std::vector<std::string> cgrx_rays = {"window"};      // CgrxBuildOptions::window_first_ray, swept
  std::string key_dist = "uniform", probe_dist = "uniform";
  double key_zipf = 1.0, probe_zipf = 1.0;
  uint32_t multiplicity = 1;
  std::string prefer;  // --prefer; empty: each index's default (RX none, cgRX fast_trace)
  bool no_compact = false;
  std::vector<uint32_t> partitions = {1};  // RxBuildOptions::partitions, swept
  bool compress_duplicates = false;
  int build_repeats = 3;
  BenchRunOptions run = {.repeats = 5, .warmup = 3};
};

void progress(const std::string& s) {
  bench_progress("rx", s);
}

Primitive parse_primitive(const std::string& s) {
  if (s == "triangles" || s == "tri") return Primitive::triangles;
  if (s == "aabbs" || s == "aabb" || s == "boxes") return Primitive::aabbs;
  throw Error(Errc::invalid_argument, fmt::format("unknown primitive '{}' (triangles, aabbs)", s));
}

RxLookupMethod parse_method(const std::string& s) {
  if (s == "automatic" || s == "auto") return RxLookupMethod::automatic;
  if (s == "any_hit") return RxLookupMethod::any_hit;
  if (s == "hit_and_scan") return RxLookupMethod::hit_and_scan;
  throw Error(Errc::invalid_argument,
              fmt::format("unknown lookup method '{}' (automatic, any_hit, hit_and_scan)", s));
}

struct ProbeRow {
  std::string kind;  // point | range
  double hit_rate;
  bool sorted;
  uint64_t range_width;
  double probe_ms, upload_ms, download_ms;
  std::vector<double> all_ms;
  uint64_t rays, hits;
  std::string checked;
};

// Everything the lookups of one key set share.
struct Workload {
  const workload::KeyWorkload& keys;
  const RxReference* ref;  // null with --no-check
  uint64_t nlookups, seed;
  int bits;
  workload::Distribution probe_dist;
};

// One index configuration under test: how to run its lookups and what to record about it.
struct Candidate {
  std::string api = "vulkan";  // which API traces (vulkan, optix)
  nlohmann::json fields;       // api, index, traversal, primitive, method, build times and bytes
  std::string columns;         // its leading table columns
  double build_ms = 0;
  uint64_t index_bytes = 0;
  std::function<Status(const workload::KeyColumn&, std::span<RxLookup>)> points;
  std::function<Status(const workload::RangeColumn&, std::span<RxLookup>)> ranges;
  std::function<RxProbeStats()> last_probe;
  std::function<void(bool)> sort_probes;  // null where the index cannot sort lookups itself
  std::shared_ptr<RxIndex> rx;            // the RX index itself (an OptiX twin builds over it)
  std::shared_ptr<CgrxIndex> cgrx;        // the cgRX index itself (likewise)
};

std::string columns(const std::string& index, const std::string& traversal,
                    const std::string& primitive, const std::string& method,
                    const std::string& api = "vulkan") {
  return fmt::format("{:<6} {:<6} {:<9} {:<9} {:<15}", api, index, traversal, primitive, method);
}

// --diagnostic (checked in run()) as the indexes and their OptiX twins take it.
RxDiagnostic diagnostic_of(const BenchRxOptions& o) {
  return o.diagnostic == "no_trace"     ? RxDiagnostic::no_trace
         : o.diagnostic == "trace_only" ? RxDiagnostic::trace_only
                                        : RxDiagnostic::none;
}

// Points the candidate's lookups at `index` (RxIndex, SortedIndex, HashIndex); range lookups only
// where the index has them (a hash table does not).
template <class Index>
void attach(Candidate& c, std::shared_ptr<Index> index) {
  c.points = [index](const workload::KeyColumn& k, std::span<RxLookup> out) {
    return index->lookup(k.span(), out);
  };
  if constexpr (requires { index->lookup_ranges(RangeSpan{}, std::span<RxLookup>{}); })
    c.ranges = [index](const workload::RangeColumn& r, std::span<RxLookup> out) {
      return index->lookup_ranges(r.span(), out);
    };
  c.last_probe = [index] { return index->last_probe(); };
  if constexpr (requires { index->set_sort_probes(true); })
    c.sort_probes = [index](bool on) { index->set_sort_probes(on); };
}

// Builds an RX index (one warm-up build, then the median of --build-repeats rebuilds); nullopt
// when the device refuses the configuration.
std::optional<Candidate> build_rx(const BenchRxOptions& o, const Context& ctx,
                                  const workload::KeyWorkload& wl, const std::string& tname,
                                  const std::string& pname, const std::string& layout,
                                  const std::string& method, bool opaque, uint32_t partitions) {
  RxBuildOptions bo;
  bo.method = parse_method(method);
  bo.opaque_triangles = opaque;
  bo.traversal = parse_traversal_mode(tname).value();
  bo.primitive = parse_primitive(pname);
  if (layout != "key" && layout != "row")
    throw Error(Errc::invalid_argument, "--layout takes key or row");
  bo.key_order = layout == "key";
  bo.compact = !o.no_compact;
  if (!o.prefer.empty()) bo.preference = parse_preference(o.prefer);
  bo.partitions = partitions;
  bo.compress_duplicates = o.compress_duplicates;
  // Compression needs hit_and_scan; in a sweep over methods the any-hit runs are left out.
  bool any_hit = bo.method == RxLookupMethod::any_hit ||
                 (bo.method == RxLookupMethod::automatic && !bo.key_order);
  if (bo.compress_duplicates && any_hit) {
    progress(fmt::format("skipped: --compress-duplicates needs hit_and_scan (method={} layout={})",
                         method, layout));
    return std::nullopt;
  }
  progress(fmt::format("building rx: {} {} layout={} method={} opaque={} partitions={}{}", tname,
                       pname, layout, method, opaque, partitions,
                       bo.compress_duplicates ? " compressed" : ""));
  auto built = RxIndex::build(ctx, wl.keys.span(), wl.values, bo);
  if (!built && built.error().code() == Errc::unsupported) {
    progress(fmt::format("skipped: {}", built.error().what()));
    return std::nullopt;
  }
  auto index = std::make_shared<RxIndex>(std::move(built).value());
  index->set_diagnostic(diagnostic_of(o));
  std::vector<double> build_ms, convert_ms, bvh_ms, compact_ms, sort_ms, upload_ms;
  for (int r = 0; r < std::max(1, o.build_repeats); ++r) {
    index->rebuild(wl.keys.span(), wl.values).value();
    const auto& s = index->build_stats();
    build_ms.push_back(s.build_ms());
    convert_ms.push_back(s.convert_ms);
    bvh_ms.push_back(s.bvh_build_ms);
    compact_ms.push_back(s.compact_ms);
    sort_ms.push_back(s.sort_ms);
    upload_ms.push_back(s.upload_ms);
  }
  const RxBuildStats& bs = index->build_stats();
  progress(
      fmt::format("built in {:.2f} ms (GPU), BVH {:.1f} MB compacted ({:.1f} MB before), peak "
                  "{:.1f} MB",
                  median(build_ms), bs.bvh_bytes / 1e6, bs.bvh_uncompacted_bytes / 1e6,
                  bs.build_peak_bytes / 1e6));
  Candidate c;
  c.fields = {{"index", "rx"},
              {"traversal", to_string(index->traversal())},
              {"primitive", to_string(bo.primitive)},
              {"layout", layout},
              {"method", to_string(index->method())},
              {"opaque_hits", index->opaque_hits()},
              {"diagnostic", o.diagnostic},
              {"compaction", bo.compact},
              {"build_preference", to_string(bo.preference)},
              {"unique_keys", bs.unique_keys},
              {"build_time_ms", median(build_ms)},
              {"build_time_ms_all", build_ms},
              {"build_convert_ms", median(convert_ms)},
              {"build_bvh_ms", median(bvh_ms)},
              {"build_compact_ms", median(compact_ms)},
              {"layout_sort_ms", median(sort_ms)},
              {"build_upload_ms", median(upload_ms)},
              {"build_bytes", bs.bvh_bytes},
              {"bvh_uncompacted_bytes", bs.bvh_uncompacted_bytes},
              {"build_peak_bytes", bs.build_peak_bytes},
              {"gpu_resident_bytes", bs.resident_bytes},
              {"blas_count", bs.blas_count},
              {"partitions", bs.partitions},
              {"partitions_requested", partitions},
              {"compress_duplicates", bo.compress_duplicates},
              {"primitives", bs.primitives}};
  // "/ah": hit_and_scan over triangles with any-hit calls instead of opaque rays (--opaque off).
  std::string method_column = to_string(index->method());
  if (index->method() == RxLookupMethod::hit_and_scan && bo.primitive == Primitive::triangles &&
      !index->opaque_hits())
    method_column += "/ah";
  // "/p4": built in 4 parts; "/dc": one primitive per distinct key.
  if (partitions != 1) method_column += fmt::format("/p{}", partitions);
  if (bo.compress_duplicates) method_column += "/dc";
  if (o.diagnostic != "none") method_column = o.diagnostic;
  c.columns = columns("rx", to_string(index->traversal()), to_string(bo.primitive), method_column);
  c.build_ms = median(build_ms);
  c.index_bytes = bs.bvh_bytes;
  attach(c, index);
  c.rx = index;
  return c;
}

// --optix-variant: one switch of RxOptixOptions flipped from the mirror of the Vulkan path
// (docs/optix.md, "Gaps").
RxOptixOptions parse_optix_variant(const std::string& v) {
  RxOptixOptions x;
  if (v == "base") return x;
  if (v == "multi_anyhit") {
    x.single_anyhit = false;
  } else if (v == "launch2d") {
    x.launch_2d = true;
  } else if (v == "ias") {
    x.two_level = true;
  } else if (v.size() == 2 && v[0] == 'o' && v[1] >= '0' && v[1] <= '3') {
    x.opt_level = v[1] - '0';
  } else {
    throw Error(
        Errc::invalid_argument,
        fmt::format("unknown --optix-variant '{}' (base, multi_anyhit, launch2d, ias, o0..o3)", v));
  }
  return x;
}

// What both OptiX twins' candidates share: after the twin's own build (the warm-up), the median
// of --build-repeats rebuilds, the Vulkan candidate's fields and columns with the OptiX build's
// times and bytes. `stage` names the twin's first build stage in the row (RX: build_convert_ms,
// cgRX: build_host_layout_ms) and `stage_ms` reads it from the build stats; `traversal` is the
// traversal column.
template <class Twin, class StageMs>
Candidate optix_candidate(const BenchRxOptions& o, const Context& ctx, const Candidate& vulkan,
                          std::shared_ptr<Twin> index, const char* stage, StageMs stage_ms,
                          const std::string& traversal) {
  std::vector<double> build_ms, first_ms, bvh_ms, compact_ms;
  for (int r = 0; r < std::max(1, o.build_repeats); ++r) {
    index->rebuild().value();
    const auto& s = index->build_stats();
    build_ms.push_back(s.build_ms());
    first_ms.push_back(stage_ms(s));
    bvh_ms.push_back(s.bvh_build_ms);
    compact_ms.push_back(s.compact_ms);
  }
  const auto& bs = index->build_stats();
  progress(fmt::format(
      "OptiX built in {:.2f} ms, GAS {:.1f} MB compacted ({:.1f} MB before), peak {:.1f} MB",
      median(build_ms), bs.bvh_bytes / 1e6, bs.bvh_uncompacted_bytes / 1e6,
      bs.build_peak_bytes / 1e6));
  Candidate c;
  c.api = "optix";
  c.fields = vulkan.fields;
  c.fields.update({{"api", "optix"},
                   {"traversal", "optix"},
                   {"build_time_ms", median(build_ms)},
                   {"build_time_ms_all", build_ms},
                   {stage, median(first_ms)},
                   {"build_bvh_ms", median(bvh_ms)},
                   {"build_compact_ms", median(compact_ms)},
                   {"build_bytes", bs.bvh_bytes},
                   {"bvh_uncompacted_bytes", bs.bvh_uncompacted_bytes},
                   {"build_peak_bytes", bs.build_peak_bytes},
                   {"gpu_resident_bytes", bs.resident_bytes},
                   {"optix_version", optix_support(ctx).version}});
  c.columns = vulkan.columns;  // api (6), index (6), traversal (9), ...
  c.columns.replace(0, 6, fmt::format("{:<6}", "optix"));
  c.columns.replace(14, 9, fmt::format("{:<9.9}", traversal));
  c.build_ms = median(build_ms);
  c.index_bytes = bs.bvh_bytes;
  attach(c, index);
  return c;
}

// The OptiX twin of an RX candidate (--api optix): a GAS over the very records of the Vulkan
// index, the same primitives, build flags and lookups (docs/optix.md). One warm-up build, then
// the median of --build-repeats rebuilds, with `variant`'s RxOptixOptions. Fails with the reason
// where OptiX cannot run (the run asked for it) or the variant does not build.
Candidate build_rx_optix(const BenchRxOptions& o, const Context& ctx, const Candidate& vulkan,
                         const std::string& variant) {
  progress(fmt::format("building the OptiX twin over the same records (variant {})", variant));
  auto index = std::make_shared<RxOptixIndex>(
      RxOptixIndex::build(*vulkan.rx, parse_optix_variant(variant)).value());
  Candidate c = optix_candidate(
      o, ctx, vulkan, index, "build_convert_ms", [](const RxBuildStats& s) { return s.convert_ms; },
      variant == "base" ? "optix" : "ox:" + variant);
  c.fields.update({{"blas_count", index->build_stats().blas_count}, {"optix_variant", variant}});
  return c;
}

// Builds a cgRX index (one warm-up build, then the median of --build-repeats builds); nullopt
// when the device refuses the configuration. Build time = representatives and markers laid out
// (host) + BVH + compaction; the sort comes on top, as for RX.
std::optional<Candidate> build_cgrx(const BenchRxOptions& o, const Context& ctx,
                                    const workload::KeyWorkload& wl, const std::string& tname,
                                    uint32_t bucket, const std::string& rays) {
  CgrxBuildOptions bo;
  bo.bucket_size = bucket;
  bo.traversal = parse_traversal_mode(tname).value();
  bo.compact = !o.no_compact;
  if (!o.prefer.empty()) bo.preference = parse_preference(o.prefer);
  if (rays != "window" && rays != "full")
    throw Error(Errc::invalid_argument, "--cgrx-rays takes window and/or full");
  bo.window_first_ray = rays == "window";
  progress(fmt::format("building cgrx: {} bucket={} rays={}", tname, bucket, rays));
  std::shared_ptr<CgrxIndex> index;
  std::vector<double> build_ms, layout_ms, bvh_ms, compact_ms, sort_ms, upload_ms;
  for (int r = 0; r < std::max(1, o.build_repeats) + 1; ++r) {  // the first build is the warm-up
    auto built = CgrxIndex::build(ctx, wl.keys.span(), wl.values, bo);
    if (!built && built.error().code() == Errc::unsupported) {
      progress(fmt::format("skipped: {}", built.error().what()));
      return std::nullopt;
    }
    index = std::make_shared<CgrxIndex>(std::move(built).value());
    if (r == 0) continue;
    const auto& s = index->build_stats();
    build_ms.push_back(s.build_ms());
    layout_ms.push_back(s.host_layout_ms);
    bvh_ms.push_back(s.bvh_build_ms);
    compact_ms.push_back(s.compact_ms);
    sort_ms.push_back(s.sort_ms);
    upload_ms.push_back(s.upload_ms);
  }
  index->set_diagnostic(diagnostic_of(o));
  const CgrxBuildStats& bs = index->build_stats();
  progress(fmt::format("built in {:.2f} ms, BVH {:.1f} MB, {} representatives, first ray {}",
                       median(build_ms), bs.bvh_bytes / 1e6, bs.representatives,
                       bs.ray_window ? fmt::format("{} keys", bs.ray_window) : "to the line end"));
  Candidate c;
  c.fields = {{"index", "cgrx"},
              {"traversal", to_string(index->traversal())},
              {"primitive", "triangles"},
              {"method", "bucket_search"},
              {"bucket_size", bucket},
              {"build_preference", to_string(bo.preference)},
              {"cgrx_rays", rays},
              {"ray_window", bs.ray_window},
              {"diagnostic", o.diagnostic},
              {"compaction", bo.compact},
              {"unique_keys", bs.unique_keys},
              {"build_time_ms", median(build_ms)},
              {"build_time_ms_all", build_ms},
              {"build_host_layout_ms", median(layout_ms)},
              {"build_bvh_ms", median(bvh_ms)},
              {"build_compact_ms", median(compact_ms)},
              {"layout_sort_ms", median(sort_ms)},
              {"build_upload_ms", median(upload_ms)},
              {"build_bytes", bs.bvh_bytes},
              {"bvh_uncompacted_bytes", bs.bvh_uncompacted_bytes},
              {"build_peak_bytes", bs.build_peak_bytes},
              {"gpu_resident_bytes", bs.resident_bytes},
              {"representatives", bs.representatives},
              {"row_markers", bs.row_markers},
              {"plane_markers", bs.plane_markers}};
  std::string method_column = fmt::format("bucket {}{}", bucket, rays == "full" ? "/full" : "");
  if (o.diagnostic != "none") method_column += "/" + o.diagnostic;
  c.columns = columns("cgrx", to_string(index->traversal()), "triangles", method_column);
  c.build_ms = median(build_ms);
  c.index_bytes = bs.bvh_bytes;
  c.cgrx = index;
  attach(c, index);
  return c;
}

// The OptiX twin of a cgRX candidate (--api optix): a GAS over the same representatives and
// markers, the same records (its own copy) and lookups (docs/optix.md, "cgRX through OptiX").
// One warm-up build, then the median of --build-repeats rebuilds.
Candidate build_cgrx_optix(const BenchRxOptions& o, const Context& ctx, const Candidate& vulkan) {
  progress("building the OptiX cgRX twin over the same representatives and records");
  auto index = std::make_shared<CgrxOptixIndex>(CgrxOptixIndex::build(*vulkan.cgrx).value());
  index->set_diagnostic(diagnostic_of(o));
  Candidate c = optix_candidate(
      o, ctx, vulkan, index, "build_host_layout_ms",
      [](const CgrxBuildStats& s) { return s.host_layout_ms; }, "optix");
  c.fields.update({{"ray_window", index->build_stats().ray_window}});
  // The fallback count is the twin's own check of its traversal, as the Vulkan tests require 0.
  c.last_probe = [index] {
    if (index->last_fallbacks() != 0)
      progress(fmt::format("ERROR: {} OptiX cgRX lookups named a wrong bucket (fallbacks)",
                           index->last_fallbacks()));
    return index->last_probe();
  };
  return c;
}

// The sorted-array baseline on the same keys; build time = sort + record layout (GPU).
Candidate build_sorted(const BenchRxOptions& o, const Context& ctx, const workload::KeyWorkload& wl,
                       SortedLayout layout) {
  progress(fmt::format("building sorted (binary search baseline, layout {})", to_string(layout)));
  std::shared_ptr<SortedIndex> index;
  std::vector<double> sort_ms, upload_ms;
  for (int r = 0; r < std::max(1, o.build_repeats) + 1; ++r) {  // the first build is the warm-up
    index = std::make_shared<SortedIndex>(
        SortedIndex::build(ctx, wl.keys.span(), wl.values, {layout}).value());
    if (r == 0) continue;
    sort_ms.push_back(index->build_stats().sort_ms);
    upload_ms.push_back(index->build_stats().upload_ms);
  }
  const SortedBuildStats& bs = index->build_stats();
  Candidate c;
  c.fields = {{"index", "sorted"},
              {"traversal", "compute"},
              {"method", "binary_search"},
              {"sorted_layout", to_string(layout)},
              {"sampled_levels", bs.sampled_levels},
              {"unique_keys", bs.unique_keys},
              {"build_time_ms", median(sort_ms)},
              {"build_time_ms_all", sort_ms},
              {"layout_sort_ms", median(sort_ms)},
              {"build_upload_ms", median(upload_ms)},
              {"build_bytes", bs.resident_bytes},
              {"gpu_resident_bytes", bs.resident_bytes}};
  c.columns = columns("sorted", "compute", "-",
                      layout == SortedLayout::fences ? "binary_search" : "binary_search/lines");
  c.build_ms = median(sort_ms);
  c.index_bytes = bs.resident_bytes;
  attach(c, index);
  return c;
}

// The hash-table baseline on the same keys (point lookups only); build time = sort + insert.
Candidate build_hash(const BenchRxOptions& o, const Context& ctx, const workload::KeyWorkload& wl) {
  progress("building hash (open addressing baseline)");
  std::shared_ptr<HashIndex> index;
  std::vector<double> build_ms, upload_ms;
  for (int r = 0; r < std::max(1, o.build_repeats) + 1; ++r) {  // the first build is the warm-up
    index = std::make_shared<HashIndex>(HashIndex::build(ctx, wl.keys.span(), wl.values).value());
    if (r == 0) continue;
    build_ms.push_back(index->build_stats().sort_ms + index->build_stats().insert_ms);
    upload_ms.push_back(index->build_stats().upload_ms);
  }
  const HashBuildStats& bs = index->build_stats();
  Candidate c;
  c.fields = {{"index", "hash"},
              {"traversal", "compute"},
              {"method", "linear_probing"},
              {"unique_keys", bs.unique_keys},
              {"build_time_ms", median(build_ms)},
              {"build_time_ms_all", build_ms},
              {"layout_sort_ms", bs.sort_ms},
              {"build_upload_ms", median(upload_ms)},
              {"hash_slots", bs.table_slots},
              {"build_bytes", bs.resident_bytes},
              {"gpu_resident_bytes", bs.resident_bytes}};
  c.columns = columns("hash", "compute", "-", "linear_probing");
  c.build_ms = median(build_ms);
  c.index_bytes = bs.resident_bytes;
  attach(c, index);
  return c;
}

// Times every probe configuration on one index, or on the twins of one index in several APIs
// (the first is the one the others are checked against): warm-up, then the median of --repeats,
// each result compared whole with the CPU reference, and every twin's results compared whole
// with the first's. Probes depend only on the seed and the probe configuration, so every index
// of one run answers the same lookups.
void probe_all(const BenchRxOptions& o, const Context& ctx, const Workload& w,
               std::vector<Candidate*> twins, std::vector<nlohmann::json>& rows,
               std::vector<std::string>& table) {
  uint64_t config = 0;
  for (uint64_t rw : o.range_widths)
    for (double h : o.hit_rates)
      for (const auto& order : o.orders) {
        ++config;
        if (order != "sorted" && order != "unsorted" && order != "gpu_sorted")
          throw Error(Errc::invalid_argument, "--order takes unsorted, sorted, gpu_sorted");
        bool gpu_sort = order == "gpu_sorted";
        workload::ProbeOptions po;
        po.count = w.nlookups;
        po.hit_rate = h;
        po.distribution = w.probe_dist;
        po.zipf = o.probe_zipf;
        po.sorted = order == "sorted";
        po.range_width = rw;
        po.seed = w.seed + 1000003 * config;
        std::optional<workload::KeyColumn> points;
        std::optional<workload::RangeColumn> ranges;
        std::vector<RxLookup> want, first_out;
        std::string first_api;
        for (Candidate* cp : twins) {
          Candidate& c = *cp;
          if (gpu_sort && c.api != "vulkan") {
            progress(fmt::format("skipped: gpu_sorted is not done in {}", c.api));
            continue;
          }
          if (gpu_sort && !c.sort_probes) {
            progress("skipped: gpu_sorted applies to RX lookups");
            continue;
          }
          if (rw > 0 && !c.ranges) {
            progress(fmt::format("skipped: {} answers point lookups only",
                                 c.fields["index"].get<std::string>()));
            continue;
          }
          ProbeRow pr{rw ? "range" : "point", h, po.sorted, rw, 0, 0, 0, {}, 0, 0, "skipped"};
          progress(fmt::format("probing ({}): {} {} lookups, hit rate {}, {}{}", c.api,
                               pow2_name(w.nlookups), pr.kind, h, order,
                               rw ? fmt::format(", width {}", rw) : ""));
          std::vector<RxLookup> out(w.nlookups);
          std::vector<double> up, down, sort;
          auto time_it = [&](auto&& call) {
            for (int i = 0; i < o.run.warmup; ++i) call().value();
            for (int r = 0; r < o.run.repeats; ++r) {
              call().value();
              RxProbeStats s = c.last_probe();
              pr.all_ms.push_back(s.probe_ms);
              up.push_back(s.upload_ms);
              sort.push_back(s.sort_ms);
              down.push_back(s.download_ms);
            }
            pr.rays = c.last_probe().rays;
          };
          if (gpu_sort) c.sort_probes(true);
          if (rw == 0) {
            if (!points) {
              points = workload::make_point_probes(w.keys.universe, po).value();
              if (w.ref) want = w.ref->lookup(points->span());
            }
            time_it([&] { return c.points(*points, out); });
          } else {
            if (!ranges) {
              ranges = workload::make_range_probes(w.keys.universe, po).value();
              if (w.ref) want = w.ref->lookup_ranges(ranges->span());
            }
            time_it([&] { return c.ranges(*ranges, out); });
          }
          if (gpu_sort) c.sort_probes(false);
          for (auto& r : out) pr.hits += r.count;
          if (w.ref) {
            size_t bad = 0;
            for (size_t i = 0; i < out.size(); ++i) bad += !(out[i] == want[i]);
            pr.checked = bad == 0 ? "ok" : fmt::format("MISMATCH ({} of {})", bad, out.size());
            if (bad) progress(fmt::format("ERROR: {} results differ from the CPU reference", bad));
          }
          // The cross-API check: every twin's results equal the first's, whole (also with
          // --no-check, where there is no CPU reference).
          std::string api_check = "-";
          if (first_api.empty()) {
            first_api = c.api;
            if (twins.size() > 1) first_out = out;
          } else {
            size_t differ = 0;
            for (size_t i = 0; i < out.size(); ++i) differ += !(out[i] == first_out[i]);
            api_check = differ == 0 ? "identical to " + first_api
                                    : fmt::format("DIFFER from {} ({} of {})", first_api, differ,
                                                  out.size());
            if (differ) {
              progress(
                  fmt::format("ERROR: {} {} results differ from {}'s", differ, c.api, first_api));
              pr.checked =
                  fmt::format("MISMATCH ({} of {} differ from {})", differ, out.size(), first_api);
            }
          }
          pr.probe_ms = median(pr.all_ms);
          pr.upload_ms = median(up);
          pr.download_ms = median(down);
          uint64_t nkeys = w.keys.keys.size();
          nlohmann::json j = result_fields(ctx, "rx", o.run);
          j.update({{"key_bits", w.bits},
                    {"num_keys", nkeys},
                    {"key_dist", o.key_dist},
                    {"key_zipf", o.key_zipf},
                    {"multiplicity", o.multiplicity},
                    {"lookup_kind", pr.kind},
                    {"num_lookups", w.nlookups},
                    {"hit_rate", h},
                    {"probe_dist", o.probe_dist},
                    {"probe_zipf", o.probe_zipf},
                    {"sorted_probes", pr.sorted},
                    {"probe_order", order},
                    {"probe_sort_ms", median(sort)},
                    // gpu_sorted: CUB where the context runs CUDA, else the Vulkan radix sort.
                    {"probe_sort_backend",
                     order != "gpu_sorted"                                      ? "none"
                     : ctx.resolve(Backend::automatic).value() == Backend::cuda ? "cub"
                                                                                : "vulkan"},
                    {"range_width", rw},
                    {"probe_time_ms", pr.probe_ms},
                    {"probe_time_ms_all", pr.all_ms},
                    {"lookups_per_s", pr.probe_ms > 0 ? w.nlookups / (pr.probe_ms * 1e-3) : 0.0},
                    {"upload_ms", pr.upload_ms},
                    {"download_ms", pr.download_ms},
                    {"rays", pr.rays},
                    {"hits", pr.hits},
                    {"seed", w.seed},
                    {"checked_result", pr.checked},
                    {"api", c.api},
                    {"api_check", api_check}});
          j.update(c.fields);
          rows.push_back(j);
          table.push_back(fmt::format(
              "{} {:>3} {:>6} {:>6} {:<5} {:>5} {:<10} {:>6} {:>10.2f} {:>10.3f} {:>9.1f} "
              "{:>9.1f}  {}",
              c.columns, w.bits, pow2_name(nkeys), pow2_name(w.nlookups), pr.kind, h, order, rw,
              c.build_ms, pr.probe_ms, pr.probe_ms > 0 ? w.nlookups / (pr.probe_ms * 1e3) : 0.0,
              c.index_bytes / 1e6,
              gpu_sort ? fmt::format("{} (+ {:.3f} ms GPU sort)", pr.checked, median(sort))
              : api_check != "-" ? fmt::format("{}, {}", pr.checked, api_check)
                                 : pr.checked));
        }
      }
}

// What can be refused before any device work: sizes past host memory, widths past the key space.
void check_options(const BenchRxOptions& o) {
  // A key and a lookup each take at least 16 bytes on the host (the keys, the probes, the CPU
  // reference's answers), so this refuses only what cannot run.
  if (o.keys) check_host_memory("--keys", o.keys, 16, "keys");
  if (o.lookups) check_host_memory("--lookups", o.lookups, 16, "lookups");
  for (int bits : o.key_bits)
    if (bits != 32 && bits != 64)
      throw Error(Errc::invalid_argument, fmt::format("--key-bits {}: 32 or 64", bits));
  for (int bits : o.key_bits)
    for (uint64_t rw : o.range_widths)
      if (bits == 32 && rw > (uint64_t{1} << 32))
        throw Error(Errc::invalid_argument,
                    fmt::format("--range-width {} is wider than the 32-bit key space (2^32 keys); "
                                "use --key-bits 64 or a width of at most 2^32",
                                count_name(rw)));
}

void run(BenchRxOptions& o) {
  check_options(o);
  auto ctx = open_context(o.common).value();
  const DeviceInfo& dev = ctx.device();
  bool cpu = dev.type == "CPU";
  std::string size = o.size == "auto" ? (cpu ? "small" : "paper") : o.size;
  uint64_t nkeys, nlookups;
  if (size == "paper")
    nkeys = 1ull << 26, nlookups = 1ull << 27;
  else if (size == "small")
    nkeys = 1ull << 20, nlookups = 1ull << 16;
  else if (size == "tiny")
    nkeys = 1ull << 14, nlookups = 1ull << 12;
  else
    throw Error(Errc::invalid_argument,
                fmt::format("unknown --size '{}' (auto, paper, small, tiny)", o.size));
  if (o.keys) nkeys = o.keys;
  if (o.lookups) nlookups = o.lookups;
  if (o.diagnostic != "none") {
    if (o.diagnostic != "no_trace" && o.diagnostic != "trace_only")
      throw Error(Errc::invalid_argument, "--diagnostic takes none, no_trace or trace_only");
    o.run.no_check = true;  // the results are not lookups
  }
  uint64_t seed = run_seed(o.run);
  if (o.traversals.empty()) o.traversals = {o.common.traversal};
  progress(fmt::format("device {} ({}, {} {}), size {}: {} keys, {} lookups, seed {}", dev.name,
                       dev.type, dev.driver_name, dev.driver_info, size, pow2_name(nkeys),
                       pow2_name(nlookups), seed));

  for (const auto& v : o.optix_variants) parse_optix_variant(v);  // bad names fail up front
  const ApiChoice apis_run = parse_apis(ctx, o.apis);
  const bool use_vulkan = apis_run.vulkan, use_optix = apis_run.optix;
  if (!use_optix && o.optix_variants != std::vector<std::string>{"base"})
    throw Error(Errc::invalid_argument, "--optix-variant needs --api optix");
  if (use_optix) {
    progress(fmt::format("OptiX {} available: RX / cgRX lookups run in Vulkan and OptiX",
                         optix_support(ctx).version));
    if (o.diagnostic != "none" &&
        std::any_of(o.indexes.begin(), o.indexes.end(), [](const auto& k) { return k != "cgrx"; }))
      throw Error(Errc::invalid_argument,
                  "--diagnostic with --api optix: only the cgRX twin has the diagnostics "
                  "(--index cgrx)");
    for (const auto& kind : o.indexes)
      if (kind != "rx" && kind != "cgrx")
        throw Error(
            Errc::invalid_argument,
            fmt::format("--api optix runs the RX and cgRX indexes only (not --index {})", kind));
  }

  std::vector<nlohmann::json> rows;
  std::vector<std::string> table;
  std::vector<std::string> failed_variants;  // --optix-variant builds that threw
  Errc first_failure = Errc::internal;
  auto kd = workload::parse_distribution(o.key_dist).value();
  auto pd = workload::parse_distribution(o.probe_dist).value();

  for (int bits : o.key_bits) {
    if (bits != 32 && bits != 64) throw Error(Errc::invalid_argument, "--key-bits takes 32 or 64");
    workload::KeyOptions ko;
    ko.count = nkeys;
    ko.width = bits == 64 ? KeyWidth::bits64 : KeyWidth::bits32;
    ko.distribution = kd;
    ko.zipf = o.key_zipf;
    ko.multiplicity = o.multiplicity;
    ko.seed = seed;
    progress(fmt::format("generating {} {}-bit {} keys", pow2_name(nkeys), bits, o.key_dist));
    auto wl = workload::make_keys(ko).value();
    std::unique_ptr<RxReference> ref;
    if (!o.run.no_check) {
      progress("building the CPU reference");
      ref = std::make_unique<RxReference>(wl.keys.span(), wl.values);
    }
    Workload w{wl, ref.get(), nlookups, seed, bits, pd};
    for (const auto& kind : o.indexes) {
      if (kind == "sorted") {
        for (const auto& name : o.sorted_layouts) {
          Candidate c = build_sorted(o, ctx, wl, parse_sorted_layout(name).value());
          probe_all(o, ctx, w, {&c}, rows, table);
        }
        continue;
      }
      if (kind == "hash") {
        Candidate c = build_hash(o, ctx, wl);
        probe_all(o, ctx, w, {&c}, rows, table);
        continue;
      }
      if (kind == "cgrx") {
        for (const auto& tname : o.traversals)
          for (uint32_t bucket : o.bucket_sizes)
            for (const auto& rays : o.cgrx_rays)
              if (auto c = build_cgrx(o, ctx, wl, tname, bucket, rays)) {
                std::vector<Candidate*> twins;
                std::optional<Candidate> optix;
                if (use_vulkan) twins.push_back(&*c);
                if (use_optix) {
                  optix = build_cgrx_optix(o, ctx, *c);
                  twins.push_back(&*optix);
                }
                probe_all(o, ctx, w, twins, rows, table);
              }
        continue;
      }
      if (kind != "rx")
        throw Error(Errc::invalid_argument,
                    fmt::format("unknown --index '{}' (rx, cgrx, sorted, hash)", kind));
      for (const auto& tname : o.traversals)
        for (const auto& pname : o.primitives)
          for (const auto& layout : o.layouts)
            for (const auto& method : o.methods)
              for (size_t i = 0; i < o.opaque.size(); ++i) {
                if (o.opaque[i] != "on" && o.opaque[i] != "off")
                  throw Error(Errc::invalid_argument, "--opaque takes on and/or off");
                // Opaque rays apply to hit_and_scan over triangles only; elsewhere one run of
                // the list is enough.
                bool scan = method == "hit_and_scan" || (method == "automatic" && layout == "key");
                if (i > 0 && !(scan && parse_primitive(pname) == Primitive::triangles)) continue;
                for (uint32_t parts : o.partitions) {
                  auto c = build_rx(o, ctx, wl, tname, pname, layout, method, o.opaque[i] == "on",
                                    parts);
                  if (!c) continue;
                  std::vector<Candidate*> twins;
                  std::vector<Candidate> optix;
                  if (use_vulkan) twins.push_back(&*c);
                  if (use_optix) {
                    optix.reserve(o.optix_variants.size());  // twins point into it
                    for (const auto& v : o.optix_variants) {
                      // A variant that fails to build costs its rows only, not the run's; the
                      // run still fails at the end, naming it.
                      try {
                        optix.push_back(build_rx_optix(o, ctx, *c, v));
                        twins.push_back(&optix.back());
                      } catch (const Error& e) {
                        if (v == "base") throw;
                        progress(fmt::format("ERROR: OptiX variant {}: {}", v, e.what()));
                        if (failed_variants.empty()) first_failure = e.code();
                        failed_variants.push_back(v + ": " + e.what());
                      }
                    }
                  }
                  // With --api optix alone, the Vulkan index only holds the records.
                  probe_all(o, ctx, w, twins, rows, table);
                }
              }
    }
  }
  finish_bench(
      ctx, "rx", o.run,
      fmt::format(
          "raydb bench rx on {} ({} {}), median of {} after {} warm-up; times are GPU timestamps",
          dev.name, dev.driver_name, dev.driver_info, o.run.repeats, o.run.warmup),
      fmt::format(
          "{:<6} {:<6} {:<9} {:<9} {:<15} {:>3} {:>6} {:>6} {:<5} {:>5} {:<10} {:>6} {:>10} {:>10} "
          "{:>9} {:>9}  {}",
          "api", "index", "traversal", "primitive", "method", "bit", "keys", "looks", "kind", "hit",
          "order", "width", "build ms", "probe ms", "Mlook/s", "index MB", "check"),
      table, rows);
  if (!failed_variants.empty())
    throw Error(first_failure, fmt::format("{} OptiX variant build(s) failed, first: {}",
                                           failed_variants.size(), failed_variants.front()));
}

}  // namespace

namespace {
// `bench rx` and `bench cgrx` are one suite (results in rx.jsonl, the same options and checks);
// they differ in the index they measure by default.
void register_lookup_bench(CLI::App& bench, const char* name, const char* description,
                           std::vector<std::string> indexes, std::vector<uint32_t> buckets) {
  auto o = std::make_shared<BenchRxOptions>();
  o->indexes = std::move(indexes);
  o->bucket_sizes = std::move(buckets);
  auto* cmd = bench.add_subcommand(name, description);
  add_common_options(*cmd, o->common);
  cmd->add_option("--size", o->size,
                  "auto | paper (2^26 keys, 2^27 lookups) | small (2^20, 2^16) | tiny (2^14, "
                  "2^12); auto = paper on a GPU, small on a CPU device");
  add_count(*cmd, "--keys", o->keys, "number of keys (overrides --size), e.g. 2^26", 1);
  add_count(*cmd, "--lookups", o->lookups, "lookups per batch (overrides --size), e.g. 2^27", 1);
  add_counts(*cmd, "--key-bits", o->key_bits, "32 and/or 64", 32, 64);
  add_reals(*cmd, "--hit-rate", o->hit_rates, "fraction of lookups that hit, list", 0, 1);
  cmd->add_option("--order", o->orders,
                  "unsorted, sorted (by the generator), gpu_sorted (unsorted, sorted by RX on the "
                  "GPU: RxBuildOptions::sort_probes, its time reported apart); list")
      ->delimiter(',');
  add_counts(*cmd, "--range-width", o->range_widths,
             "0 = point lookups; else keys per range [k, k+w-1], list");
  cmd->add_option("--primitive", o->primitives, "triangles and/or aabbs")->delimiter(',');
  cmd->add_option("--traversals", o->traversals,
                  "list of traversal modes to compare (default: --traversal)")
      ->delimiter(',');
  cmd->add_option("--sorted-layout", o->sorted_layouts,
                  "--index sorted: fences (binary search over one key per 64 bytes, then one "
                  "64-byte block) and/or lines (sampled levels, one 32-key node per level searched "
                  "by the whole subgroup); list")
      ->delimiter(',');
  cmd->add_option("--index", o->indexes,
                  "index(es) to compare on the same keys and lookups: rx, cgrx, sorted, hash")
      ->delimiter(',');
  cmd->add_option(
         "--api", o->apis,
         "vulkan and/or optix: RX or cgRX lookups through each API on the same records and "
         "lookups, results checked identical (optix needs a build with OptiX_ROOT)")
      ->delimiter(',');
  cmd->add_option("--optix-variant", o->optix_variants,
                  "with --api optix, one OptiX twin per variant, each one switch from the mirror "
                  "of the Vulkan path (docs/optix.md): base, multi_anyhit (no "
                  "REQUIRE_SINGLE_ANYHIT_CALL), launch2d (1024-wide 2D launch), ias (an instance "
                  "AS over the GAS, as Vulkan's TLAS), o0..o3 (module "
                  "optimization level; base = DEFAULT); list")
      ->delimiter(',');
  add_counts(*cmd, "--bucket-size", o->bucket_sizes,
             "cgrx: keys per bucket, powers of two >= 2 (thesis: 32, 256); list", 2);
  cmd->add_option("--cgrx-rays", o->cgrx_rays,
                  "cgrx: window (a first ray as long as nearly every gap between representatives, "
                  "the rest of the line only on a miss) and/or full (one ray to the end of the "
                  "line); list")
      ->delimiter(',');
  cmd->add_option("--method", o->methods, "lookup method(s): automatic, any_hit, hit_and_scan")
      ->delimiter(',');
  cmd->add_option("--opaque", o->opaque,
                  "on and/or off: hit_and_scan over triangles with opaque rays and a closest-hit "
                  "shader (on), or any-hit calls (off)")
      ->delimiter(',');
  cmd->add_option("--layout", o->layouts, "key (primitives in key order) and/or row (input order)")
      ->delimiter(',');
  cmd->add_option("--key-dist", o->key_dist, "uniform | dense | zipf");
  add_real(*cmd, "--key-zipf", o->key_zipf, "Zipf coefficient of --key-dist zipf", 0, 100);
  add_count(*cmd, "--multiplicity", o->multiplicity, "copies of each distinct key", 1);
  cmd->add_option("--probe-dist", o->probe_dist, "uniform | zipf (which keys the hits pick)");
  add_real(*cmd, "--probe-zipf", o->probe_zipf, "Zipf coefficient of --probe-dist zipf", 0, 100);
  cmd->add_option(
      "--prefer", o->prefer,
      "BVH build preference: none | fast_trace | fast_build (default: the index's own, RX none, "
      "cgRX fast_trace)");
  cmd->add_flag("--no-compact", o->no_compact, "skip BVH compaction");
  add_counts(*cmd, "--partitions", o->partitions,
             "build the BVH in this many key-range parts, one at a time (lower peak build "
             "memory); list, e.g. 1,4,16",
             1);
  cmd->add_flag("--compress-duplicates", o->compress_duplicates,
                "one primitive per distinct key (hit_and_scan only; any_hit runs are skipped)");
  add_count(*cmd, "--build-repeats", o->build_repeats, "timed rebuilds (median reported)", 1);
  cmd->add_option("--diagnostic", o->diagnostic,
                  "none | no_trace | trace_only: time a part of each point lookup (rx: "
                  "hit_and_scan over opaque triangles, pipeline traversal; cgrx: no_trace finds "
                  "the bucket by binary search instead of rays, trace_only casts the rays "
                  "alone); implies --no-check");
  add_bench_run_options(*cmd, o->run);
  cmd->callback([o] { run(*o); });
}
}  // namespace

void register_bench_rx(CLI::App& bench) {
  register_lookup_bench(bench, "rx", "RX index (RTIndeX): build, point and range lookups", {"rx"},
                        {32});
  register_lookup_bench(bench, "cgrx",
                        "cgRX, the coarse-granular index: build, point and range lookups, bucket "
                        "sizes 32 and 256 (bench rx's options; --index rx,cgrx,... compares)",
                        {"cgrx"}, {32, 256});
}

}  // namespace raydb::cli
