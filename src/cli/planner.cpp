// raydb calibrate (the planner's cost model, measured on this device; --validate: how often the
// planner picks the fastest index on a held-out grid) and raydb explain (what choose_index picks
// for a workload, and why). docs/planner.md.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include "cli/cli.hpp"
#include "cli/planner.hpp"
#include "raydb/planner.hpp"

namespace raydb::cli {

std::string default_calibration_file() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::string(x) + "/raydb/planner.json";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::string(h) + "/.cache/raydb/planner.json";
  return "raydb-planner.json";
}

uint64_t planner_memory_budget(const CommonOptions& o) {
  ContextOptions co;
  co.memory_budget_bytes = o.memory_budget;
  options_from_env(co).value();
  return co.memory_budget_bytes;
}

void add_calibration_option(CLI::App& cmd, std::string& into) {
  cmd.add_option("--calibration", into,
                 "planner calibration file (JSON, keyed by device and driver; default "
                 "$XDG_CACHE_HOME/raydb/planner.json or ~/.cache/raydb/planner.json)");
}

namespace {

struct CalibrateOptions {
  CommonOptions common;
  BenchRunOptions run;
  std::string calibration = default_calibration_file();
  int scale = 0;
  bool validate = false, skip_calibration = false;
};

struct ExplainOptions {
  CommonOptions common;
  std::string calibration = default_calibration_file();
  uint64_t keys = 0, lookups = 0, range_width = 0;
  double hit_rate = 1.0;
  int key_bits = 32;
  bool sorted = false, lookups_only = false;
};

// The workload's fields of a result line (the names bench rx uses).
nlohmann::json workload_fields(const LookupWorkload& w) {
  return {{"num_keys", w.keys},
          {"key_bits", w.key_width == KeyWidth::bits64 ? 64 : 32},
          {"num_lookups", w.lookups},
          {"lookup_kind", w.range_width ? "range" : "point"},
          {"range_width", w.range_width},
          {"hit_rate", w.hit_rate},
          {"sorted_probes", w.sorted_probes}};
}

// Median of |predicted / measured - 1| over the samples: how well the model fits.
double median_relative_error(const PlannerModel& m, const std::vector<PlannerSample>& samples) {
  std::vector<double> e;
  for (const PlannerSample& s : samples) {
    auto c = choose_index(m, s.workload, false);
    if (!c) continue;
    double p = c->candidates[static_cast<int>(s.index)].lookup_ms;
    e.push_back(std::fabs(p / std::max(s.lookup_ms, 1e-9) - 1.0));
  }
  return e.empty() ? 0 : median(e);
}

// One row per workload and objective: what was predicted, measured and picked.
void validate(const Context& ctx, const CalibrateOptions& o, const PlannerModel& model,
              const MeasureOptions& mo) {
  PlannerGrid grid = validation_grid(o.scale);
  auto t0 = std::chrono::steady_clock::now();
  auto samples = measure_grid(ctx, grid, all_index_kinds(), mo, [](const std::string& line) {
                   bench_progress("planner validate", line);
                 }).value();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Samples of one workload, by index.
  std::map<std::tuple<uint64_t, uint64_t, uint64_t, double, bool>, std::vector<PlannerSample>> by;
  for (const auto& s : samples)
    by[{s.workload.keys, s.workload.lookups, s.workload.range_width, s.workload.hit_rate,
        s.workload.sorted_probes}]
        .push_back(s);
  std::vector<nlohmann::json> rows;
  std::vector<std::string> table;
  int good[2] = {0, 0}, total[2] = {0, 0};
  for (auto& [key, ss] : by) {
    for (int count_build = 0; count_build < 2; ++count_build) {
      auto choice = choose_index(model, ss[0].workload, count_build).value();
      nlohmann::json measured = nlohmann::json::object(), predicted = nlohmann::json::object();
      double best = INFINITY, picked = INFINITY;
      std::string fastest;
      for (const auto& s : ss) {
        double t = s.lookup_ms + (count_build ? s.build_ms : 0.0);
        measured[to_string(s.index)] = t;
        predicted[to_string(s.index)] = choice.candidates[static_cast<int>(s.index)].total_ms;
        if (t < best) best = t, fastest = to_string(s.index);
        if (s.index == choice.index) picked = t;
      }
      const double ratio = picked / best;
      const bool ok = ratio <= 1.10;
      good[count_build] += ok, total[count_build] += 1;
      const LookupWorkload& w = ss[0].workload;
      nlohmann::json r = result_fields(ctx, "planner-validate", o.run);
      r.update(workload_fields(w));
      r.update({{"objective", count_build ? "build+lookups" : "lookups"},
                {"pick", to_string(choice.index)},
                {"fastest", fastest},
                {"pick_over_fastest", ratio},
                {"within_10pct", ok},
                {"measured_ms", measured},
                {"predicted_ms", predicted},
                {"calibration", choice.model_key},
                {"checked_result", "ok"}});
      rows.push_back(r);
      table.push_back(fmt::format("{:<14} {:>8} {:>8} {:>6} {:>5} {:>7} {:>7} {:>8} {:>6.2f} {}",
                                  count_build ? "build+lookups" : "lookups", count_name(w.keys),
                                  count_name(w.lookups), w.range_width, w.hit_rate,
                                  w.sorted_probes ? "sorted" : "random", to_string(choice.index),
                                  fastest, ratio, ok ? "ok" : "MISS"));
    }
  }
  // finish_bench appends to <out>/<device>/planner/validate.jsonl: a subfolder, since the report
  // tooling reads only the device folder's own files.
  std::error_code ec;
  std::filesystem::create_directories(
      std::filesystem::path(o.run.out) / device_slug(ctx.device()) / "planner", ec);
  BenchRunOptions run = o.run;
  std::string title = fmt::format(
      "planner validation on {} ({} held-out workloads, {:.0f} s): pick fastest or within 10% - "
      "lookups alone {}/{} ({:.0f}%), build + lookups {}/{} ({:.0f}%)",
      ctx.device().name, by.size(), secs, good[0], total[0], 100.0 * good[0] / total[0], good[1],
      total[1], 100.0 * good[1] / total[1]);
  finish_bench(ctx, "planner/validate", run, title,
               "objective          keys  lookups  width   hit   order    pick  fastest  ratio",
               table, rows);
}

void run_calibrate(const CalibrateOptions& o) {
  Context ctx = open_context(o.common).value();
  MeasureOptions mo;
  mo.warmup = o.run.warmup;
  mo.repeats = o.run.repeats;
  mo.seed = run_seed(o.run);
  mo.build_repeats = std::max(1, (o.run.repeats + 1) / 2);
  const DeviceInfo& d = ctx.device();
  PlannerModel model;
  if (o.skip_calibration) {
    model = load_planner_model(o.calibration, d.name, planner_driver(d)).value();
  } else {
    auto t0 = std::chrono::steady_clock::now();
    auto samples =
        measure_grid(ctx, calibration_grid(o.scale), all_index_kinds(), mo,
                     [](const std::string& line) { bench_progress("planner calibrate", line); })
            .value();
    model = fit_planner_model(samples, d.name, planner_driver(d)).value();
    model.created = now_utc();
    save_planner_model(o.calibration, model).value();
    // The measurements themselves, beside the validation's: what the fit saw.
    if (!o.run.no_save) {
      std::vector<nlohmann::json> rows;
      for (const PlannerSample& s : samples) {
        nlohmann::json r = result_fields(ctx, "planner-calibrate", o.run);
        r.update(workload_fields(s.workload));
        r.update({{"index", to_string(s.index)},
                  {"build_ms", s.build_ms},
                  {"lookup_ms", s.lookup_ms},
                  {"footprint_bytes", s.footprint_bytes},
                  {"checked_result", "ok"}});
        rows.push_back(r);
      }
      std::error_code ec;
      std::filesystem::create_directories(
          std::filesystem::path(o.run.out) / device_slug(ctx.device()) / "planner", ec);
      append_results(o.run.out, ctx, "planner/calibrate", rows);
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print(
        "calibrated the planner on {} (driver {}): {} measurements in {:.0f} s; median "
        "lookup-time error of the fit {:.0f}%; written to {}\n",
        d.name, planner_driver(d), samples.size(), secs,
        100 * median_relative_error(model, samples), o.calibration);
  }
  if (o.validate) validate(ctx, o, model, mo);
}

void run_explain(const ExplainOptions& o) {
  if (o.key_bits != 32 && o.key_bits != 64)
    throw Error(Errc::invalid_argument,
                fmt::format("--key-bits {}: expected 32 or 64", o.key_bits));
  LookupWorkload w;
  w.keys = o.keys;
  w.key_width = o.key_bits == 64 ? KeyWidth::bits64 : KeyWidth::bits32;
  w.lookups = o.lookups;
  w.range_width = o.range_width;
  w.hit_rate = o.hit_rate;
  w.sorted_probes = o.sorted;
  w.memory_budget_bytes = planner_memory_budget(o.common);
  Context ctx = open_context(o.common).value();
  PlannerOptions po;
  po.calibration_file = o.calibration;
  po.count_build = !o.lookups_only;
  IndexChoice c = choose_index(ctx, w, po).value();
  fmt::print("{}", explain(c));
}

}  // namespace

void register_planner(CLI::App& app) {
  auto c = std::make_shared<CalibrateOptions>();
  auto* cal = app.add_subcommand(
      "calibrate", "measure the key indexes on this device and fit the planner's cost model");
  add_calibration_option(*cal, c->calibration);
  add_count(*cal, "--scale", c->scale,
            "multiply the grid's key and lookup counts by 2^S (0: lavapipe-sized, keys up to "
            "2^18; the held-out grid up to 2^19)",
            0, 12);
  cal->add_flag("--validate", c->validate,
                "then measure a held-out grid, run every index on it, and report how often the "
                "pick is the fastest or within 10% (JSON lines under --out/<device>/planner/)");
  cal->add_flag("--skip-calibration", c->skip_calibration,
                "with --validate: use the calibration file as it is");
  c->run.repeats = 5;
  c->run.warmup = 1;
  add_bench_run_options(*cal, c->run);
  add_common_options(*cal, c->common);
  cal->callback([c] {
    if (c->skip_calibration && !c->validate)
      throw Error(Errc::invalid_argument, "--skip-calibration needs --validate");
    if (c->run.no_check)
      throw Error(Errc::invalid_argument,
                  "--no-check: calibrate always compares its results with the CPU reference "
                  "(a model fitted to wrong answers would be worthless)");
    run_calibrate(*c);
  });

  auto e = std::make_shared<ExplainOptions>();
  auto* ex = app.add_subcommand("explain",
                                "say which key index the planner picks for a workload, and why");
  add_count(*ex, "--keys", e->keys, "keys indexed", 1, (uint64_t{1} << 32) - 2)->required();
  add_count(*ex, "--lookups", e->lookups, "lookups in the batch", 1)->required();
  add_count(*ex, "--range-width", e->range_width, "range lookups [q, q + W - 1]; 0: point lookups");
  add_real(*ex, "--hit-rate", e->hit_rate, "fraction of lookups that match a key", 0, 1);
  add_count(*ex, "--key-bits", e->key_bits, "32 or 64", 32, 64);
  ex->add_flag("--sorted", e->sorted, "the lookups arrive sorted by key");
  ex->add_flag("--lookups-only", e->lookups_only,
               "minimise the lookups alone (an index built once, probed many times)");
  add_calibration_option(*ex, e->calibration);
  add_common_options(*ex, e->common);
  ex->callback([e] { run_explain(*e); });
}

}  // namespace raydb::cli
