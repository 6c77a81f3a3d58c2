// raydb bench rx: the RTIndeX experiments. Builds an RX index over generated keys and times
// batches of point or range lookups with GPU timestamps (warm-up, median of repeats), checking
// every result whole against the CPU reference, and appends one JSON line per configuration.
//
// The suite is split over bench_rx.hpp (options, candidates), bench_rx_build.cpp (building each
// index) and bench_rx_probe.cpp (timing and checking the lookups); this file runs the sweep and
// registers the commands.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "cli/bench_rx.hpp"
#include "cli/cli.hpp"

namespace raydb::cli {

namespace bench_rx {
namespace {

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
          "raydb bench rx on {} ({} {}), median of {} after {} warm-up; times are GPU timestamps "
          "but host ms (the whole batch's call, wall clock) and piped ms (the pipelined call's)",
          dev.name, dev.driver_name, dev.driver_info, o.run.repeats, o.run.warmup),
      fmt::format(
          "{:<6} {:<6} {:<9} {:<9} {:<15} {:>3} {:>6} {:>6} {:<5} {:>5} {:<10} {:>6} {:>10} {:>10} "
          "{:>9} {:>9} {:>10} {:>10}  {}",
          "api", "index", "traversal", "primitive", "method", "bit", "keys", "looks", "kind", "hit",
          "order", "width", "build ms", "probe ms", "Mlook/s", "index MB", "host ms", "piped ms",
          "check"),
      table, rows);
  if (!failed_variants.empty())
    throw Error(first_failure, fmt::format("{} OptiX variant build(s) failed, first: {}",
                                           failed_variants.size(), failed_variants.front()));
}

}  // namespace
}  // namespace bench_rx

namespace {
using bench_rx::BenchRxOptions;
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
  add_real(*cmd, "--compact-min-saving", o->compact_min_saving,
           "compact the BVH only where that saves at least this fraction of its bytes (0: always)",
           0, 1);
  add_counts(*cmd, "--partitions", o->partitions,
             "build the BVH in this many key-range parts, one at a time (lower peak build "
             "memory); list, e.g. 1,4,16",
             1);
  cmd->add_flag("--compress-duplicates", o->compress_duplicates,
                "one primitive per distinct key (hit_and_scan only; any_hit runs are skipped)");
  add_count(*cmd, "--build-repeats", o->build_repeats, "timed rebuilds (median reported)", 1);
  cmd->add_option("--lookup-chunk", o->lookup_chunk,
                  "lookups per chunk of the pipelined calls timed after the whole batches (0: "
                  "the library's default)");
  cmd->add_option("--result-path", o->result_path,
                  "where the pipelined calls' kernels write results: auto (each index's own: "
                  "direct for RX and cgRX, carried for RX's sorted probes, download for the "
                  "others), download (device memory, then a copy queue), direct (straight into "
                  "pinned host memory); docs/e2e.md")
      ->check(CLI::IsMember({"auto", "download", "direct"}));
  cmd->add_flag("--pinned", o->pinned,
                "also time the pipelined calls with queries and results in pinned HostBuffers "
                "(raydb/host_buffer.hpp), which skip the host's copies");
  cmd->add_option("--diagnostic", o->diagnostic,
                  "none | no_trace | trace_only: time a part of each point lookup (rx: "
                  "hit_and_scan over opaque triangles, pipeline traversal; cgrx: no_trace finds "
                  "the bucket by binary search instead of rays, trace_only casts the rays "
                  "alone); implies --no-check");
  add_bench_run_options(*cmd, o->run);
  cmd->callback([o] { bench_rx::run(*o); });
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
