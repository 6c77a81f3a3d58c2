// raydb bench dpbis: the DP-BIS experiments. Uniform uint32 columns, `lt` predicates whose
// constants give the asked selectivity, one or several columns combined with AND or OR; DP-BIS
// against the full scan on the same data, both checked against the CPU reference, with the full
// scan's achieved bandwidth as a fraction of the device's copy bandwidth measured in the same run,
// and the wall clock of each query call with its bitmap read back (docs/baselines.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <random>

#include "backend/cuda/cuda.hpp"
#include "cli/cli.hpp"
#include "common/parallel.hpp"
#include "raydb/cpu_bindex.hpp"
#include "raydb/dpbis.hpp"
#include "raydb/scan.hpp"

namespace raydb::cli {

namespace {

struct BenchDpBisOptions {
  CommonOptions common;
  std::string size = "auto";
  std::vector<uint64_t> rows;
  std::vector<uint32_t> columns = {1, 3};
  std::vector<double> selectivities = {0.01, 0.1, 0.5};
  std::vector<std::string> combines = {"all"};
  std::vector<std::string> indexes = {"dpbis", "sieve", "full_scan", "bitmap_ops"};
  uint32_t sieve_bins = 128;
  std::vector<std::string> refines = {"scatter"};
  std::string backend = "auto";
  double cuda_hold_us = 0;
  bool cuda_flush_l2 = false;
  BenchRunOptions run;
};

// The --index names: the indexes, and the diagnostics that time one pass of a query or one
// direction of the memory traffic (their results are not the query's: marked "diagnostic").
const char* const kIndexes[] = {"dpbis",        "sieve",        "full_scan",    "cpu_bindex",
                                "cpu_scan",     "bitmap_ops",   "dpbis_select", "dpbis_refine",
                                "sieve_select", "sieve_refine", "stream"};

// The pass a diagnostic index runs ("all" for the indexes themselves).
std::string pass_of(std::string_view index) {
  if (index.ends_with("_select")) return "select";
  if (index.ends_with("_refine")) return "refine";
  return "all";
}

void progress(const std::string& s) {
  bench_progress("dpbis", s);
}

// Wall-clock milliseconds of one public API call, its result in host memory: what a user with
// columns in host memory waits for (host to host). Outside every GPU timestamp span.
template <class F>
double wall_ms(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// `host_ms` < 0: no host-to-host time (the stream diagnostics call no public API).
std::string row_line(const std::string& index, uint64_t n, uint32_t cols, double s,
                     const std::string& comb, double ms, double gbps, const std::string& fraction,
                     uint64_t candidates, uint64_t result, double host_ms,
                     const std::string& checked) {
  return fmt::format(
      "{:<13} {:>11} {:>4} {:>6} {:<4} {:>10.3f} {:>9.1f} {:>6} {:>11} {:>11} {:>9}  {}", index, n,
      cols, s, comb, ms, gbps, fraction, candidates, result,
      host_ms < 0 ? std::string("-") : fmt::format("{:.3f}", host_ms), checked);
}

// One read-only pass, one write-only pass and one copy (compute shaders, 16 bytes per invocation)
// of a bitmap's size (rows / 8 bytes: also a sieving vector's) and of the codes' (rows bytes):
// what a single pass of the size the kernels move can reach, and in which direction it falls
// short. Rows: read_only, write_only, copy; stream_bytes is the buffer size.
void bench_stream(const BenchDpBisOptions& o, const Context& ctx, uint64_t n, double ceiling,
                  uint64_t seed, std::vector<nlohmann::json>& rows,
                  std::vector<std::string>& table_lines) {
  for (uint64_t size : {(n + 7) / 8, n}) {
    progress(fmt::format("stream: read, write and copy of {} bytes", size));
    StreamTimes st = stream_times(ctx, size);
    struct Pass {
      const char* index;
      const char* pass;
      double ms, bytes;
    };
    double b = static_cast<double>(st.bytes);
    for (const Pass& p :
         {Pass{"read_only", "read", st.read_ms, b}, Pass{"write_only", "write", st.write_ms, b},
          Pass{"copy", "copy", st.copy_ms, 2 * b}}) {
      double gbps = p.ms > 0 ? p.bytes / (p.ms * 1e-3) / 1e9 : 0;
      nlohmann::json j = result_fields(ctx, "dpbis", o.run);
      j.update(
          {{"index", p.index},
           {"pass", p.pass},
           {"backend", "vulkan"},
           {"cuda_hold_us", 0.0},
           {"cuda_flush_l2", false},
           {"timing", "GPU"},
           {"rows", n},
           {"stream_bytes", st.bytes},
           {"columns", 0},
           {"selectivity", 0.0},
           {"combine", "-"},
           {"result_rows", 0},
           {"query_time_ms", p.ms},
           {"query_time_ms_all", std::vector<double>{p.ms}},
           {"candidates", 0},
           {"bytes_moved", p.bytes},
           {"achieved_gbps", gbps},
           {"copy_gbps", ceiling},
           {"bandwidth_fraction", ceiling > 0 ? nlohmann::json(gbps / ceiling) : nlohmann::json()},
           {"build_time_ms", 0.0},
           {"index_bytes", 0},
           {"bins", 0},
           // A pass over device buffers alone: no host data, no call a user makes.
           {"host_time_ms", nullptr},
           {"host_time_ms_all", nullptr},
           {"seed", seed},
           {"checked_result", "diagnostic"}});
      rows.push_back(j);
      table_lines.push_back(
          row_line(fmt::format("{} {:.1f}M", p.index, b / 1e6), n, 0, 0, "-", p.ms, gbps,
                   ceiling > 0 ? fmt::format("{:.2f}", gbps / ceiling) : std::string("-"), 0, 0, -1,
                   "diagnostic"));
    }
  }
}

// AND, OR and NOT over two bitmaps of about half the rows each (from full scans), each applied to
// a fresh copy and timed alone, checked against the same operation on the CPU. Bytes: AND and OR
// read two bitmaps and write one, NOT reads and writes one.
void bench_bitmap_ops(const BenchDpBisOptions& o, const Context& ctx, const ColumnTable& table,
                      const std::vector<std::span<const uint32_t>>& cols, double ceiling,
                      uint64_t seed, std::vector<nlohmann::json>& rows,
                      std::vector<std::string>& table_lines) {
  uint64_t n = table.rows();
  uint32_t cb = cols.size() > 1 ? 1 : 0;
  std::vector<Predicate> pa{{0, CompareOp::lt, 0x80000000u, 0}};
  std::vector<Predicate> pb{{cb, CompareOp::ge, 0x40000000u, 0}};
  std::vector<uint32_t> wa = full_scan_reference(cols, pa), wb = full_scan_reference(cols, pb);
  Bitmap b = full_scan(table, pb).value();
  for (const char* op : {"and", "or", "not"}) {
    progress(fmt::format("bitmap {}: {} rows", op, n));
    std::vector<double> ms, host;
    std::vector<uint32_t> got;
    for (int r = 0; r < o.run.warmup + o.run.repeats; ++r) {
      Bitmap a = full_scan(table, pa).value();
      // Host to host: the operation and its bitmap read into host memory.
      double wall = wall_ms([&] {
        Status st = std::string_view(op) == "and"  ? a.and_with(b)
                    : std::string_view(op) == "or" ? a.or_with(b)
                                                   : a.invert();
        st.value();
        got = a.words().value();
      });
      if (r >= o.run.warmup) {
        ms.push_back(a.last_gpu_ms());
        host.push_back(wall);
      }
    }
    std::vector<uint32_t> want(wa.size());
    for (size_t i = 0; i < want.size(); ++i) {
      uint32_t tail = i + 1 == want.size() && n % 32 ? (1u << (n % 32)) - 1u : 0xFFFFFFFFu;
      want[i] = std::string_view(op) == "and"  ? wa[i] & wb[i]
                : std::string_view(op) == "or" ? wa[i] | wb[i]
                                               : ~wa[i] & tail;
    }
    std::string checked = o.run.no_check ? "skipped" : got == want ? "ok" : "MISMATCH";
    double t = median(ms);
    double bytes = 4.0 * static_cast<double>(wa.size()) * (std::string_view(op) == "not" ? 2 : 3);
    double gbps = t > 0 ? bytes / (t * 1e-3) / 1e9 : 0;
    nlohmann::json j = result_fields(ctx, "dpbis", o.run);
    const Backend backend = ctx.resolve(Backend::automatic).value();
    j.update(
        {{"index", fmt::format("bitmap_{}", op)},
         {"pass", "all"},
         {"backend", to_string(backend)},
         {"cuda_hold_us", backend == Backend::cuda ? o.cuda_hold_us : 0.0},
         {"cuda_flush_l2", backend == Backend::cuda && o.cuda_flush_l2},
         {"timing", "GPU"},
         {"rows", n},
         {"columns", std::string_view(op) == "not" ? 1 : 2},
         {"selectivity", 0.5},
         {"combine", "all"},
         {"result_rows", 0},
         {"query_time_ms", t},
         {"query_time_ms_all", ms},
         {"candidates", 0},
         {"bytes_moved", bytes},
         {"achieved_gbps", gbps},
         {"copy_gbps", ceiling},
         {"bandwidth_fraction", ceiling > 0 ? nlohmann::json(gbps / ceiling) : nlohmann::json()},
         {"build_time_ms", 0.0},
         {"index_bytes", 0},
         {"bins", 0},
         {"host_time_ms", median(host)},
         {"host_time_ms_all", host},
         {"seed", seed},
         {"checked_result", checked}});
    rows.push_back(j);
    table_lines.push_back(
        row_line(fmt::format("bitmap_{}", op), n, std::string_view(op) == "not" ? 1 : 2, 0.5, "-",
                 t, gbps, ceiling > 0 ? fmt::format("{:.2f}", gbps / ceiling) : std::string("-"), 0,
                 0, median(host), checked));
  }
}

void run(BenchDpBisOptions& o) {
  // A row takes at least 4 bytes a column on the host (the values; the codes and bitmaps more).
  for (uint64_t r : o.rows)
    for (uint32_t c : o.columns) check_host_memory("--rows", r, 4ull * c, "rows");
  // The context's backend too, so that the bitmap algebra (bitmap_ops, AND / OR of full scans)
  // runs where DP-BIS does.
  auto ctx = open_context(o.common, parse_backend(o.backend).value()).value();
  const DeviceInfo& dev = ctx.device();
  bool cpu = dev.type == "CPU";
  std::string size = o.size == "auto" ? (cpu ? "small" : "paper") : o.size;
  std::vector<uint64_t> row_counts = o.rows;
  if (row_counts.empty()) {
    if (size == "paper")
      row_counts = {50'000'000, 100'000'000};
    else if (size == "small")
      row_counts = {1u << 20};
    else if (size == "tiny")
      row_counts = {1u << 14};
    else
      throw Error(Errc::invalid_argument,
                  fmt::format("unknown --size '{}' (auto, paper, small, tiny)", o.size));
  }
  uint64_t seed = run_seed(o.run);
  uint32_t max_columns = *std::max_element(o.columns.begin(), o.columns.end());
  uint64_t ceiling_bytes = std::min<uint64_t>(1ull << 30, dev.device_local_bytes / 8);
  double ceiling = copy_bandwidth_gbps(ctx, ceiling_bytes);
  progress(fmt::format("device {} ({} {}); copy bandwidth {:.1f} GB/s (read + write); seed {}",
                       dev.name, dev.driver_name, dev.driver_info, ceiling, seed));
  if (o.cuda_hold_us > 0) {
    if (ctx.cuda().available) detail::cuda::set_timer_hold(ctx.vk(), o.cuda_hold_us);
    progress(fmt::format("CUDA timings start after a {} us hold of the stream{}", o.cuda_hold_us,
                         ctx.cuda().available ? "" : " (no CUDA here: nothing to hold)"));
    if (!ctx.cuda().available) o.cuda_hold_us = 0;
  }
  if (o.cuda_flush_l2) {
    uint64_t bytes = ctx.cuda().available ? detail::cuda::set_timer_flush(ctx.vk(), true) : 0;
    progress(
        ctx.cuda().available
            ? fmt::format("CUDA timings start after reading {} bytes (twice the L2 cache)", bytes)
            : std::string("no CUDA here: --cuda-flush-l2 flushes nothing"));
    if (!ctx.cuda().available) o.cuda_flush_l2 = false;
  }
  std::vector<nlohmann::json> rows;
  std::vector<std::string> table;
  for (uint64_t n : row_counts) {
    progress(fmt::format("generating {} columns of {} uniform uint32 values", max_columns, n));
    std::vector<std::vector<uint32_t>> data(max_columns, std::vector<uint32_t>(n));
    for (uint32_t c = 0; c < max_columns; ++c)
      detail::parallel_for((n + 65535) / 65536, [&](size_t slice) {
        std::mt19937 rng(static_cast<uint32_t>(seed * 31 + c * 1000003 + slice));
        for (size_t i = slice * 65536; i < std::min<size_t>(n, (slice + 1) * 65536); ++i)
          data[c][i] = rng();
      });
    std::vector<std::span<const uint32_t>> cols(data.begin(), data.end());
    // Host to host: the full scan's device columns from host memory (its build).
    std::optional<ColumnTable> uploaded;
    double upload_host_ms =
        wall_ms([&] { uploaded.emplace(ColumnTable::upload(ctx, cols).value()); });
    ColumnTable& table_dev = *uploaded;
    auto wants = [&](const char* i) {
      return std::find(o.indexes.begin(), o.indexes.end(), i) != o.indexes.end();
    };
    for (auto& i : o.indexes)
      if (std::find(std::begin(kIndexes), std::end(kIndexes), i) == std::end(kIndexes))
        throw Error(Errc::invalid_argument,
                    fmt::format("unknown --index '{}' ({})", i, fmt::join(kIndexes, ", ")));
    auto wants_any = [&](const std::string& prefix) {
      return wants(prefix.c_str()) || wants((prefix + "_select").c_str()) ||
             wants((prefix + "_refine").c_str());
    };
    Backend backend = ctx.resolve(parse_backend(o.backend).value()).value();
    const CudaSupport& cuda = ctx.cuda();
    progress(fmt::format("building DP-BIS; kernels in {}{}", to_string(backend),
                         backend == Backend::cuda ? " on " + cuda.name
                         : cuda.available         ? " (asked for)"
                                                  : " (no CUDA: " + cuda.reason + ")"));
    for (auto& r : o.refines)
      if (r != "scatter" && r != "in_select")
        throw Error(Errc::invalid_argument,
                    fmt::format("unknown --refine '{}' (scatter, in_select)", r));
    std::optional<CpuBinDex> cpu_bindex;
    double cpu_bindex_host_ms = 0;
    if (wants("cpu_bindex")) {
      progress(fmt::format("building the CPU BinDex-style index ({} bins, {} threads)",
                           o.sieve_bins, detail::host_threads()));
      cpu_bindex_host_ms = wall_ms([&] {
        cpu_bindex = CpuBinDex::build(cols, {o.sieve_bins, 0}).value();
      });
    }
    if (wants("bitmap_ops")) bench_bitmap_ops(o, ctx, table_dev, cols, ceiling, seed, rows, table);
    if (wants("stream")) bench_stream(o, ctx, n, ceiling, seed, rows, table);
    // One refinement's tables at a time (in_select adds 4 bytes per row and column; both sets
    // at once would not fit at 1e9 rows); the other indexes run with the first refinement only.
    for (size_t ri = 0; ri < o.refines.size(); ++ri) {
      const std::string& refine_name = o.refines[ri];
      std::optional<DpBisTable> dpbis, sieve;
      DpBisOptions codes_options, sieve_options{o.sieve_bins, true};
      codes_options.backend = sieve_options.backend = backend;
      codes_options.refine = sieve_options.refine =
          refine_name == "in_select" ? Refine::in_select : Refine::scatter;
      // Host to host: each index built from the host columns.
      double dpbis_host_ms = 0, sieve_host_ms = 0;
      if (wants_any("dpbis"))
        dpbis_host_ms =
            wall_ms([&] { dpbis = DpBisTable::build(ctx, cols, codes_options).value(); });
      if (wants_any("sieve"))
        sieve_host_ms =
            wall_ms([&] { sieve = DpBisTable::build(ctx, cols, sieve_options).value(); });
      for (uint32_t ncols : o.columns)
        for (double s : o.selectivities)
          for (const auto& comb : o.combines) {
            if (comb != "all" && comb != "any")
              throw Error(Errc::invalid_argument, "--combine takes all or any");
            if (s < 0 || s > 1 || std::isnan(s))
              throw Error(Errc::invalid_argument, "--selectivity must be in [0, 1]");
            Combine combine = comb == "all" ? Combine::all : Combine::any;
            std::vector<Predicate> preds;
            // Per column selectivity: s^(1/k) for AND, 1 - (1 - s)^(1/k) for OR, so the result has
            // about s.
            double per = combine == Combine::all ? std::pow(s, 1.0 / ncols)
                                                 : 1.0 - std::pow(1.0 - s, 1.0 / ncols);
            for (uint32_t c = 0; c < ncols; ++c)
              preds.push_back({c, CompareOp::lt,
                               static_cast<uint32_t>(std::min(per * 4294967296.0, 4294967295.0))});
            std::vector<uint32_t> want;
            if (!o.run.no_check) {
              if (combine == Combine::all) {
                want = full_scan_reference(cols, preds);
              } else {
                want.assign((n + 31) / 32, 0);
                for (auto& p : preds) {
                  auto one = full_scan_reference(cols, std::vector<Predicate>{p});
                  for (size_t i = 0; i < want.size(); ++i) want[i] |= one[i];
                }
              }
            }
            for (const std::string& which : o.indexes) {
              if (which == "bitmap_ops" || which == "stream") continue;  // once per row count
              std::string pass = pass_of(which);
              DpBisTable* index = which.starts_with("dpbis")   ? &*dpbis
                                  : which.starts_with("sieve") ? &*sieve
                                                               : nullptr;
              bool dp = index != nullptr;
              if (!dp && ri > 0) continue;  // not a DP-BIS index: once, with the first refinement
              if (dp && pass != "all" && refine_name == "in_select") {
                progress(
                    fmt::format("{} skipped with --refine in_select: one pass selects and "
                                "refines, there are no passes to time apart",
                                which));
                continue;
              }
              if (dp)
                index->set_diagnostic(pass == "select"   ? DpBisDiagnostic::select_only
                                      : pass == "refine" ? DpBisDiagnostic::refine_only
                                                         : DpBisDiagnostic::none);
              bool on_cpu = which == "cpu_bindex" || which == "cpu_scan";
              if (!dp && which != "cpu_bindex" && combine == Combine::any && ncols > 1)
                continue;  // the full scans are conjunctive
              progress(fmt::format("{}{}: {} rows, {} column(s), selectivity {}, {}", which,
                                   dp ? " (refine " + refine_name + ")" : std::string(), n, ncols,
                                   s, comb));
              // host: the query call and its bitmap read into host memory, wall clock (on the
              // CPU the query time itself).
              std::vector<double> ms, host;
              uint64_t candidates = 0;
              std::vector<uint32_t> got;
              for (int r = 0; r < o.run.warmup + o.run.repeats; ++r) {
                if (on_cpu) {  // host wall clock, all threads
                  CpuBinDexQueryStats qs;
                  double wall = wall_ms([&] {
                    got = which == "cpu_bindex" ? cpu_bindex->select(preds, combine, &qs).value()
                                                : full_scan_reference(cols, preds);
                  });
                  if (r >= o.run.warmup) {
                    ms.push_back(wall);
                    host.push_back(wall);
                  }
                  candidates = qs.candidates;
                  continue;
                }
                std::optional<Bitmap> bm;
                double wall = wall_ms([&] {
                  bm.emplace(dp ? index->select(preds, combine).value()
                                : full_scan(table_dev, preds).value());
                  got = bm->words().value();
                });
                if (r >= o.run.warmup) {
                  ms.push_back(dp ? index->last_stats().gpu_ms : bm->last_gpu_ms());
                  host.push_back(wall);
                }
                candidates = dp ? index->last_stats().candidates : 0;
              }
              std::string checked = "skipped";
              uint64_t result_rows = 0;
              for (uint32_t w : got) result_rows += static_cast<uint64_t>(__builtin_popcount(w));
              if (pass != "all")
                checked = "diagnostic";  // one pass alone: not the query's answer
              else if (!o.run.no_check)
                checked = got == want ? "ok" : "MISMATCH";
              if (dp) index->set_diagnostic(DpBisDiagnostic::none);
              double t = median(ms);
              // Bytes each one's kernels actually read and write, so that GB/s against the copy
              // ceiling (also read + write) is a like-for-like fraction. DP-BIS and the sieve count
              // their own (DpBisQueryStats::bytes: codes or only the sieving vectors read,
              // candidate values and row ids, every per-predicate bitmap and each AND / OR's three
              // bitmap passes). The full scan reads every predicate's column once, whole, and
              // writes the bitmap once; a predicate that accepts nothing only clears the bitmap.
              bool none = std::any_of(preds.begin(), preds.end(),
                                      [](const Predicate& p) { return !accepted_interval(p); });
              double bitmap_bytes = 4.0 * static_cast<double>((n + 31) / 32);
              double scans = static_cast<double>(preds.size() * n);
              // cpu_bindex: two vectors per predicate, the boundary bins' values and row ids.
              double bytes =
                  dp     ? static_cast<double>(index->last_stats().bytes)
                  : none ? bitmap_bytes
                  : which == "cpu_bindex"
                      ? scans / 4.0 + 8.0 * static_cast<double>(candidates) + bitmap_bytes
                      : 4.0 * scans + bitmap_bytes;
              double gbps = t > 0 ? bytes / (t * 1e-3) / 1e9 : 0;
              nlohmann::json j = result_fields(ctx, "dpbis", o.run);
              j.update(
                  {{"index", which},
                   {"pass", pass},
                   {"refine", dp ? nlohmann::json(refine_name) : nlohmann::json()},
                   {"backend", on_cpu ? "cpu" : to_string(dp ? index->backend() : Backend::vulkan)},
                   {"cuda_hold_us", dp && index->backend() == Backend::cuda ? o.cuda_hold_us : 0.0},
                   {"cuda_flush_l2", dp && index->backend() == Backend::cuda && o.cuda_flush_l2},
                   {"timing", on_cpu ? "host wall clock" : "GPU"},
                   {"rows", n},
                   {"columns", ncols},
                   {"selectivity", s},
                   {"combine", comb},
                   {"result_rows", result_rows},
                   {"query_time_ms", t},
                   {"query_time_ms_all", ms},
                   {"candidates", candidates},
                   {"bytes_moved", bytes},
                   {"achieved_gbps", gbps},
                   {"copy_gbps", ceiling},
                   // The ceiling is the GPU's: no fraction for host runs.
                   {"bandwidth_fraction",
                    on_cpu || ceiling <= 0 ? nlohmann::json() : nlohmann::json(gbps / ceiling)},
                   {"build_time_ms", dp ? index->build_stats().sort_ms + index->build_stats().bin_ms
                                     : which == "cpu_bindex" ? cpu_bindex->build_stats().build_ms
                                                             : 0.0},
                   {"index_bytes", dp                      ? index->build_stats().index_bytes
                                   : which == "cpu_bindex" ? cpu_bindex->build_stats().index_bytes
                                                           : 0},
                   {"bins", which.starts_with("dpbis")                            ? 256u
                            : which.starts_with("sieve") || which == "cpu_bindex" ? o.sieve_bins
                                                                                  : 0u},
                   {"host_time_ms", median(host)},
                   {"host_time_ms_all", host},
                   // The index (full_scan: its device columns) from the host columns; the CPU
                   // scan builds nothing.
                   {"build_host_ms", which.starts_with("dpbis")   ? dpbis_host_ms
                                     : which.starts_with("sieve") ? sieve_host_ms
                                     : which == "cpu_bindex"      ? cpu_bindex_host_ms
                                     : which == "full_scan"       ? upload_host_ms
                                                                  : 0.0},
                   {"seed", seed},
                   {"checked_result", checked}});
              rows.push_back(j);
              table.push_back(row_line(
                  dp && refine_name == "in_select" ? which + "+in" : which, n, ncols, s, comb, t,
                  gbps,
                  on_cpu || ceiling <= 0 ? std::string("-") : fmt::format("{:.2f}", gbps / ceiling),
                  candidates, result_rows, median(host), checked));
            }
          }
    }
  }
  finish_bench(
      ctx, "dpbis", o.run,
      fmt::format(
          "raydb bench dpbis on {} ({} {}), median of {} after {} warm-up; copy {:.1f} GB/s\n"
          "query ms: GPU time of the query's kernels only (Vulkan timestamps; CUDA events around "
          "all of a\nquery's kernels on its stream, launch gaps included); no allocation, CUDA "
          "import or host wait.\nGB/s: bytes the kernels read + write (as the copy: read + "
          "write).\n"
          "host ms: the query call and its bitmap read into host memory, wall clock.",
          dev.name, dev.driver_name, dev.driver_info, o.run.repeats, o.run.warmup, ceiling),
      fmt::format("{:<13} {:>11} {:>4} {:>6} {:<4} {:>10} {:>9} {:>6} {:>11} {:>11} {:>9}  {}",
                  "index", "rows", "cols", "sel", "comb", "query ms", "GB/s", "of cp", "candidates",
                  "result", "host ms", "check"),
      table, rows);
}

}  // namespace

void register_bench_dpbis(CLI::App& bench) {
  auto o = std::make_shared<BenchDpBisOptions>();
  auto* cmd = bench.add_subcommand(
      "dpbis", "DP-BIS against the full scan: range selections over uint32 columns");
  add_common_options(*cmd, o->common);
  cmd->add_option("--size", o->size,
                  "auto | paper (5e7 and 1e8 rows) | small (2^20) | tiny (2^14)");
  add_counts(*cmd, "--rows", o->rows, "row counts (overrides --size), list", 1);
  add_counts(*cmd, "--columns", o->columns, "predicate columns per query, list", 1, 1024);
  add_reals(*cmd, "--selectivity", o->selectivities, "fraction of rows selected, list", 0, 1);
  cmd->add_option("--combine", o->combines, "all (AND) and/or any (OR)")->delimiter(',');
  cmd->add_option("--index", o->indexes,
                  "dpbis (codes), sieve (bit vectors), full_scan, cpu_bindex (sieve vectors on "
                  "the CPU, all threads), cpu_scan (the multithreaded CPU reference), bitmap_ops "
                  "(AND / OR / NOT over two bitmaps); diagnostics, one pass timed alone: "
                  "dpbis_select, sieve_select (codes or vectors, no refinement), dpbis_refine, "
                  "sieve_refine (the boundary bins' refinement alone), stream (read-only, "
                  "write-only and copy passes of a bitmap's and of the codes' size); list")
      ->delimiter(',');
  cmd->add_option("--refine", o->refines,
                  "scatter (boundary bins refined after the selection, atomics into the bitmap) "
                  "and/or in_select (the selection pass decides boundary rows from row-ordered "
                  "values; Vulkan only), for dpbis and sieve; list")
      ->delimiter(',');
  add_count(*cmd, "--sieve-bins", o->sieve_bins, "bins (and bit vectors + 1) of the sieve index",
            1);
  cmd->add_option("--backend", o->backend,
                  "auto | vulkan | cuda: who runs DP-BIS's sort, vectors and selections (auto: "
                  "CUDA where available)");
  add_real(*cmd, "--cuda-hold-us", o->cuda_hold_us,
           "CUDA only: hold the stream this long before each timed region starts, so the "
           "host's kernel launches are not timed (0: off)",
           0, 1e6);
  cmd->add_flag("--cuda-flush-l2", o->cuda_flush_l2,
                "CUDA only: write twice the L2 cache's size before each timed region starts, so "
                "no query finds its data in L2 from the one before");
  add_bench_run_options(*cmd, o->run);
  cmd->callback([o] { run(*o); });
}

}  // namespace raydb::cli
