// raydb::choose_index: the key-lookup planner. Given a workload (key count, lookups, points or
// ranges, hit rate, probe order, memory budget) it predicts each key index's build and lookup
// time from a cost model calibrated on the device (`raydb calibrate`), rules out what cannot run
// (the hash table answers no ranges; a footprint over the memory budget), and picks the fastest
// of the rest. The model is stored as JSON keyed by device and driver; without an entry for the
// context's device, choose_index fails naming the command that makes one (docs/planner.md).
//
// Units: times in milliseconds (host wall clock: what a caller of build() and lookup() waits,
// uploads and downloads included), sizes in bytes. Everything here is a plain value or a free
// function: no shared state; measure_grid() uses the Context as any index does.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/error.hpp"
#include "raydb/keys.hpp"

namespace raydb {

/// The key indexes the planner chooses between.
enum class IndexKind { rx, cgrx, sorted, hash };
/// "rx", "cgrx", "sorted" or "hash".
const char* to_string(IndexKind kind);
/// The inverse of to_string; anything else is Errc::invalid_argument naming the accepted names.
Result<IndexKind> parse_index_kind(std::string_view name);
/// All four, in a fixed order (rx, cgrx, sorted, hash).
std::vector<IndexKind> all_index_kinds();

/// What a batch of key lookups looks like. Keys are assumed unique and spread uniformly over the
/// key width's range, as `raydb calibrate` measures them.
struct LookupWorkload {
  uint64_t keys = 0;                      ///< keys indexed (rows); at least 1
  KeyWidth key_width = KeyWidth::bits32;  ///< 32- or 64-bit keys
  uint64_t lookups = 0;                   ///< lookups in the batch; at least 1
  uint64_t range_width = 0;               ///< 0: point lookups; W >= 1: ranges [lo, lo + W - 1]
  double hit_rate = 1.0;             ///< fraction of lookups with at least one match, in [0, 1]
  bool sorted_probes = false;        ///< lookups arrive sorted by key (ranges by lo)
  uint64_t memory_budget_bytes = 0;  ///< device memory the index may take; 0: no limit
};

/// How choose_index reads its model and what it minimises.
struct PlannerOptions {
  /// The calibration file (JSON, written by `raydb calibrate`). Required: an empty path or a file
  /// without an entry for the context's device and driver is an error naming the command to run.
  std::string calibration_file;
  /// Minimise build + lookups (an index built for this batch, as `raydb lookup` does); false:
  /// lookups alone (an index built once and probed many times).
  bool count_build = true;
};

/// One term of a prediction: what it stands for and the milliseconds it contributes.
struct CostTerm {
  std::string name;  ///< e.g. "per lookup x log2(keys)"
  double ms = 0;     ///< its share of the predicted time
};

/// The planner's view of one index for the workload.
struct CandidateEstimate {
  IndexKind index = IndexKind::rx;  ///< which index
  bool eligible = false;            ///< false: ruled out (see ruled_out)
  std::string ruled_out;            ///< why it cannot serve the workload (empty when eligible)
  double build_ms = 0;              ///< predicted build time
  double lookup_ms = 0;             ///< predicted time of the batch of lookups
  double total_ms = 0;              ///< what is minimised (PlannerOptions::count_build)
  uint64_t footprint_bytes = 0;     ///< predicted device memory (build peak or resident, larger)
  std::vector<CostTerm> terms;      ///< the lookup prediction's terms, largest first
};

/// choose_index's answer: the pick and every candidate's estimate.
struct IndexChoice {
  IndexKind index = IndexKind::rx;  ///< the pick: the eligible candidate of least total_ms
  std::vector<CandidateEstimate> candidates;  ///< rx, cgrx, sorted, hash in that order
  LookupWorkload workload;                    ///< what was planned for
  bool count_build = true;                    ///< PlannerOptions::count_build
  std::string model_key;                      ///< the calibration entry used ("device | driver")
};

/// One fitted linear model: time (or bytes) = sum of coefficient x feature; coefficients >= 0.
struct LinearModel {
  std::vector<double> coef;  ///< one per feature (see docs/planner.md for the features)
};

/// The calibrated cost model of one device and driver.
struct PlannerModel {
  std::string device;   ///< DeviceInfo::name
  std::string driver;   ///< DeviceInfo::driver_version
  std::string created;  ///< when it was measured (ISO 8601), informational
  /// Per index (IndexKind order): build ms = c0 + c1 keys; footprint bytes = c0 + c1 keys;
  /// lookups in four shapes (point/range x random/sorted order), each over the lookup features.
  struct PerIndex {
    LinearModel build;      ///< build milliseconds over (1, keys)
    LinearModel footprint;  ///< bytes over (1, keys)
    /// [range][sorted]: lookup milliseconds; empty coef where the index cannot (hash ranges).
    LinearModel lookup[2][2];
  } index[4];  ///< by IndexKind (rx, cgrx, sorted, hash); empty coefs: not calibrated
  /// The key this model is stored under in a calibration file: "device | driver".
  std::string key() const;
};

/// The driver part of a model's key: DeviceInfo::driver_info (e.g. "580.159.04", "Mesa 25.0.7"),
/// or driver_version where a driver leaves it empty.
std::string planner_driver(const DeviceInfo& device);

/// The model's features of a workload's lookups: 1, lookups, lookups x log2(keys), lookups x
/// expected matching rows per lookup. Exposed for the tests and for `raydb explain`.
std::vector<double> lookup_features(const LookupWorkload& w);
/// The names of lookup_features' entries, for explanations.
const std::vector<std::string>& lookup_feature_names();

/// One measurement: an index built over w.keys keys and probed with w's lookups.
struct PlannerSample {
  LookupWorkload workload;          ///< the workload measured (memory budget unused)
  IndexKind index = IndexKind::rx;  ///< the index measured
  double build_ms = 0;              ///< wall clock of build(), the better of the timed builds
  double lookup_ms = 0;             ///< wall clock of one lookup call, median of the repeats
  uint64_t footprint_bytes = 0;     ///< build peak or resident bytes (the larger), from build_stats
};

/// Fits a model to measurements (non-negative least squares on relative error, per index and
/// lookup shape). Errc::invalid_argument when a shape present in `samples` has fewer distinct
/// workloads than features.
Result<PlannerModel> fit_planner_model(const std::vector<PlannerSample>& samples,
                                       std::string device, std::string driver);

/// The model as a calibration-file entry (a JSON object) and back; parse errors name the field.
std::string planner_model_to_json(const PlannerModel& model);
/// The inverse of planner_model_to_json.
Result<PlannerModel> planner_model_from_json(std::string_view json);
/// Adds (or replaces, by key()) `model` in the calibration file at `path`, creating the file and
/// its folder; Errc::io naming the path when it cannot be read or written.
Status save_planner_model(const std::string& path, const PlannerModel& model);
/// The entry of `path` for `device` and `driver`. Errc::invalid_argument naming `raydb
/// calibrate` when the file is missing or has no such entry (and the entries it has).
Result<PlannerModel> load_planner_model(const std::string& path, std::string_view device,
                                        std::string_view driver);

/// Predicts every index for `w` from `model` and picks (no device work).
Result<IndexChoice> choose_index(const PlannerModel& model, const LookupWorkload& w,
                                 bool count_build = true);
/// Loads the model of ctx's device and driver from options.calibration_file, then as above.
Result<IndexChoice> choose_index(const Context& ctx, const LookupWorkload& w,
                                 const PlannerOptions& options);
/// Why the choice: the pick, each candidate's predicted times and dominant terms, and what was
/// ruled out and why (several lines of text).
std::string explain(const IndexChoice& choice);

/// The workloads a calibration or validation measures: the product of these lists.
struct PlannerGrid {
  std::vector<uint64_t> key_counts;       ///< one key set (and one build per index) each
  std::vector<uint64_t> lookup_counts;    ///< batch sizes
  std::vector<double> hit_rates;          ///< in [0, 1]
  std::vector<uint64_t> range_widths;     ///< 0: point lookups
  std::vector<bool> sorted_orders;        ///< probe orders
  KeyWidth key_width = KeyWidth::bits32;  ///< of every key set
};
/// The default calibration grid; `scale` (log2) multiplies key and lookup counts by 2^scale and
/// divides range widths by it (at least 1), so a range covers about as many keys at every scale
/// (0: lavapipe-sized, keys 2^10..2^18).
PlannerGrid calibration_grid(int scale = 0);
/// A held-out grid: key counts, lookup counts, hit rates and widths none of which the
/// calibration grid uses (keys 2^11..2^19 + 2^scale).
PlannerGrid validation_grid(int scale = 0);

/// How measure_grid times.
struct MeasureOptions {
  int warmup = 1;         ///< untimed lookup calls before the repeats
  int repeats = 5;        ///< timed lookup calls (median)
  int build_repeats = 3;  ///< builds per index and key set (the fastest counts)
  uint64_t seed = 1;      ///< the random keys and lookups
};

/// Measures every index of `indexes` on every workload of `grid` (fresh random unique keys per
/// key count; hits and misses as the hit rate says). Every lookup result is compared whole with
/// the CPU reference (RxReference); a difference is Errc::internal. `progress`, when set, gets
/// one line per key set.
Result<std::vector<PlannerSample>> measure_grid(
    const Context& ctx, const PlannerGrid& grid, const std::vector<IndexKind>& indexes,
    const MeasureOptions& options, const std::function<void(const std::string&)>& progress = {});

}  // namespace raydb
