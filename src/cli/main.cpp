// raydb: the command-line front end (device info, benchmarks).
#include <fmt/format.h>

#include <cstdio>
#include <new>

#include "cli/cli.hpp"
#include "cli/planner.hpp"
#include "common/printable.hpp"
#include "raydb/version.hpp"

namespace {

// CLI11 answers a mistyped command word with "A subcommand is required" (naming nothing); this
// names the word and the commands it could have been. Options come after the command words.
void check_command_words(CLI::App& app, int argc, char** argv) {
  CLI::App* at = &app;
  std::string path = "raydb";
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    auto subs = at->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) return;
    std::string names;
    for (CLI::App* s : subs) names += (names.empty() ? "" : ", ") + s->get_name();
    if (!word.empty() && word[0] == '-') {
      // Before its command an option is either CLI11's own (--help, --version) or a mistake.
      if (word == "-h" || word == "--help" || word == "--version") return;
      throw raydb::Error(raydb::Errc::invalid_argument,
                         fmt::format("option '{}' before a command; after '{}' comes one of: {}",
                                     raydb::detail::printable(word), path, names));
    }
    CLI::App* next = nullptr;
    for (CLI::App* s : subs)
      if (s->check_name(word)) next = s;  // a name or an alias (info: devices)
    if (!next)
      throw raydb::Error(raydb::Errc::invalid_argument,
                         fmt::format("unknown command '{}' after '{}' (expected one of: {})",
                                     raydb::detail::printable(word), path, names));
    at = next;
    path += " " + word;
  }
}

}  // namespace

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
  raydb::cli::register_read(app);
  raydb::cli::register_lookup(app);
  raydb::cli::register_planner(app);
#ifdef RAYDB_HAS_SQL
  raydb::cli::register_sql(app);
#endif
  auto* bench = app.add_subcommand("bench", "run a benchmark suite; results go to --out/<device>/");
  bench->require_subcommand(1);
  raydb::cli::register_bench_rx(*bench);
  raydb::cli::register_bench_dpbis(*bench);
  raydb::cli::register_bench_join(*bench);
  raydb::cli::register_bench_ssb(*bench);
  raydb::cli::register_bench_rtscan(*bench);
  try {
    check_command_words(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // CLI11 would echo an unexpected argument's bytes raw.
    std::fprintf(stderr, "raydb: error: %s\nRun with --help for more information.\n",
                 raydb::detail::printable_message(e.what()).c_str());
    return 2;  // a command line that does not parse (documented in --help and the README)
  } catch (const raydb::Error& e) {
    // Messages quote what the user or a file gave; escaped here once for every message.
    std::fprintf(stderr, "raydb: error (%s): %s\n", raydb::to_string(e.code()),
                 raydb::detail::printable_message(e.what()).c_str());
    return 1;
  } catch (const std::bad_alloc&) {
    // The sizes the options ask for are checked against host memory up front; this is the rest.
    std::fprintf(stderr,
                 "raydb: error (out_of_memory): host memory ran out (std::bad_alloc); try smaller "
                 "sizes (--keys, --lookups, --rows, --build, --probe, --sf)\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "raydb: error: %s\n", raydb::detail::printable_message(e.what()).c_str());
    return 1;
  }
  return 0;
}
