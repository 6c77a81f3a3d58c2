// raydb bench rx: building each index under test (RX, its OptiX twin, cgRX and its twin, the
// sorted-array and hash baselines) as a Candidate of the suite (bench_rx.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <random>

#include "cli/bench_rx.hpp"
#include "cli/host_split.hpp"
#include "ops/cgrx/optix/cgrx_optix.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/host_buffer.hpp"

namespace raydb::cli::bench_rx {

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

std::string columns(const std::string& index, const std::string& traversal,
                    const std::string& primitive, const std::string& method,
                    const std::string& api) {
  return fmt::format("{:<6} {:<6} {:<9} {:<9} {:<15}", api, index, traversal, primitive, method);
}

RxDiagnostic diagnostic_of(const BenchRxOptions& o) {
  return o.diagnostic == "no_trace"     ? RxDiagnostic::no_trace
         : o.diagnostic == "trace_only" ? RxDiagnostic::trace_only
                                        : RxDiagnostic::none;
}

namespace {

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
  c.index = index;
  return c;
}

// The build samples of the RX and cgRX candidates: per repeat, the GPU build and its stages
// (`stage` is RX's key conversion or cgRX's host layout), and host to host.
// --pinned: the keys and values copied into HostBuffers, so that a build uploads them in place
// (no staging, no host copy). Made once per candidate, outside the timed builds.
struct PinnedColumns {
  HostBuffer keys, values;
  KeySpan key_span;
  std::span<const uint32_t> value_span;
};
std::optional<PinnedColumns> pinned_columns(const BenchRxOptions& o, const Context& ctx,
                                            const workload::KeyWorkload& wl) {
  if (!o.pinned) return std::nullopt;
  KeySpan k = wl.keys.span();
  const uint64_t key_bytes = k.size * (k.width == KeyWidth::bits64 ? 8 : 4);
  PinnedColumns p{HostBuffer::allocate(ctx, key_bytes).value(),
                  HostBuffer::allocate(ctx, wl.values.size() * 4).value(),
                  k,
                  {}};
  std::memcpy(p.keys.data(), k.data, key_bytes);
  std::memcpy(p.values.data(), wl.values.data(), wl.values.size() * 4);
  p.key_span.data = p.keys.data();
  p.value_span = p.values.span<const uint32_t>().first(wl.values.size());
  return p;
}

double median_or_zero(const std::vector<double>& v) {
  return v.empty() ? 0.0 : median(v);
}

// The median wall clock of --build-repeats calls of `build` (0 without --pinned columns).
// `split` gets where their host time went. `release` runs before each, untimed: what the
// previous build made goes there, not inside the next build's time.
template <class F, class R>
double pinned_build_ms(const BenchRxOptions& o, const std::optional<PinnedColumns>& p, F&& build,
                       HostSplits& split, R&& release) {
  if (!p) return 0;
  for (int r = 0; r < std::max(1, o.build_repeats); ++r) {
    release();
    split.add(build);
  }
  release();
  return median(split.wall_ms);
}

struct BuildSamples {
  std::vector<double> build_ms, stage_ms, bvh_ms, compact_ms, sort_ms, upload_ms, host_ms;
  double first_host_ms = 0;
  HostSplits first_split, split, pinned_split;
  // Keys and values uploaded from HostBuffers: that copy reads host memory over PCIe, where
  // build_upload_ms may not (staging is device-local host-visible memory where the device has it).
  std::vector<double> pinned_upload_ms;

  template <class Stats>
  void add(const Stats& s, double stage) {
    build_ms.push_back(s.build_ms());
    stage_ms.push_back(stage);
    bvh_ms.push_back(s.bvh_build_ms);
    compact_ms.push_back(s.compact_ms);
    sort_ms.push_back(s.sort_ms);
    upload_ms.push_back(s.upload_ms);
  }
  // The row fields both indexes share; `stage` names the stage's field.
  template <class Stats>
  nlohmann::json fields(const char* stage, const Stats& bs) const {
    return {{"build_time_ms", median(build_ms)},
            {"build_time_ms_all", build_ms},
            {stage, median(stage_ms)},
            {"build_bvh_ms", median(bvh_ms)},
            {"build_compact_ms", median(compact_ms)},
            {"layout_sort_ms", median(sort_ms)},
            {"build_upload_ms", median(upload_ms)},
            {"build_host_ms", median(host_ms)},
            {"build_host_ms_all", host_ms},
            {"build_first_host_ms", first_host_ms},
            {"build_first_host_split", first_split.json()},
            {"build_host_split", split.json()},
            {"pinned_build_host_split", pinned_split.json()},
            {"build_bytes", bs.bvh_bytes},
            {"bvh_uncompacted_bytes", bs.bvh_uncompacted_bytes},
            {"build_peak_bytes", bs.build_peak_bytes},
            {"gpu_resident_bytes", bs.resident_bytes}};
  }
};

}  // namespace

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
  bo.compact_min_saving = o.compact_min_saving;
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
  std::optional<Result<RxIndex>> maybe;
  // Host to host: keys and values from host memory to a traceable index, wall clock; the first
  // build also makes the probe pipeline.
  BuildSamples t;
  t.first_host_ms =
      t.first_split.add([&] { maybe.emplace(RxIndex::build(ctx, wl.keys.span(), wl.values, bo)); });
  Result<RxIndex>& built = *maybe;
  if (!built && built.error().code() == Errc::unsupported) {
    progress(fmt::format("skipped: {}", built.error().what()));
    return std::nullopt;
  }
  auto index = std::make_shared<RxIndex>(std::move(built).value());
  index->set_diagnostic(diagnostic_of(o));
  for (int r = 0; r < std::max(1, o.build_repeats); ++r) {
    t.host_ms.push_back(t.split.add([&] { index->rebuild(wl.keys.span(), wl.values).value(); }));
    t.add(index->build_stats(), index->build_stats().convert_ms);
  }
  const auto pinned = pinned_columns(o, ctx, wl);
  // Fresh builds, each index freed outside the timing (a rebuild frees the old one inside it).
  std::optional<RxIndex> pinned_index;
  const double pinned_ms = pinned_build_ms(
      o, pinned,
      [&] {
        pinned_index.emplace(RxIndex::build(ctx, pinned->key_span, pinned->value_span, bo).value());
        t.pinned_upload_ms.push_back(pinned_index->build_stats().upload_ms);
      },
      t.pinned_split, [&] { pinned_index.reset(); });
  const RxBuildStats& bs = index->build_stats();
  progress(
      fmt::format("built in {:.2f} ms (GPU), {:.2f} ms host to host ({:.2f} ms the first), BVH "
                  "{:.1f} MB compacted ({:.1f} MB before), peak {:.1f} MB",
                  median(t.build_ms), median(t.host_ms), t.first_host_ms, bs.bvh_bytes / 1e6,
                  bs.bvh_uncompacted_bytes / 1e6, bs.build_peak_bytes / 1e6));
  Candidate c;
  c.fields = {{"index", "rx"},
              {"traversal", to_string(index->traversal())},
              {"primitive", to_string(bo.primitive)},
              {"layout", layout},
              {"method", to_string(index->method())},
              {"opaque_hits", index->opaque_hits()},
              {"diagnostic", o.diagnostic},
              {"compaction", bo.compact},
              {"compact_min_saving", bo.compact_min_saving},
              {"bvh_compacted_bytes", bs.bvh_compacted_bytes},
              {"build_preference", to_string(bo.preference)},
              {"unique_keys", bs.unique_keys},
              {"blas_count", bs.blas_count},
              {"partitions", bs.partitions},
              {"partitions_requested", partitions},
              {"compress_duplicates", bo.compress_duplicates},
              {"primitives", bs.primitives},
              {"pinned_build_host_ms", pinned_ms},
              {"pinned_build_upload_ms", median_or_zero(t.pinned_upload_ms)}};
  c.fields.update(t.fields("build_convert_ms", bs));
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
  c.build_ms = median(t.build_ms);
  c.index_bytes = bs.bvh_bytes;
  c.index = index;
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

// The OptiX twin of an RX candidate (--api optix): a GAS over the records of the Vulkan index (a
// copy shared with CUDA, since the candidate is built with api = vulkan), the same primitives,
// build flags and lookups (docs/optix.md). One warm-up build, then the median of --build-repeats
// rebuilds, with `variant`'s RxOptixOptions. Fails with the reason where OptiX cannot run (the run
// asked for it) or the variant does not build.
Candidate build_rx_optix(const BenchRxOptions& o, const Context& ctx, const Candidate& vulkan,
                         const std::string& variant) {
  progress(fmt::format("building the OptiX twin over the same records (variant {})", variant));
  auto index = std::make_shared<RxOptixIndex>(
      RxOptixIndex::build(*std::get<std::shared_ptr<RxIndex>>(vulkan.index),
                          parse_optix_variant(variant))
          .value());
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
  bo.compact_min_saving = o.compact_min_saving;
  if (!o.prefer.empty()) bo.preference = parse_preference(o.prefer);
  if (rays != "window" && rays != "full")
    throw Error(Errc::invalid_argument, "--cgrx-rays takes window and/or full");
  bo.window_first_ray = rays == "window";
  progress(fmt::format("building cgrx: {} bucket={} rays={}", tname, bucket, rays));
  std::shared_ptr<CgrxIndex> index;
  BuildSamples t;
  for (int r = 0; r < std::max(1, o.build_repeats) + 1; ++r) {  // the first build is the warm-up
    std::optional<Result<CgrxIndex>> maybe;
    const double ms = (r == 0 ? t.first_split : t.split).add([&] {
      maybe.emplace(CgrxIndex::build(ctx, wl.keys.span(), wl.values, bo));
    });
    (r == 0 ? t.first_host_ms : t.host_ms.emplace_back()) = ms;
    Result<CgrxIndex>& built = *maybe;
    if (!built && built.error().code() == Errc::unsupported) {
      progress(fmt::format("skipped: {}", built.error().what()));
      return std::nullopt;
    }
    index = std::make_shared<CgrxIndex>(std::move(built).value());
    if (r == 0) continue;
    t.add(index->build_stats(), index->build_stats().host_layout_ms);
  }
  index->set_diagnostic(diagnostic_of(o));
  const CgrxBuildStats& bs = index->build_stats();
  progress(fmt::format("built in {:.2f} ms, BVH {:.1f} MB, {} representatives, first ray {}",
                       median(t.build_ms), bs.bvh_bytes / 1e6, bs.representatives,
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
              {"compact_min_saving", bo.compact_min_saving},
              {"unique_keys", bs.unique_keys},
              {"representatives", bs.representatives},
              {"row_markers", bs.row_markers},
              {"plane_markers", bs.plane_markers}};
  c.fields.update(t.fields("build_host_layout_ms", bs));
  std::string method_column = fmt::format("bucket {}{}", bucket, rays == "full" ? "/full" : "");
  if (o.diagnostic != "none") method_column += "/" + o.diagnostic;
  c.columns = columns("cgrx", to_string(index->traversal()), "triangles", method_column);
  c.build_ms = median(t.build_ms);
  c.index_bytes = bs.bvh_bytes;
  c.index = index;
  return c;
}

// The OptiX twin of a cgRX candidate (--api optix): a GAS over the same representatives and
// markers, the same records (its own copy) and lookups (docs/optix.md, "cgRX through OptiX").
// One warm-up build, then the median of --build-repeats rebuilds.
Candidate build_cgrx_optix(const BenchRxOptions& o, const Context& ctx, const Candidate& vulkan) {
  progress("building the OptiX cgRX twin over the same representatives and records");
  auto index = std::make_shared<CgrxOptixIndex>(
      CgrxOptixIndex::build(*std::get<std::shared_ptr<CgrxIndex>>(vulkan.index)).value());
  index->set_diagnostic(diagnostic_of(o));
  Candidate c = optix_candidate(
      o, ctx, vulkan, index, "build_host_layout_ms",
      [](const CgrxBuildStats& s) { return s.host_layout_ms; }, "optix");
  c.fields.update({{"ray_window", index->build_stats().ray_window}});
  return c;
}

// The sorted-array baseline on the same keys; build time = sort + record layout (GPU).
Candidate build_sorted(const BenchRxOptions& o, const Context& ctx, const workload::KeyWorkload& wl,
                       SortedLayout layout) {
  progress(fmt::format("building sorted (binary search baseline, layout {})", to_string(layout)));
  std::shared_ptr<SortedIndex> index;
  std::vector<double> sort_ms, upload_ms, host_ms;
  double first_host_ms = 0;
  HostSplits first_split, split, pinned_split;
  for (int r = 0; r < std::max(1, o.build_repeats) + 1; ++r) {  // the first build is the warm-up
    std::optional<SortedIndex> built;
    const double ms = (r == 0 ? first_split : split).add([&] {
      built.emplace(SortedIndex::build(ctx, wl.keys.span(), wl.values, {layout}).value());
    });
    index = std::make_shared<SortedIndex>(std::move(*built));
    if (r == 0) {
      first_host_ms = ms;
      continue;
    }
    host_ms.push_back(ms);
    sort_ms.push_back(index->build_stats().sort_ms);
    upload_ms.push_back(index->build_stats().upload_ms);
  }
  const auto pinned = pinned_columns(o, ctx, wl);
  std::optional<SortedIndex> pinned_index;
  std::vector<double> pinned_upload_ms;
  const double pinned_ms = pinned_build_ms(
      o, pinned,
      [&] {
        pinned_index.emplace(
            SortedIndex::build(ctx, pinned->key_span, pinned->value_span, {layout}).value());
        pinned_upload_ms.push_back(pinned_index->build_stats().upload_ms);
      },
      pinned_split, [&] { pinned_index.reset(); });
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
              {"build_host_ms", median(host_ms)},
              {"build_host_ms_all", host_ms},
              {"build_first_host_ms", first_host_ms},
              {"build_first_host_split", first_split.json()},
              {"build_host_split", split.json()},
              {"pinned_build_host_split", pinned_split.json()},
              {"pinned_build_host_ms", pinned_ms},
              {"pinned_build_upload_ms", median_or_zero(pinned_upload_ms)},
              {"build_bytes", bs.resident_bytes},
              {"gpu_resident_bytes", bs.resident_bytes}};
  c.columns = columns("sorted", "compute", "-",
                      layout == SortedLayout::fences ? "binary_search" : "binary_search/lines");
  c.build_ms = median(sort_ms);
  c.index_bytes = bs.resident_bytes;
  c.index = index;
  return c;
}

// The hash-table baseline on the same keys (point lookups only); build time = sort + insert.
Candidate build_hash(const BenchRxOptions& o, const Context& ctx, const workload::KeyWorkload& wl) {
  progress("building hash (open addressing baseline)");
  std::shared_ptr<HashIndex> index;
  std::vector<double> build_ms, upload_ms, host_ms;
  double first_host_ms = 0;
  HostSplits first_split, split, pinned_split;
  for (int r = 0; r < std::max(1, o.build_repeats) + 1; ++r) {  // the first build is the warm-up
    std::optional<HashIndex> built;
    const double ms = (r == 0 ? first_split : split).add([&] {
      built.emplace(HashIndex::build(ctx, wl.keys.span(), wl.values).value());
    });
    index = std::make_shared<HashIndex>(std::move(*built));
    if (r == 0) {
      first_host_ms = ms;
      continue;
    }
    host_ms.push_back(ms);
    build_ms.push_back(index->build_stats().sort_ms + index->build_stats().insert_ms);
    upload_ms.push_back(index->build_stats().upload_ms);
  }
  const auto pinned = pinned_columns(o, ctx, wl);
  std::optional<HashIndex> pinned_index;
  std::vector<double> pinned_upload_ms;
  const double pinned_ms = pinned_build_ms(
      o, pinned,
      [&] {
        pinned_index.emplace(HashIndex::build(ctx, pinned->key_span, pinned->value_span).value());
        pinned_upload_ms.push_back(pinned_index->build_stats().upload_ms);
      },
      pinned_split, [&] { pinned_index.reset(); });
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
              {"build_host_ms", median(host_ms)},
              {"build_host_ms_all", host_ms},
              {"build_first_host_ms", first_host_ms},
              {"build_first_host_split", first_split.json()},
              {"build_host_split", split.json()},
              {"pinned_build_host_split", pinned_split.json()},
              {"pinned_build_host_ms", pinned_ms},
              {"pinned_build_upload_ms", median_or_zero(pinned_upload_ms)},
              {"build_bytes", bs.resident_bytes},
              {"gpu_resident_bytes", bs.resident_bytes}};
  c.columns = columns("hash", "compute", "-", "linear_probing");
  c.build_ms = median(build_ms);
  c.index_bytes = bs.resident_bytes;
  c.index = index;
  return c;
}

}  // namespace raydb::cli::bench_rx
