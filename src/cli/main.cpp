// raydb: the command-line front end (device info, benchmarks).
#include <fmt/format.h>

#include <cstdio>

#include "cli/cli.hpp"
#include "raydb/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"raydb: database operators on GPU ray-tracing hardware (Vulkan)"};
  app.set_version_flag("--version",
                       fmt::format("raydb {} (CUDA backend {}, OptiX backend {})", raydb::version,
                                   raydb::built_with_cuda ? "built" : "not built",
                                   raydb::built_with_optix ? "built" : "not built"));
  // Every option's help shows its default.
  app.option_defaults()->always_capture_default();
  app.footer(
      "Exit codes: 0 success; 1 an error (no usable device, a file that cannot be read or "
      "written, a value out of range, or results that differ from the CPU or SQLite reference), "
      "with its cause on stderr; 2 a command line that does not parse.\n"
      "Benchmark results: " +
      raydb::cli::default_results_dir() + "/<device>/<suite>.jsonl unless --out says otherwise.");
  app.require_subcommand(1);
  raydb::cli::register_info(app);
  raydb::cli::register_gen(app);
  raydb::cli::register_ssb(app);
  auto* bench = app.add_subcommand("bench", "run a benchmark suite; results go to --out/<device>/");
  bench->require_subcommand(1);
  raydb::cli::register_bench_rx(*bench);
  raydb::cli::register_bench_dpbis(*bench);
  raydb::cli::register_bench_join(*bench);
  raydb::cli::register_bench_ssb(*bench);
  raydb::cli::register_bench_rtscan(*bench);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);  // prints help, the version, or what did not parse
    return rc == 0 ? 0 : 2;
  } catch (const raydb::Error& e) {
    std::fprintf(stderr, "raydb: error (%s): %s\n", raydb::to_string(e.code()), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "raydb: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
