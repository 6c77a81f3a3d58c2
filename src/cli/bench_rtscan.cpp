// raydb bench rtscan: RTScan's experiments. n rows x c columns of one of the paper's distributions,
// `lt` predicates on every column whose constants select the asked share of each column (the
// paper's sweep), RTScan (and its RT variants) against the full scan, the CPU BinDex-style scan and
// the GPU sieve / DP-BIS on the same data and predicates, every result checked against the CPU
// reference. Sweeps over selectivity, distribution, K (bins), I, S and L; per query the time of
// each stage and the counts of rays, intersection-shader calls and refined rows. --workload tpch
// runs the predicates of TPC-H Q3, Q6 and Q17 instead, on LINEITEM-sized columns generated with the
// specification's value distributions at scale factor --sf (workload::tpch_scans).
//
// Results come back through one BitmapReader per run (a persistent host-cached staging buffer):
// transfer_ms is what a caller waits for, split into the device copy (GPU timestamps) and the
// host's copy out; transfer_per_call_ms times Bitmap::words() (staging allocated per call) and
// count_ms Bitmap::count() (counted on the device, no bitmap transfer) for comparison.
//
// --api vulkan,optix refines the same tables and queries through OptiX too (RtScanOptix), every
// OptiX bitmap compared whole with Vulkan's and the CPU reference (docs/optix.md).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "cli/cli.hpp"
#include "common/parallel.hpp"
#include "ops/rtscan/optix/rtscan_optix.hpp"
#include "raydb/cpu_bindex.hpp"
#include "raydb/dpbis.hpp"
#include "raydb/rtscan.hpp"
#include "raydb/rtscan_workload.hpp"
#include "raydb/scan.hpp"
#include "raydb/tpch_scans.hpp"

namespace raydb::cli {

namespace {

struct BenchRtScanOptions {
  CommonOptions common;
  std::string size = "auto";
  std::vector<uint64_t> rows;
  uint32_t columns = 3;
  std::vector<std::string> dists = {"permutation"};
  std::string workload = "synthetic";  // synthetic | tpch
  std::vector<double> scale_factors = {1};
  double zipf = 1.3;
  std::vector<double> selectivities = {0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
  std::vector<std::string> modes = {"rtscan"};
  std::vector<uint32_t> bins = {128};
  std::vector<double> intervals = {0}, spacings = {0}, segments = {0};
  std::string groups = "3";  // 3 | 2+2 | 3+1 | 1 ...: sizes of consecutive column groups
  std::vector<std::string> baselines = {"full_scan"};
  bool counts = true;
  bool plan_on_device = false;                 // RtScanOptions::plan_on_device
  std::vector<std::string> apis = {"vulkan"};  // --api: vulkan and/or optix (the refine's API)
  BenchRunOptions run;
};

void progress(const std::string& s) {
  bench_progress("rtscan", s);
}

std::vector<std::vector<uint32_t>> parse_groups(const std::string& text, uint32_t columns) {
  std::vector<uint32_t> sizes;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t plus = text.find('+', pos);
    std::string part = text.substr(pos, plus == std::string::npos ? std::string::npos : plus - pos);
    if (part != "1" && part != "2" && part != "3")
      throw Error(Errc::invalid_argument,
                  fmt::format("--groups '{}': sizes of 1 to 3 joined by '+' (3, 2+2, 3+1)", text));
    sizes.push_back(static_cast<uint32_t>(std::stoul(part)));
    if (plus == std::string::npos) break;
    pos = plus + 1;
  }
  std::vector<std::vector<uint32_t>> groups;
  uint32_t c = 0;
  // A single size repeats over all columns; a list must add up to the column count.
  for (size_t i = 0; c < columns; ++i) {
    if (sizes.size() > 1 && i >= sizes.size()) break;
    uint32_t s = sizes[sizes.size() == 1 ? 0 : i];
    std::vector<uint32_t> g;
    for (uint32_t k = c; k < std::min(columns, c + s); ++k) g.push_back(k);
    groups.push_back(g);
    c += s;
  }
  if (c != columns)
    throw Error(Errc::invalid_argument,
                fmt::format("--groups '{}' does not cover {} columns", text, columns));
  return groups;
}

template <class F>
double host_ms(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void run(BenchRtScanOptions& o) {
  // Each row takes at least 4 bytes a column on the host (the values; the references more).
  for (uint64_t r : o.rows) check_host_memory("--rows", r, 4ull * o.columns, "rows");
  auto ctx = open_context(o.common).value();
  const DeviceInfo& dev = ctx.device();
  bool cpu = dev.type == "CPU";
  std::string size = o.size == "auto" ? (cpu ? "tiny" : "paper") : o.size;
  std::vector<uint64_t> row_counts = o.rows;
  if (row_counts.empty()) {
    if (size == "paper")
      row_counts = {100'000'000};
    else if (size == "small")
      row_counts = {1u << 20};
    else if (size == "tiny")
      row_counts = {1u << 13};
    else
      throw Error(Errc::invalid_argument,
                  fmt::format("unknown --size '{}' (auto, paper, small, tiny)", o.size));
  }
  for (auto& b : o.baselines)
    if (b != "full_scan" && b != "cpu_bindex" && b != "sieve" && b != "dpbis" && b != "none")
      throw Error(
          Errc::invalid_argument,
          fmt::format("unknown --baseline '{}' (full_scan, cpu_bindex, sieve, dpbis, none)", b));
  std::vector<RtScanMode> modes;
  for (auto& m : o.modes) modes.push_back(parse_rtscan_mode(m).value());
  if (o.workload != "synthetic" && o.workload != "tpch")
    throw Error(Errc::invalid_argument,
                fmt::format("unknown --workload '{}' (synthetic, tpch)", o.workload));
  parse_groups(o.groups, o.workload == "tpch" ? 3 : o.columns);  // bad --groups fail first
  const ApiChoice apis_run = parse_apis(ctx, o.apis);
  const bool use_vulkan = apis_run.vulkan, use_optix = apis_run.optix;
  uint64_t seed = run_seed(o.run);
  progress(
      fmt::format("device {} ({} {}); seed {}", dev.name, dev.driver_name, dev.driver_info, seed));
  std::vector<nlohmann::json> rows;
  std::vector<std::string> table;
  auto add_row = [&](nlohmann::json j, const std::string& line) {
    rows.push_back(std::move(j));
    table.push_back(line);
  };

  // Every bitmap comes back through one reader into one reused vector: the staging buffer and the
  // host pages are paid for once, as a caller running many queries would.
  BitmapReader reader(ctx);
  std::vector<uint32_t> got;
  struct TransferTimes {
    std::vector<double> wall, device, host_copy, per_call, count;
  };
  // Reads `bm` into `got` and times the other ways of getting at the result; checks they agree.
  auto read_result = [&](const Bitmap& bm, TransferTimes& t, bool timed) {
    reader.read(bm, got).value();
    std::vector<uint32_t> per_call;
    double per_call_ms = host_ms([&] { per_call = bm.words().value(); });
    uint64_t count = 0;
    double count_ms = host_ms([&] { count = bm.count().value(); });
    uint64_t bits = 0;
    for (uint32_t w : got) bits += static_cast<uint64_t>(__builtin_popcount(w));
    if (per_call != got || count != bits)
      throw Error(Errc::internal,
                  fmt::format("BitmapReader, Bitmap::words() and Bitmap::count() disagree ({} vs "
                              "{} set bits)",
                              bits, count));
    if (!timed) return;
    const BitmapReadStats& rs = reader.last_read();
    t.wall.push_back(rs.wall_ms);
    t.device.push_back(rs.device_copy_ms);
    t.host_copy.push_back(rs.host_copy_ms);
    t.per_call.push_back(per_call_ms);
    t.count.push_back(count_ms);
  };
  auto transfer_json = [&](const TransferTimes& t) {
    return nlohmann::json{{"transfer_ms", median(t.wall)},
                          {"transfer_device_ms", median(t.device)},
                          {"transfer_host_copy_ms", median(t.host_copy)},
                          {"transfer_bytes", reader.last_read().bytes},
                          {"transfer_host_cached", reader.host_cached()},
                          {"transfer_per_call_ms", median(t.per_call)},
                          {"count_ms", median(t.count)}};
  };

  // One data set: its columns and queries, per query the fields that name it (distribution and
  // selectivity, or TPC-H query and scale factor) and its name in the table.
  struct DataSet {
    std::string dist;  // the table's dist column
    uint64_t rows = 0;
    std::vector<std::span<const uint32_t>> cols;
    std::vector<std::vector<Predicate>> queries;
    std::vector<nlohmann::json> fields;
    std::vector<std::string> names;
  };
  auto run_set = [&](const DataSet& ds) {
    const uint64_t n = ds.rows;
    const auto& cols = ds.cols;
    const auto& queries = ds.queries;
    auto groups = parse_groups(o.groups, static_cast<uint32_t>(cols.size()));
    std::vector<std::vector<uint32_t>> wants(queries.size());
    if (!o.run.no_check) {
      progress("CPU reference results");
      for (size_t q = 0; q < queries.size(); ++q) wants[q] = full_scan_reference(cols, queries[q]);
    }
    auto check = [&](size_t q, const std::vector<uint32_t>& words) -> std::string {
      return o.run.no_check ? "skipped" : words == wants[q] ? "ok" : "MISMATCH";
    };
    auto base_json = [&](const char* index, size_t q) {
      nlohmann::json j = result_fields(ctx, "rtscan", o.run);
      j.update({{"index", index}, {"rows", n}, {"columns", cols.size()}, {"seed", seed}});
      j.update(ds.fields[q]);
      return j;
    };

    // Baselines on the same data and predicates.
    for (const std::string& b : o.baselines) {
      if (b == "none") continue;
      std::optional<ColumnTable> scan_table;
      std::optional<DpBisTable> dp;
      std::optional<CpuBinDex> bindex;
      double build_ms = 0;
      uint64_t index_bytes = 0;
      progress(fmt::format("building {}", b));
      // Host to host: the index (full_scan: its device columns) from the host columns.
      double build_host_ms = host_ms([&] {
        if (b == "full_scan") scan_table = ColumnTable::upload(ctx, cols).value();
        if (b == "sieve" || b == "dpbis") {
          DpBisOptions d;
          d.sieve_vectors = b == "sieve";
          d.bins = b == "sieve" ? o.bins[0] : 256;
          d.backend = Backend::vulkan;
          dp = DpBisTable::build(ctx, cols, d).value();
          build_ms = dp->build_stats().sort_ms + dp->build_stats().bin_ms;
          index_bytes = dp->build_stats().index_bytes;
        }
        if (b == "cpu_bindex") {
          bindex = CpuBinDex::build(cols, {o.bins[0], 0}).value();
          build_ms = bindex->build_stats().build_ms;
          index_bytes = bindex->build_stats().index_bytes;
        }
      });
      for (size_t q = 0; q < queries.size(); ++q) {
        progress(fmt::format("{}: {}", b, ds.names[q]));
        std::vector<double> ms, host;
        TransferTimes transfer;
        for (int r = 0; r < o.run.warmup + o.run.repeats; ++r) {
          double t = 0, wall = 0;
          if (bindex) {
            t = wall = host_ms([&] { got = bindex->select(queries[q]).value(); });
          } else {
            std::optional<Bitmap> bm;
            wall = host_ms([&] {
              bm.emplace(dp ? dp->select(queries[q]).value()
                            : full_scan(*scan_table, queries[q]).value());
            });
            t = dp ? dp->last_stats().gpu_ms : bm->last_gpu_ms();
            read_result(*bm, transfer, r >= o.run.warmup);
            wall += reader.last_read().wall_ms;
          }
          if (r >= o.run.warmup) {
            ms.push_back(t);
            host.push_back(wall);
          }
        }
        uint64_t result_rows = 0;
        for (uint32_t w : got) result_rows += static_cast<uint64_t>(__builtin_popcount(w));
        std::string checked = check(q, got);
        nlohmann::json j = base_json(b.c_str(), q);
        j.update({{"timing", bindex ? "host wall clock" : "GPU"},
                  {"query_time_ms", median(ms)},
                  {"query_time_ms_all", ms},
                  // Host to host: the query call and the bitmap read into host memory.
                  {"host_time_ms", median(host)},
                  {"host_time_ms_all", host},
                  {"build_time_ms", build_ms},
                  {"build_host_ms", build_host_ms},
                  {"index_bytes", index_bytes},
                  {"bins", b == "sieve" || b == "cpu_bindex" ? o.bins[0] : 0u},
                  {"result_rows", result_rows},
                  {"checked_result", checked}});
        if (bindex)
          j["transfer_ms"] = nullptr;
        else
          j.update(transfer_json(transfer));
        add_row(j, fmt::format("{:<6} {:<10} {:<12} {:>11} {:>5} {:>5} {:>10.3f} {:>9} {:>9} "
                               "{:>11} {:>11} {:>11} {:>10.3f}  {}",
                               "-", b, ds.dist, n, ds.names[q], "-", median(ms), "-", "-", "-", "-",
                               result_rows, median(host), checked));
      }
    }

    for (RtScanMode mode : modes)
      for (uint32_t bins : o.bins)
        for (double interval : o.intervals)
          for (double spacing : o.spacings)
            for (double segment : o.segments) {
              RtScanOptions ro;
              ro.mode = mode;
              ro.bins = bins;
              ro.interval = interval;
              ro.spacing = spacing;
              ro.segment = segment;
              ro.groups = mode == RtScanMode::rtc1 ? std::vector<std::vector<uint32_t>>{} : groups;
              ro.count_intersections = o.counts;
              ro.plan_on_device = o.plan_on_device;
              progress(fmt::format("building {} (K {}, I {}, S {}, L {})", to_string(mode), bins,
                                   interval, spacing, segment));
              Result<RtScanTable> built = Error(Errc::internal, "not built");
              double build_host_ms = host_ms([&] { built = RtScanTable::build(ctx, cols, ro); });
              if (!built.ok() && built.error().code() == Errc::invalid_argument &&
                  o.intervals.size() * o.spacings.size() * o.segments.size() > 1) {
                progress(fmt::format("skipped: {}", built.error().what()));  // a sweep's
                continue;  // combination that breaks S < I + epsilon
              }
              auto rt = std::move(built).value();
              const RtScanBuildStats& bs = rt.build_stats();
              progress(
                  fmt::format("built in {:.1f} ms: upload {:.1f} ms, encode {:.1f} ms GPU + "
                              "{:.1f} ms host, sieve {:.1f} ms, BVH {:.1f} ms, BVH {} MB, "
                              "vectors {} MB",
                              bs.wall_ms, bs.upload_ms, bs.encode_ms, bs.host_encode_ms,
                              bs.sieve_ms, bs.bvh_ms, bs.bvh_bytes >> 20, bs.sieve_bytes >> 20));
              std::optional<RtScanOptix> ox;
              double ox_build_host_ms = 0;  // the twin's build, what a caller waits for
              if (use_optix) {
                progress("building the OptiX twin (GAS per column group over the same cubes)");
                ox_build_host_ms = host_ms([&] { ox.emplace(RtScanOptix::build(rt).value()); });
                const RtScanOptixBuildStats& xs = ox->build_stats();
                progress(fmt::format(
                    "OptiX: keys shared in {:.1f} ms, cubes {:.1f} ms, GAS {:.1f} ms + compaction "
                    "{:.1f} ms, GAS {} MB",
                    xs.copy_ms, xs.cubes_ms, xs.build_ms, xs.compact_ms, xs.bvh_bytes >> 20));
              }
              std::vector<std::string> apis;
              if (use_vulkan) apis.push_back("vulkan");
              if (use_optix) apis.push_back("optix");
              for (size_t q = 0; q < queries.size(); ++q) {
                std::vector<uint32_t> first_words;
                std::string first_api;
                for (const std::string& api : apis) {
                  bool optix = api == "optix";
                  auto select = [&]() -> Bitmap {
                    return optix ? ox->select(queries[q]).value() : rt.select(queries[q]).value();
                  };
                  auto last = [&]() -> const RtScanQueryStats& {
                    return optix ? ox->last_stats() : rt.last_stats();
                  };
                  progress(fmt::format("{} ({}): {}", to_string(mode), api, ds.names[q]));
                  RtScanQueryStats counted;
                  if (o.counts) {  // one untimed run with the counters on
                    rt.set_count_intersections(true);
                    select();
                    counted = last();
                    rt.set_count_intersections(false);
                  }
                  std::vector<double> ms, sieve, refine, merge, rewrite, host;
                  TransferTimes transfer;
                  for (int r = 0; r < o.run.warmup + o.run.repeats; ++r) {
                    std::optional<Bitmap> bm;
                    double wall = host_ms([&] { bm.emplace(select()); });
                    read_result(*bm, transfer, r >= o.run.warmup);
                    if (r < o.run.warmup) continue;
                    host.push_back(wall + reader.last_read().wall_ms);
                    const RtScanQueryStats& s = last();
                    ms.push_back(s.gpu_ms());
                    sieve.push_back(s.sieve_ms);
                    refine.push_back(s.refine_ms);
                    merge.push_back(s.merge_ms);
                    rewrite.push_back(s.host_rewrite_ms);
                  }
                  const RtScanQueryStats& s = last();
                  uint64_t result_rows = 0;
                  for (uint32_t w : got)
                    result_rows += static_cast<uint64_t>(__builtin_popcount(w));
                  std::string checked = check(q, got);
                  // The APIs compared whole with each other, besides each with the CPU.
                  std::string api_check = "-";
                  if (first_api.empty()) {
                    first_api = api;
                    first_words = got;
                  } else {
                    size_t differ = 0;
                    for (size_t w = 0; w < got.size() && w < first_words.size(); ++w)
                      differ += got[w] != first_words[w];
                    differ += std::max(got.size(), first_words.size()) -
                              std::min(got.size(), first_words.size());
                    api_check = differ == 0
                                    ? "identical to " + first_api
                                    : fmt::format("DIFFER from {} ({} words)", first_api, differ);
                    if (differ) checked = "MISMATCH";
                  }
                  const RtScanOptions& eff = rt.options();
                  double bvh_ms = optix ? ox->build_stats().bvh_ms() : bs.bvh_ms;
                  uint64_t bvh_bytes = optix ? ox->build_stats().bvh_bytes : bs.bvh_bytes;
                  nlohmann::json j = base_json(to_string(mode), q);
                  j.update({{"timing", "GPU"},
                            {"api", api},
                            {"api_check", api_check},
                            {"traversal", optix ? "optix" : to_string(rt.traversal())},
                            {"groups", o.groups},
                            {"bins", mode == RtScanMode::rtscan ? bins : 0u},
                            {"interval", interval},
                            {"spacing", spacing},
                            {"segment", segment},
                            {"effective_groups", eff.groups},
                            {"query_time_ms", median(ms)},
                            {"query_time_ms_all", ms},
                            {"sieve_ms", median(sieve)},
                            {"refine_ms", median(refine)},
                            {"merge_ms", median(merge)},
                            {"rewrite_host_ms", median(rewrite)},
                            // Host to host: the query call and the bitmap read into host memory.
                            {"host_time_ms", median(host)},
                            {"host_time_ms_all", host},
                            {"rays", s.rays},
                            {"refine_boxes", s.refine_boxes},
                            {"plan_on_device", o.plan_on_device},
                            {"intersections",
                             o.counts ? nlohmann::json(counted.intersections) : nlohmann::json()},
                            {"refined_rows",
                             o.counts ? nlohmann::json(counted.refined_rows) : nlohmann::json()},
                            {"build_encode_ms", bs.encode_ms},
                            {"build_encode_host_ms", bs.host_encode_ms},
                            // What a caller of build() waits for (host clock; GPU and host
                            // work, uploads, pipelines), and the timed parts.
                            {"index_build_ms", bs.wall_ms},
                            // build(), wall clock here; OptiX: and the twin's build on it.
                            {"build_host_ms", build_host_ms + (optix ? ox_build_host_ms : 0.0)},
                            {"build_parts_ms", bs.upload_ms + bs.encode_ms + bs.host_encode_ms +
                                                   bs.sieve_ms + bs.bvh_ms},
                            {"build_upload_ms", bs.upload_ms},
                            {"build_sieve_ms", bs.sieve_ms},
                            // This API's BVH: Vulkan's cubes, BLAS, TLAS and compaction; OptiX's
                            // cubes (the same kernel), GAS and compaction.
                            {"build_bvh_ms", bvh_ms},
                            {"bvh_bytes", bvh_bytes},
                            {"sieve_bytes", bs.sieve_bytes}});
                  if (optix) {
                    const RtScanOptixBuildStats& xs = ox->build_stats();
                    j.update({{"optix_version", optix_support(ctx).version},
                              {"optix_build_host_ms", ox_build_host_ms},
                              {"optix_key_copy_ms", xs.copy_ms},
                              {"optix_cubes_ms", xs.cubes_ms},
                              {"optix_gas_build_ms", xs.build_ms},
                              {"optix_compact_ms", xs.compact_ms},
                              {"bvh_uncompacted_bytes", xs.bvh_uncompacted_bytes},
                              {"optix_key_bytes", xs.key_bytes}});
                  }
                  j.update({{"result_rows", result_rows}, {"checked_result", checked}});
                  j.update(transfer_json(transfer));
                  add_row(j, fmt::format("{:<6} {:<10} {:<12} {:>11} {:>5} {:>5} {:>10.3f} "
                                         "{:>9.3f} {:>9.3f} {:>11} {:>11} {:>11} {:>10.3f}  {}{}",
                                         api, to_string(mode), ds.dist, n, ds.names[q], bins,
                                         median(ms), median(sieve), median(refine), s.rays,
                                         o.counts ? std::to_string(counted.intersections) : "-",
                                         result_rows, median(host), checked,
                                         api_check == "-" ? "" : ", " + api_check));
                }
              }
            }
  };

  if (o.workload == "tpch") {
    for (double sf : o.scale_factors) {
      progress(fmt::format("generating the TPC-H Q3, Q6 and Q17 columns at SF {}", sf));
      auto scans = workload::tpch_scans(sf, seed).value();
      for (const auto& scan : scans) {
        DataSet ds;
        ds.dist = "tpch-" + scan.query;
        ds.rows = scan.columns[0].size();
        ds.cols.assign(scan.columns.begin(), scan.columns.end());
        ds.queries = {scan.predicates};
        std::vector<std::string> preds;
        for (const Predicate& p : scan.predicates)
          preds.push_back(
              p.op == CompareOp::between
                  ? fmt::format("{} between {} and {}", scan.column_names[p.column], p.value,
                                p.value2)
                  : fmt::format("{} {} {}", scan.column_names[p.column], to_string(p.op), p.value));
        nlohmann::json fields = {{"distribution", "tpch"},
                                 {"query", scan.query},
                                 {"scale_factor", sf},
                                 {"table", scan.table},
                                 {"column_names", scan.column_names},
                                 {"predicates", preds}};
        ds.fields = {fields};
        ds.names = {scan.query};
        run_set(ds);
      }
    }
  } else {
    for (uint64_t n : row_counts)
      for (const std::string& dist_name : o.dists) {
        workload::ScanColumnOptions co;
        co.rows = n;
        co.distribution = workload::parse_scan_distribution(dist_name).value();
        co.zipf = o.zipf;
        co.seed = seed;
        progress(fmt::format("generating {} {} columns of {} rows", o.columns, dist_name, n));
        auto data = workload::make_scan_table(co, o.columns).value();
        DataSet ds;
        ds.dist = dist_name;
        ds.rows = n;
        ds.cols.assign(data.begin(), data.end());
        // Per selectivity: an `lt` predicate on every column, each selecting that share of its
        // column.
        ds.queries.resize(o.selectivities.size());
        for (uint32_t c = 0; c < o.columns; ++c) {
          auto constants = workload::lt_constants(data[c], o.selectivities).value();
          for (size_t q = 0; q < constants.size(); ++q)
            ds.queries[q].push_back({c, CompareOp::lt, constants[q].value, 0});
        }
        for (double sel : o.selectivities) {
          ds.fields.push_back(
              {{"distribution", dist_name},
               {"zipf", co.distribution == workload::ScanDistribution::zipf ? nlohmann::json(o.zipf)
                                                                            : nlohmann::json()},
               {"selectivity", sel}});
          ds.names.push_back(fmt::format("{}", sel));
        }
        run_set(ds);
      }
  }
  finish_bench(
      ctx, "rtscan", o.run,
      fmt::format("raydb bench rtscan on {} ({} {}), median of {} after {} warm-up\n"
                  "query ms: GPU time of sieve + refine + merge (Vulkan timestamps); the host's "
                  "rewrite and the\nresult transfer (transfer_ms: device copy + host copy out) "
                  "are separate fields. host ms: the query call and the result read into host "
                  "memory, wall clock.\ncpu_bindex: host wall "
                  "clock. IS calls: intersection-shader calls.\napi optix: the refine through "
                  "OptiX (CUDA events); rewrite, sieve and merge as in Vulkan.",
                  dev.name, dev.driver_name, dev.driver_info, o.run.repeats, o.run.warmup),
      fmt::format("{:<6} {:<10} {:<12} {:>11} {:>5} {:>5} {:>10} {:>9} {:>9} {:>11} {:>11} {:>11} "
                  "{:>10}  {}",
                  "api", "index", "dist", "rows", "sel", "K", "query ms", "sieve ms", "refine ms",
                  "rays", "IS calls", "result", "host ms", "check"),
      table, rows);
}

}  // namespace

void register_bench_rtscan(CLI::App& bench) {
  auto o = std::make_shared<BenchRtScanOptions>();
  auto* cmd = bench.add_subcommand(
      "rtscan", "RTScan: conjunctive lt predicates over n x c columns, against the baselines");
  add_common_options(*cmd, o->common);
  cmd->add_option("--size", o->size, "auto | paper (1e8 rows) | small (2^20) | tiny (2^13)");
  add_counts(*cmd, "--rows", o->rows, "row counts (overrides --size), list", 1);
  add_count(*cmd, "--columns", o->columns, "columns, each with one predicate", 1, 1024);
  cmd->add_option("--workload", o->workload,
                  "synthetic (--dist, --selectivity, --columns) | tpch (TPC-H Q3, Q6, Q17 "
                  "predicates on 3 columns of LINEITEM rows at --sf)");
  add_reals(*cmd, "--sf", o->scale_factors, "TPC-H scale factors for --workload tpch, list", 1e-4,
            1000);
  cmd->add_option("--dist", o->dists, "uniform | zipf | normal | small-range | permutation, list")
      ->delimiter(',');
  add_real(*cmd, "--zipf", o->zipf, "Zipf exponent for --dist zipf", 0, 100);
  add_reals(*cmd, "--selectivity", o->selectivities,
            "share of each column its predicate selects, list (default 0, 0.1, ..., 1)", 0, 1);
  cmd->add_option("--mode", o->modes, "rtscan | rtc3 | rtc1 | rtindex, list")->delimiter(',');
  add_counts(*cmd, "--bins", o->bins, "sieving bins K (rtscan), list", 1);
  // Key units: the keys are uint32, so no pitch, gap or length is longer than 2^32.
  add_reals(*cmd, "--interval", o->intervals, "ray lattice pitch I in key units (0: default), list",
            0, 4294967296.0);
  add_reals(*cmd, "--spacing", o->spacings, "gap S between segments (0: I), list", 0, 4294967296.0);
  add_reals(*cmd, "--segment", o->segments, "segment length L (0: default), list", 0, 4294967296.0);
  cmd->add_option("--groups", o->groups, "column group sizes: 3, 2+2, 3+1, 1, ...");
  cmd->add_option("--baseline", o->baselines, "full_scan, cpu_bindex, sieve, dpbis or none; list")
      ->delimiter(',');
  cmd->add_option("--counts", o->counts,
                  "one extra untimed run per query counting intersection-shader calls and "
                  "refined rows (true/false)");
  cmd->add_option("--plan-on-device", o->plan_on_device,
                  "plan each selection on the device (RtScanOptions::plan_on_device) instead of on "
                  "the host (true/false)");
  cmd->add_option("--api", o->apis,
                  "vulkan and/or optix: the API of the refine's ray tracing, list (optix: the same "
                  "tables, cubes, lattice and queries; results compared between the APIs)")
      ->delimiter(',');
  add_bench_run_options(*cmd, o->run);
  cmd->callback([o] { run(*o); });
}

}  // namespace raydb::cli
