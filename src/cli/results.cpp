#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <random>

#include "cli/cli.hpp"
#include "cli/numbers.hpp"
#include "common/append_file.hpp"
#include "raydb/optix.hpp"
#include "raydb/version.hpp"

namespace raydb::cli {

void add_common_options(CLI::App& app, CommonOptions& o) {
  app.add_option("--device", o.device,
                 "device index or name substring (default: best; env RAYDB_DEVICE)");
  app.add_option("--traversal", o.traversal, "auto | pipeline | ray_query");
  app.add_flag("--validation", o.validation, "enable the Vulkan validation layer");
  // Through the one count parser: 2^30 and 1e9 work, and negative or trailing text is named.
  add_count(app, "--memory-budget", o.memory_budget,
            "device memory raydb may hold, bytes; past it a build or lookup fails naming "
            "the allocation (default: none; env RAYDB_MEMORY_BUDGET)");
}

namespace {

// RAYDB_MEMORY_BUDGET, bytes; 0 when unset. Digits only: strtoull would take "-1" as 2^64 - 1 and
// ignore trailing text.
Result<uint64_t> memory_budget_from_env() {
  const char* env = std::getenv("RAYDB_MEMORY_BUDGET");
  if (!env || !*env) return uint64_t{0};
  std::string text = env;
  bool digits = text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || (text.size() == 20 && text > "18446744073709551615"))
    return Error(Errc::invalid_argument,
                 fmt::format("RAYDB_MEMORY_BUDGET='{}': expected a number of bytes (digits only)",
                             text.substr(0, 40)));
  return uint64_t{std::strtoull(text.c_str(), nullptr, 10)};
}

}  // namespace

// The library reads no experiment switch from the environment (raydb/diagnostics.hpp); the CLI
// maps the variables of the bench/gpu scripts onto ContextOptions here.
Status options_from_env(ContextOptions& co) {
  for (std::string_view name : kDiagnosticNames) {
    const char* v = std::getenv(std::string(name).c_str());
    if (!v) continue;
    if (Status s = set_diagnostic(co.diagnostics, name, v); !s) return s;
  }
  if (co.memory_budget_bytes == 0) {
    auto budget = memory_budget_from_env();
    if (!budget) return budget.error();
    co.memory_budget_bytes = *budget;
  }
  return {};
}

Result<Context> open_context(const CommonOptions& o, Backend backend) {
  ContextOptions co;
  co.device = o.device;
  co.backend = backend;
  co.validation = o.validation;
  co.memory_budget_bytes = o.memory_budget;
  if (Status s = options_from_env(co); !s) return s.error();
  auto mode = parse_traversal_mode(o.traversal);
  if (!mode) return mode.error();
  co.traversal = *mode;
  return Context::create(co);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string pow2_name(uint64_t n) {
  if (n && (n & (n - 1)) == 0) return fmt::format("2^{}", __builtin_ctzll(n));
  return std::to_string(n);
}

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

void bench_progress(const char* suite, const std::string& line) {
  std::fprintf(stderr, "[%s] %s\n", suite, line.c_str());
  std::fflush(stderr);
}

std::string device_slug(const DeviceInfo& d) {
  std::string s;
  for (char c : d.name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!s.empty() && s.back() != '-')
      s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s.empty() ? "unknown-device" : s;
}

nlohmann::json device_fields(const Context& ctx) {
  const DeviceInfo& d = ctx.device();
  return {{"device", d.name},
          {"device_type", d.type},
          {"driver", d.driver_name},
          {"driver_info", d.driver_info},
          {"driver_version", d.driver_version},
          {"vulkan_api", d.api_version},
          {"api", "vulkan"}};
}

namespace {

// Nine significant digits, which every timing (ns in ms), rate and byte count here needs at most:
// a double printed to round-trip takes 17, and a row must fit one page (common/append_file.hpp).
void round_floats(nlohmann::json& j) {
  if (j.is_number_float()) {
    double v = j.get<double>();
    const std::string text = fmt::format("{:.9g}", v);
    if (std::from_chars(text.data(), text.data() + text.size(), v).ec == std::errc()) j = v;
  } else if (j.is_structured()) {
    for (nlohmann::json& e : j) round_floats(e);
  }
}

}  // namespace

std::string append_results(const std::string& dir, const Context& ctx, const std::string& suite,
                           const std::vector<nlohmann::json>& rows) {
  namespace fs = std::filesystem;
  fs::path folder = fs::path(dir) / device_slug(ctx.device());
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw Error(Errc::io, fmt::format("cannot create {}: {}", folder.string(), ec.message()));
  fs::path file = folder / (suite + ".jsonl");
  // Each line is written whole even under SIGKILL (common/append_file.hpp): a run killed midway
  // leaves whole lines only, never a partial one for tools/report.py to choke on.
  for (nlohmann::json r : rows) {
    round_floats(r);
    detail::append_line(file.string(), r.dump() + '\n');
  }
  return file.string();
}

std::string default_results_dir() {
  namespace fs = std::filesystem;
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg && fs::path(xdg).is_absolute()) return (fs::path(xdg) / "raydb" / "results").string();
  const char* home = std::getenv("HOME");
  if (home && *home) return (fs::path(home) / ".local" / "share" / "raydb" / "results").string();
  return "raydb-results";
}

void add_bench_run_options(CLI::App& cmd, BenchRunOptions& o) {
  add_count(cmd, "--repeats", o.repeats, "timed repeats per configuration (median reported)", 1);
  add_count(cmd, "--warmup", o.warmup, "untimed runs before the repeats");
  cmd.add_flag("--no-check", o.no_check, "do not compare results with the CPU reference");
  cmd.add_flag("--no-save", o.no_save, "do not append results under --out");
  cmd.add_option("--out", o.out, "results folder (a subfolder per device)");
  cmd.add_option("--label", o.label, "free text stored with each result");
  add_count(cmd, "--seed", o.seed, "random seed (default: fresh)");
  add_format_option(cmd, o.format);
}

ApiChoice parse_apis(const Context& ctx, const std::vector<std::string>& apis) {
  ApiChoice c;
  for (const auto& api : apis) {
    if (api == "vulkan")
      c.vulkan = true;
    else if (api == "optix")
      c.optix = true;
    else
      throw Error(Errc::invalid_argument, fmt::format("unknown --api '{}' (vulkan, optix)", api));
  }
  if (c.optix && !optix_support(ctx).available)
    throw Error(Errc::unsupported,
                "--api optix: the OptiX backend is unavailable: " + optix_support(ctx).reason);
  return c;
}

BuildPreference parse_preference(const std::string& s) {
  if (s == "none") return BuildPreference::none;
  if (s == "fast_trace") return BuildPreference::fast_trace;
  if (s == "fast_build") return BuildPreference::fast_build;
  throw Error(Errc::invalid_argument,
              fmt::format("unknown build preference '{}' (none, fast_trace, fast_build)", s));
}

StarGeometry parse_geometry(const std::string& s) {
  if (s == "filter_only") return StarGeometry::filter_only;
  if (s == "value_group") return StarGeometry::value_group;
  throw Error(Errc::invalid_argument,
              fmt::format("unknown geometry '{}' (filter_only, value_group)", s));
}

uint64_t run_seed(const BenchRunOptions& o) {
  return o.seed ? o.seed : std::random_device{}();
}

nlohmann::json result_fields(const Context& ctx, const char* suite, const BenchRunOptions& o) {
  nlohmann::json j = device_fields(ctx);
  j.update({{"suite", suite},
            {"timestamp", now_utc()},
            {"raydb_version", RAYDB_VERSION},
            {"label", o.label},
            {"warmup", o.warmup},
            {"repeats", o.repeats}});
  // The diagnostic switches (docs/optix.md) a row ran under, so that a row says what it measured.
  nlohmann::json diagnostics = nlohmann::json::object();
  for (std::string_view name : kDiagnosticNames) {
    std::string key(name);
    if (const char* v = std::getenv(key.c_str()); v && *v) diagnostics[key] = v;
  }
  if (!diagnostics.empty()) j["diagnostics"] = diagnostics;
  return j;
}

void finish_bench(const Context& ctx, const char* suite, const BenchRunOptions& o,
                  const std::string& title, const std::string& header,
                  const std::vector<std::string>& table, const std::vector<nlohmann::json>& rows) {
  if (o.format == OutputFormat::table) {
    fmt::print("\n{}\n{}\n", title, header);
    for (const auto& line : table) fmt::print("{}\n", line);
  } else {
    fmt::print("{}", render(table_of(rows), o.format));
    std::fflush(stdout);
  }
  if (!o.no_save) {
    std::string path = append_results(o.out, ctx, suite, rows);
    // In csv or json, stdout holds the results alone.
    fmt::print(o.format == OutputFormat::table ? stdout : stderr, "results appended to {}\n", path);
  }
  for (const auto& r : rows)
    if (r.value("checked_result", std::string()).starts_with("MISMATCH"))
      throw Error(
          Errc::internal,
          fmt::format("some {} results differ from the CPU reference (see the table)", suite));
}

}  // namespace raydb::cli
