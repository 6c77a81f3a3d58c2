// raydb bench join: the ray-traced index nested-loop join (RxJoin, CgrxJoin) over two generated key
// columns:
// build-side keys with a chosen multiplicity, probe keys of which a chosen fraction have a
// partner; pairs and the aggregate, each checked whole against the CPU hash join. GPU times and
// the wall clock of the same calls, from host memory to host memory (docs/join.md).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <random>
#include <tuple>

#include "cli/cli.hpp"
#include "common/parallel.hpp"
#include "raydb/join.hpp"
#include "raydb/sorted_index.hpp"

namespace raydb::cli {

namespace {

struct BenchJoinOptions {
  CommonOptions common;
  uint64_t build = 1u << 20, probe = 1u << 20;
  std::vector<int> key_bits = {32};
  std::vector<uint32_t> multiplicities = {1};
  std::vector<double> hit_rates = {1.0};
  std::vector<std::string> outputs = {"aggregate", "pairs"};
  std::vector<std::string> indexed = {"build"};
  std::vector<std::string> indexes = {"rx"};
  std::vector<uint32_t> bucket_sizes = {32};   // cgrx
  std::vector<std::string> apis = {"vulkan"};  // rx, cgrx: vulkan and/or optix
  ApiChoice api_choice;                        // parsed from apis
  BenchRunOptions run;
};

void progress(const std::string& s) {
  bench_progress("join", s);
}

// Build side: n keys, each distinct value `multiplicity` times, in random order. Probe side: a
// `hit_rate` share of keys drawn from the build side's values, the rest from values it lacks.
template <class K>
void make_sides(uint64_t n_build, uint64_t n_probe, uint32_t multiplicity, double hit_rate,
                uint64_t seed, std::vector<K>& build, std::vector<K>& probe) {
  std::mt19937_64 rng(seed);
  uint64_t distinct = std::max<uint64_t>(1, n_build / multiplicity);
  // Distinct values are 2 * i + 1 scrambled by an odd multiplier: misses are the even ones.
  auto value = [](uint64_t i, bool present) {
    return static_cast<K>((2 * i + (present ? 1 : 0)) * 0x9E3779B97F4A7C15ull);
  };
  build.resize(n_build);
  for (uint64_t i = 0; i < n_build; ++i) build[i] = value(i % distinct, true);
  std::shuffle(build.begin(), build.end(), rng);
  probe.resize(n_probe);
  std::uniform_real_distribution<double> u(0, 1);
  for (auto& p : probe) p = value(rng() % distinct, u(rng) < hit_rate);
}

// Wall-clock milliseconds of one public API call, its result in host memory: what a user with
// both sides in host memory waits for (host to host). Outside every GPU timestamp span.
template <class F>
double wall_ms(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Host-to-host times of one configuration: each call of the timed repeats, the first call (a
// warm-up where there is one) and, where the index is built apart from the join, its build.
struct HostTimes {
  std::vector<double> all;
  double first = 0;
  double build = -1;  // < 0: the join call builds its index itself (in `all`)
};

// The same aggregate from a baseline index on the build side: one lookup per probe key gives its
// matches and value sum. Returns (index ms, median lookup ms, aggregate); `host` gets the build
// and each lookup with its sum over the results, wall clock.
template <class Index>
std::tuple<double, double, JoinAggregate> baseline_aggregate(const BenchJoinOptions& o,
                                                             const Context& ctx, KeySpan build,
                                                             std::span<const uint32_t> values,
                                                             KeySpan probe, HostTimes& host) {
  std::optional<Index> index;
  host.build = wall_ms([&] { index.emplace(Index::build(ctx, build, values).value()); });
  std::vector<double> ms;
  JoinAggregate a;
  for (int r = 0; r < o.run.warmup + o.run.repeats; ++r) {
    double wall = wall_ms([&] {
      auto per_key = index->lookup(probe).value();
      a = {};
      for (const RxLookup& l : per_key) {
        a.matches += l.count;
        a.build_value_sum += l.sum;
      }
    });
    if (r == 0) host.first = wall;
    if (r >= o.run.warmup) {
      ms.push_back(index->last_stats().probe_ms);
      host.all.push_back(wall);
    }
  }
  return {index->build_stats().sort_ms, median(ms), a};
}

// The host-to-host fields of a row.
void add_host_fields(nlohmann::json& j, const HostTimes& h) {
  j["host_time_ms"] = median(h.all);
  j["host_time_ms_all"] = h.all;
  j["host_first_ms"] = h.first;
  if (h.build >= 0) j["build_host_ms"] = h.build;
}

// The data of one configuration: both sides, the build side's values, and how they were made.
template <class K>
struct JoinSides {
  const std::vector<K>& build;
  const std::vector<uint32_t>& values;
  const std::vector<K>& probe;
  uint32_t mult;
  double hit;
  int bits;
  uint64_t seed;
};

// Times one join (RX or a baseline) over warm-up + repeats, checks its last output whole against
// the CPU join, and records the medians. `join(output, pairs, agg, st)` runs it once, filling
// `pairs` for output "pairs", `agg` otherwise; `name` is the index column ("rx" and "cgrx"
// name the side too).
template <class K, class RunJoin>
void time_join(const BenchJoinOptions& o, const Context& ctx, const JoinSides<K>& s,
               const std::string& name, const std::string& output, uint32_t bucket_size,
               RunJoin&& join, std::vector<nlohmann::json>& rows, std::vector<std::string>& table,
               RayTracingApi api = RayTracingApi::vulkan) {
  const bool optix = api == RayTracingApi::optix;
  if (output != "pairs" && output != "aggregate")
    throw Error(Errc::invalid_argument, "--output takes pairs and/or aggregate");
  std::vector<double> index_ms, probe_sort_ms, count_ms, collect_ms;
  std::vector<JoinPair> pairs;
  JoinAggregate agg;
  JoinStats st;
  // Host to host: the whole join call from the two host-memory sides (its index build included)
  // to its pairs or aggregate in host memory.
  HostTimes host;
  for (int r = 0; r < o.run.warmup + o.run.repeats; ++r) {
    double wall = wall_ms([&] { join(output, pairs, agg, st); });
    if (r == 0) host.first = wall;
    if (r >= o.run.warmup) {
      host.all.push_back(wall);
      index_ms.push_back(st.index_ms);
      probe_sort_ms.push_back(st.probe_sort_ms);
      count_ms.push_back(st.count_ms);
      collect_ms.push_back(st.collect_ms);
    }
  }
  std::string checked = "skipped";
  if (!o.run.no_check) {
    if (output == "pairs") {
      std::sort(pairs.begin(), pairs.end());
      checked = pairs == join_pairs_reference(s.build, s.probe) ? "ok" : "MISMATCH";
    } else {
      checked = agg == join_aggregate_reference(s.build, s.values, s.probe) ? "ok" : "MISMATCH";
    }
  }
  bool rx = name == "rx" || name == "cgrx";
  uint64_t nb = s.build.size(), np = s.probe.size();
  nlohmann::json j = result_fields(ctx, "join", o.run);
  j.update({{"index", name},
            {"api", optix ? "optix" : "vulkan"},
            {"indexed_side", rx ? to_string(st.indexed) : "build"},
            {"bucket_size", bucket_size},
            {"output", output},
            {"key_bits", s.bits},
            {"build_rows", nb},
            {"probe_rows", np},
            {"multiplicity", s.mult},
            {"hit_rate", s.hit},
            {"matches", st.matches},
            {"index_time_ms", median(index_ms)},
            {"probe_sort_ms", median(probe_sort_ms)},
            {"count_ms", median(count_ms)},
            {"collect_ms", median(collect_ms)},
            {"join_time_ms", median(probe_sort_ms) + median(count_ms) + median(collect_ms)},
            {"count_ms_all", count_ms},
            {"seed", s.seed},
            {"checked_result", checked}});
  add_host_fields(j, host);
  rows.push_back(j);
  table.push_back(fmt::format(
      "{:<9} {:<13} {:>3} {:>6} {:>6} {:>4} {:>5} {:>12} {:>10.2f} {:>10.3f} {:>10.3f} {:>9.3f}  "
      "{}",
      output,
      rx ? fmt::format("{}{}/{}", name == "cgrx" ? fmt::format("cgrx{}", bucket_size) : name,
                       optix ? "-optix" : "", to_string(st.indexed))
         : name,
      s.bits, pow2_name(nb), pow2_name(np), s.mult, s.hit, st.matches,
      median(index_ms) + median(probe_sort_ms), median(count_ms), median(collect_ms),
      median(host.all), checked));
}

template <class K>
void run_sides(const BenchJoinOptions& o, const Context& ctx, uint32_t mult, double hit, int bits,
               uint64_t seed, std::vector<nlohmann::json>& rows, std::vector<std::string>& table) {
  std::vector<K> build, probe;
  const uint64_t nb = o.build, np = o.probe;
  progress(fmt::format("{}-bit keys: build {} (multiplicity {}), probe {} (hit rate {})", bits,
                       pow2_name(nb), mult, pow2_name(np), hit));
  make_sides<K>(nb, np, mult, hit, seed, build, probe);
  std::vector<uint32_t> values(build.size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint32_t>(i * 2654435761u);
  JoinSides<K> sides{build, values, probe, mult, hit, bits, seed};
  for (const std::string& kind : o.indexes) {
    if (kind == "rx" || kind == "cgrx") continue;
    if (kind == "sort_merge" || kind == "sort_search" || kind == "sorted_array" || kind == "hash") {
      BaselineJoin bk = kind == "sort_merge"     ? BaselineJoin::sort_merge
                        : kind == "sort_search"  ? BaselineJoin::sort_search
                        : kind == "sorted_array" ? BaselineJoin::sorted_array
                                                 : BaselineJoin::hash;
      for (const std::string& output : o.outputs) {
        progress(fmt::format("joining: {} through the {} join", output, kind));
        time_join(
            o, ctx, sides, kind, output, 0,
            [&](const std::string& out, std::vector<JoinPair>& pairs, JoinAggregate& agg,
                JoinStats& st) {
              if (out == "pairs")
                pairs = baseline_join(ctx, bk, build, probe, &st).value();
              else
                agg = baseline_join_aggregate(ctx, bk, build, values, probe, &st).value();
            },
            rows, table);
      }
      continue;
    }
    if (kind != "sorted")
      throw Error(Errc::invalid_argument,
                  fmt::format("unknown --index '{}' (rx, cgrx, sort_merge, sort_search, "
                              "sorted_array, hash, sorted)",
                              kind));
    progress(fmt::format("joining: aggregate through the {} index", kind));
    HostTimes host;
    auto [index_ms, lookup_ms, agg] =
        baseline_aggregate<SortedIndex>(o, ctx, build, values, probe, host);
    std::string checked = o.run.no_check                                          ? "skipped"
                          : agg == join_aggregate_reference(build, values, probe) ? "ok"
                                                                                  : "MISMATCH";
    nlohmann::json j = result_fields(ctx, "join", o.run);
    j.update({{"index", kind},
              {"indexed_side", "build"},
              {"output", "aggregate"},
              {"key_bits", bits},
              {"build_rows", nb},
              {"probe_rows", np},
              {"multiplicity", mult},
              {"hit_rate", hit},
              {"matches", agg.matches},
              {"index_time_ms", index_ms},
              {"count_ms", lookup_ms},
              {"collect_ms", 0.0},
              {"join_time_ms", lookup_ms},
              {"seed", seed},
              {"checked_result", checked}});
    add_host_fields(j, host);
    rows.push_back(j);
    table.push_back(
        fmt::format("{:<9} {:<13} {:>3} {:>6} {:>6} {:>4} {:>5} {:>12} {:>10.2f} "
                    "{:>10.3f} {:>10.3f} {:>9.3f}  {}",
                    "aggregate", kind, bits, pow2_name(nb), pow2_name(np), mult, hit, agg.matches,
                    index_ms, lookup_ms, 0.0, median(host.all), checked));
  }
  for (const std::string& kind : o.indexes) {
    if (kind != "rx" && kind != "cgrx") continue;
    // RX has no bucket size: one pass with 0.
    std::vector<uint32_t> buckets = kind == "rx" ? std::vector<uint32_t>{0} : o.bucket_sizes;
    for (RayTracingApi api : {RayTracingApi::vulkan, RayTracingApi::optix})
      for (uint32_t bucket : buckets)
        for (const std::string& side_name : o.indexed)
          for (const std::string& output : o.outputs) {
            // With both APIs each result is checked against the CPU join, so they are equal to
            // each other too.
            if (!(api == RayTracingApi::vulkan ? o.api_choice.vulkan : o.api_choice.optix))
              continue;
            JoinOptions jo;
            jo.index.api = api;  // the tracing API is the index's option
            jo.cgrx.api = api;
            jo.kind = kind == "rx" ? JoinIndex::rx : JoinIndex::cgrx;
            jo.cgrx.bucket_size = bucket;
            jo.indexed = side_name == "build"   ? JoinSide::build
                         : side_name == "probe" ? JoinSide::probe
                         : side_name == "automatic"
                             ? JoinSide::automatic
                             : throw Error(Errc::invalid_argument,
                                           "--indexed takes build, probe, automatic");
            progress(fmt::format("joining: {} through {}{}, indexed side {}", output, kind,
                                 bucket ? fmt::format(" (buckets of {})", bucket) : "", side_name));
            time_join(
                o, ctx, sides, kind, output, bucket,
                [&](const std::string& out, std::vector<JoinPair>& pairs, JoinAggregate& agg,
                    JoinStats& st) {
                  if (out == "pairs")
                    pairs = rx_join(ctx, build, probe, jo, &st).value();
                  else
                    agg = rx_join_aggregate(ctx, build, values, probe, jo, &st).value();
                },
                rows, table, api);
          }
  }
}

void run(BenchJoinOptions& o) {
  // Each side's keys, values and the CPU reference's copies take at least 16 bytes a row; refused
  // up front rather than as a std::bad_alloc naming nothing.
  check_host_memory("--build", o.build, 16, "build rows");
  check_host_memory("--probe", o.probe, 16, "probe rows");
  for (int bits : o.key_bits)
    if (bits != 32 && bits != 64)
      throw Error(Errc::invalid_argument, fmt::format("--key-bits {}: 32 or 64", bits));
  auto ctx = open_context(o.common).value();
  const DeviceInfo& dev = ctx.device();
  o.api_choice = parse_apis(ctx, o.apis);
  if (o.api_choice.optix &&
      std::find_if(o.indexes.begin(), o.indexes.end(), [](const std::string& k) {
        return k == "rx" || k == "cgrx";
      }) == o.indexes.end())
    throw Error(Errc::invalid_argument,
                "--api optix runs the ray-traced joins only: add rx or cgrx to --index");
  uint64_t seed = run_seed(o.run);
  std::vector<nlohmann::json> rows;
  std::vector<std::string> table;
  for (int bits : o.key_bits)
    for (uint32_t m : o.multiplicities)
      for (double h : o.hit_rates) {
        if (m == 0) throw Error(Errc::invalid_argument, "--multiplicity must be at least 1");
        if (bits == 32)
          run_sides<uint32_t>(o, ctx, m, h, bits, seed, rows, table);
        else if (bits == 64)
          run_sides<uint64_t>(o, ctx, m, h, bits, seed, rows, table);
        else
          throw Error(Errc::invalid_argument, "--key-bits takes 32 and/or 64");
      }
  finish_bench(
      ctx, "join", o.run,
      fmt::format("raydb bench join on {} ({} {}), RX or cgRX index on one side, median of {} "
                  "after {} warm-up; GPU timestamps.\nhost ms: the join call from host memory to "
                  "its pairs or aggregate in host memory, its index build included (sorted: the "
                  "lookups and their sum), wall clock",
                  dev.name, dev.driver_name, dev.driver_info, o.run.repeats, o.run.warmup),
      fmt::format(
          "{:<9} {:<13} {:>3} {:>6} {:>6} {:>4} {:>5} {:>12} {:>10} {:>10} {:>10} {:>9}  {}",
          "output", "index", "bit", "build", "probe", "mult", "hit", "matches", "index ms",
          "count ms", "collect ms", "host ms", "check"),
      table, rows);
}

}  // namespace

void register_bench_join(CLI::App& bench) {
  auto o = std::make_shared<BenchJoinOptions>();
  auto* cmd = bench.add_subcommand(
      "join", "ray-traced index nested-loop equi-join (RX or cgRX on one side): pairs, aggregate");
  add_common_options(*cmd, o->common);
  add_count(*cmd, "--build", o->build, "build-side rows, e.g. 2^20", 1);
  add_count(*cmd, "--probe", o->probe, "probe-side rows, e.g. 2^22", 1);
  add_counts(*cmd, "--key-bits", o->key_bits, "32 and/or 64", 32, 64);
  add_counts(*cmd, "--multiplicity", o->multiplicities, "build rows per distinct key, list", 1);
  add_reals(*cmd, "--hit-rate", o->hit_rates, "share of probe keys with a partner, list", 0, 1);
  cmd->add_option("--output", o->outputs, "pairs and/or aggregate")->delimiter(',');
  cmd->add_option("--index", o->indexes,
                  "rx, cgrx (the cgRX index, --bucket-size), sort_merge (both sides sorted on the "
                  "GPU, then merged), sort_search (both sorted, a binary search per probe key), "
                  "sorted_array (build side "
                  "sorted, probes in row order), hash (a hash table on the build side): pairs "
                  "and aggregate; sorted (SortedIndex, one lookup per probe key: aggregate "
                  "only); list")
      ->delimiter(',');
  add_counts(*cmd, "--bucket-size", o->bucket_sizes,
             "cgrx: keys per bucket, powers of two >= 2 (the thesis: 32, 256); list", 2);
  cmd->add_option(
         "--indexed", o->indexed,
         "side indexed by RX or cgRX: build, probe (inverse mapping), automatic (the smaller); "
         "list")
      ->delimiter(',');
  cmd->add_option("--api", o->apis,
                  "the rx and cgrx joins' rays: vulkan and/or optix (the index's api option: OptiX "
                  "over the same records; every result checked against the CPU join)")
      ->delimiter(',');
  add_bench_run_options(*cmd, o->run);
  cmd->callback([o] { run(*o); });
}

}  // namespace raydb::cli
