// Inside raydb bench rx / bench cgrx (bench_rx*.cpp): the suite's options, the candidates (one
// index configuration under test) and the steps run() takes: build each index, then probe_all.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "cli/cli.hpp"
#include "ops/cgrx/optix/cgrx_optix.hpp"
#include "ops/rx/optix/rx_optix.hpp"
#include "raydb/cgrx_index.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/key_index.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/sorted_index.hpp"
#include "raydb/workload.hpp"

namespace raydb::cli::bench_rx {

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
  double compact_min_saving = RxBuildOptions{}.compact_min_saving;  // --compact-min-saving
  std::vector<uint32_t> partitions = {1};  // RxBuildOptions::partitions, swept
  bool compress_duplicates = false;
  int build_repeats = 3;
  uint64_t lookup_chunk = 0;  // --lookup-chunk: lookups per pipelined chunk; 0: the library's
  bool pinned = false;        // --pinned: also time pipelined calls from and into HostBuffers
  std::string result_path = "auto";  // --result-path: detail::set_result_path_override
  BenchRunOptions run = {.repeats = 5, .warmup = 3};
};

void progress(const std::string& s);
// Wall-clock milliseconds of one call: what a user with inputs and outputs in host memory waits.
template <class F>
double wall_ms(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
Primitive parse_primitive(const std::string& s);
RxLookupMethod parse_method(const std::string& s);

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

// The index a candidate measures. Each is a raydb::KeyLookup (raydb/key_index.hpp), so probe_all
// is written once over them (std::visit) rather than per index.
using IndexRef = std::variant<std::shared_ptr<RxIndex>, std::shared_ptr<CgrxIndex>,
                              std::shared_ptr<SortedIndex>, std::shared_ptr<HashIndex>,
                              std::shared_ptr<RxOptixIndex>, std::shared_ptr<CgrxOptixIndex>>;

// One index configuration under test: the index and what to record about it.
struct Candidate {
  std::string api = "vulkan";  // which API traces (vulkan, optix)
  nlohmann::json fields;       // api, index, traversal, primitive, method, build times and bytes
  std::string columns;         // its leading table columns
  double build_ms = 0;
  uint64_t index_bytes = 0;
  IndexRef index;
};

std::string columns(const std::string& index, const std::string& traversal,
                    const std::string& primitive, const std::string& method,
                    const std::string& api = "vulkan");
// --diagnostic (checked in run()) as the indexes and their OptiX twins take it.
RxDiagnostic diagnostic_of(const BenchRxOptions& o);

// bench_rx_build.cpp: each index's candidate, built once for warm-up, then timed over
// --build-repeats builds (median).
std::optional<Candidate> build_rx(const BenchRxOptions& o, const Context& ctx,
                                  const workload::KeyWorkload& wl, const std::string& tname,
                                  const std::string& pname, const std::string& layout,
                                  const std::string& method, bool opaque, uint32_t partitions);
// --optix-variant: one switch of RxOptixOptions flipped from the mirror of the Vulkan path
// (docs/optix.md, "Gaps").
RxOptixOptions parse_optix_variant(const std::string& v);
Candidate build_rx_optix(const BenchRxOptions& o, const Context& ctx, const Candidate& vulkan,
                         const std::string& variant);
std::optional<Candidate> build_cgrx(const BenchRxOptions& o, const Context& ctx,
                                    const workload::KeyWorkload& wl, const std::string& tname,
                                    uint32_t bucket, const std::string& rays);
Candidate build_cgrx_optix(const BenchRxOptions& o, const Context& ctx, const Candidate& vulkan);
Candidate build_sorted(const BenchRxOptions& o, const Context& ctx, const workload::KeyWorkload& wl,
                       SortedLayout layout);
Candidate build_hash(const BenchRxOptions& o, const Context& ctx, const workload::KeyWorkload& wl);

// bench_rx_probe.cpp.
void probe_all(const BenchRxOptions& o, const Context& ctx, const Workload& w,
               std::vector<Candidate*> twins, std::vector<nlohmann::json>& rows,
               std::vector<std::string>& table);

}  // namespace raydb::cli::bench_rx
