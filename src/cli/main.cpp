// raydb: the command-line front end (device info, benchmarks).
#include <fmt/format.h>

#include <cstdio>

#include "cli/cli.hpp"

int main(int argc, char** argv) {
  CLI::App app{"raydb: database operators on GPU ray-tracing hardware (Vulkan)"};
  app.set_version_flag("--version", std::string("raydb ") + RAYDB_VERSION);
  app.require_subcommand(1);
  raydb::cli::register_info(app);
  raydb::cli::register_gen(app);
  raydb::cli::register_ssb(app);
  raydb::cli::register_sql(app);
  auto* bench =
      app.add_subcommand("bench", "run a benchmark suite; results go to bench/results/<device>/");
  bench->require_subcommand(1);
  raydb::cli::register_bench_rx(*bench);
  raydb::cli::register_bench_dpbis(*bench);
  raydb::cli::register_bench_join(*bench);
  raydb::cli::register_bench_ssb(*bench);
  raydb::cli::register_bench_rtscan(*bench);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const raydb::Error& e) {
    std::fprintf(stderr, "raydb: error (%s): %s\n", raydb::to_string(e.code()), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "raydb: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
