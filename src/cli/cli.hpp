// Pieces shared by the raydb subcommands.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/numbers.hpp"  // every count, size and fraction of the command line
#include "cli/output.hpp"   // --format
#include "raydb/context.hpp"
#include "raydb/lookup.hpp"  // BuildPreference
#include "raydb/star_geometry.hpp"

namespace raydb::cli {

struct CommonOptions {
  std::string device;
  std::string traversal = "auto";
  bool validation = false;
  uint64_t memory_budget = 0;  // ContextOptions::memory_budget_bytes; 0: none
};

void add_common_options(CLI::App& app, CommonOptions& o);
// backend: ContextOptions::backend, who runs the kernels of operators without a backend of their
// own (bitmap algebra).
Result<Context> open_context(const CommonOptions& o, Backend backend = Backend::automatic);
// Fills co's diagnostics (raydb/diagnostics.hpp) from the environment variables of their names,
// and memory_budget_bytes, when 0, from RAYDB_MEMORY_BUDGET; a malformed value is named.
Status options_from_env(ContextOptions& co);

void register_info(CLI::App& app);
void register_bench_rx(CLI::App& bench);
void register_bench_dpbis(CLI::App& bench);
void register_bench_join(CLI::App& bench);
void register_bench_ssb(CLI::App& bench);
void register_bench_rtscan(CLI::App& bench);
void register_gen(CLI::App& app);
void register_gen_ssb(CLI::App& gen);
void register_ssb(CLI::App& app);
void register_read(CLI::App& app);  // raydb read rtscan
void register_sql(CLI::App& app);
void register_lookup(CLI::App& app);

// Shared by the bench suites.
double median(std::vector<double> v);
std::string pow2_name(uint64_t n);  // "2^20" for powers of two, else the number
std::string now_utc();              // ISO 8601
void bench_progress(const char* suite, const std::string& line);  // to stderr
// GB/s of a device-to-device copy of `bytes`, counting bytes read and written: the memory
// ceiling memory-bound kernels are compared with.
double copy_bandwidth_gbps(const Context& ctx, uint64_t bytes);
// GPU ms (Vulkan timestamps, median of 5 after a warm-up) of one read-only pass over `bytes`
// (rounded down to 16, at least 16), one write-only pass and one copy (bytes read and written),
// each a compute dispatch of 16 bytes per invocation timed alone: what one memory-bound pass of
// this size can reach, ramp-up and tail included, in each direction.
struct StreamTimes {
  uint64_t bytes = 0;
  double read_ms = 0, write_ms = 0, copy_ms = 0;
};
StreamTimes stream_times(const Context& ctx, uint64_t bytes);

// --prefer: none | fast_trace | fast_build; anything else is Errc::invalid_argument.
BuildPreference parse_preference(const std::string& s);
// --geometry: filter_only | value_group (the star-join triangles); else Errc::invalid_argument.
StarGeometry parse_geometry(const std::string& s);

// <results>/<device>/ : a file-system-safe name for the device, e.g. "nvidia-h100-80gb-hbm3".
std::string device_slug(const DeviceInfo& d);
// The device, driver and API fields every result line carries.
nlohmann::json device_fields(const Context& ctx);
// Appends one JSON object per line to <dir>/<device>/<suite>.jsonl; returns the path.
std::string append_results(const std::string& dir, const Context& ctx, const std::string& suite,
                           const std::vector<nlohmann::json>& rows);

// Where benchmark results go without --out: $XDG_DATA_HOME/raydb/results (by default
// ~/.local/share/raydb/results), or ./raydb-results where neither XDG_DATA_HOME nor HOME is set.
// Never inside the source tree, so a benchmark run leaves `git status` clean; the repository's
// bench/results/ is written only by scripts that pass --out.
std::string default_results_dir();

// The options every bench suite takes: timing repeats, checking, and where results go.
struct BenchRunOptions {
  int repeats = 5, warmup = 2;
  bool no_check = false, no_save = false;
  std::string out = default_results_dir();
  std::string label;
  uint64_t seed = 0;                          // 0: a fresh one per run
  OutputFormat format = OutputFormat::table;  // of the summary on stdout
};
void add_bench_run_options(CLI::App& cmd, BenchRunOptions& o);
// --seed, or a fresh random seed.
uint64_t run_seed(const BenchRunOptions& o);
// The --api list of a suite with an OptiX twin: which APIs run. An unknown name is
// Errc::invalid_argument; optix where the backend is unavailable is Errc::unsupported, naming why.
struct ApiChoice {
  bool vulkan = false, optix = false;
};
ApiChoice parse_apis(const Context& ctx, const std::vector<std::string>& apis);
// The fields every result line of a suite starts with: device, suite, time, version, label,
// warm-up and repeats.
nlohmann::json result_fields(const Context& ctx, const char* suite, const BenchRunOptions& o);
// Prints the table under its title and header (--format table), or the result rows themselves
// as csv or json (the fields of the saved JSON lines, one row each, nothing else on stdout),
// appends the rows (unless --no-save), and fails when any row's checked_result says MISMATCH.
void finish_bench(const Context& ctx, const char* suite, const BenchRunOptions& o,
                  const std::string& title, const std::string& header,
                  const std::vector<std::string>& table, const std::vector<nlohmann::json>& rows);

}  // namespace raydb::cli
