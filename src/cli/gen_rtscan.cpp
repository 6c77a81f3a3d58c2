// raydb gen rtscan: the RTScan paper's data and queries as files in the RTScan artifact's layout
// (a column file and a predicate file), so the same inputs can run through raydb and the artifact.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "cli/cli.hpp"
#include "raydb/rtscan_files.hpp"
#include "raydb/rtscan_workload.hpp"
#include "raydb/tpch_scans.hpp"

namespace raydb::cli {

namespace {

struct GenRtscanOptions {
  uint64_t rows = 1u << 20;
  uint32_t columns = 3;
  std::string distribution = "permutation";
  double zipf = 1.1;
  uint64_t seed = 1;
  std::string out = "rtscan-data";
};

void run(const GenRtscanOptions& o) {
  workload::ScanColumnOptions co;
  co.rows = o.rows;
  check_host_memory("--rows", o.rows, 4ull * o.columns, "rows");
  co.distribution = workload::parse_scan_distribution(o.distribution).value();
  co.zipf = o.zipf;
  co.seed = o.seed;
  bench_progress("gen", fmt::format("{} rows x {} columns of {}", co.rows, o.columns,
                                    workload::to_string(co.distribution)));
  auto table = workload::make_scan_table(co, o.columns).value();
  // The sweep's queries: query s puts `lt C` on every column, C selecting a share s of it.
  std::vector<std::vector<workload::LtConstant>> constants;
  for (const auto& column : table)
    constants.push_back(workload::lt_constants_sweep(column).value());
  std::vector<rtscan::Query> queries(constants[0].size());
  for (size_t q = 0; q < queries.size(); ++q)
    for (uint32_t c = 0; c < o.columns; ++c)
      queries[q].push_back({c, CompareOp::lt, constants[c][q].value, 0});
  std::filesystem::create_directories(o.out);
  std::string column_path = (std::filesystem::path(o.out) / "columns.bin").string();
  std::string query_path = (std::filesystem::path(o.out) / "queries.txt").string();
  std::vector<std::span<const uint32_t>> spans(table.begin(), table.end());
  rtscan::write_column_file(column_path, spans).value();
  rtscan::write_query_file(query_path, queries, o.columns).value();
  // Read both back: what was written is what the files say.
  auto columns_back = rtscan::read_column_file(column_path, co.rows, o.columns).value();
  auto queries_back = rtscan::read_query_file(query_path, o.columns).value();
  if (columns_back != table || queries_back != queries)
    throw Error(Errc::internal, "the files read back differ from what was written");
  fmt::print("{}: {} rows x {} columns ({}, little-endian uint32, column after column)\n",
             column_path, co.rows, o.columns, workload::to_string(co.distribution));
  fmt::print("{}: {} queries (`lt` on every column; query s selects a share 0.1 * s of each)\n",
             query_path, queries.size());
}

// One column file and one one-query predicate file per TPC-H scan (Q3, Q6, Q17).
void run_tpch(double sf, uint64_t seed, const std::string& out) {
  bench_progress("gen", fmt::format("TPC-H scan columns at scale factor {}", sf));
  auto scans = workload::tpch_scans(sf, seed).value();
  std::filesystem::create_directories(out);
  for (const auto& s : scans) {
    std::string base = (std::filesystem::path(out) / (s.query + "-" + s.table)).string();
    std::vector<std::span<const uint32_t>> spans(s.columns.begin(), s.columns.end());
    rtscan::write_column_file(base + ".bin", spans).value();
    std::vector<rtscan::Query> query{s.predicates};
    rtscan::write_query_file(base + ".txt", query, static_cast<uint32_t>(s.columns.size())).value();
    fmt::print("{}.bin/.txt: {} {} rows, columns {}\n", base, s.table, s.columns[0].size(),
               fmt::join(s.column_names, ", "));
  }
}

struct ReadRtscanOptions {
  std::string column_file, query_file;
  uint64_t rows = 0;
  uint32_t columns = 3;
};

// Reads the files as `bench` and the artifact would, and says what they hold: a check of files
// made elsewhere (the artifact's, or edited by hand) before a long run.
void run_read(const ReadRtscanOptions& o) {
  if (o.column_file.empty() && o.query_file.empty())
    throw Error(Errc::invalid_argument, "give --column-file and/or --query-file");
  if (!o.column_file.empty()) {
    if (o.rows == 0) throw Error(Errc::invalid_argument, "--column-file needs --rows");
    check_host_memory("--rows", o.rows, 4ull * o.columns, "rows");
    auto cols = rtscan::read_column_file(o.column_file, o.rows, o.columns).value();
    fmt::print("{}: {} rows x {} columns\n", o.column_file, o.rows, cols.size());
  }
  if (!o.query_file.empty()) {
    auto queries = rtscan::read_query_file(o.query_file, o.columns).value();
    fmt::print("{}: {} queries of {} predicates\n", o.query_file, queries.size(), o.columns);
  }
}

}  // namespace

void register_read(CLI::App& app) {
  auto* read =
      app.add_subcommand("read", "read data files and say what they hold (or what is wrong)");
  read->require_subcommand(1);
  auto o = std::make_shared<ReadRtscanOptions>();
  auto* cmd = read->add_subcommand(
      "rtscan", "an RTScan artifact column file and/or predicate file (the layout of gen rtscan)");
  cmd->add_option("--column-file", o->column_file,
                  "little-endian uint32 values, column after column");
  cmd->add_option("--query-file", o->query_file, "predicate file (`lt 5` ..., `exit`)");
  add_count(*cmd, "--rows", o->rows, "rows per column of --column-file", 1);
  add_count(*cmd, "--columns", o->columns, "columns (predicates per query)", 1, 1024);
  cmd->callback([o] { run_read(*o); });
}

void register_gen(CLI::App& app) {
  auto* gen = app.add_subcommand("gen", "write benchmark data sets to files");
  gen->require_subcommand(1);
  auto o = std::make_shared<GenRtscanOptions>();
  auto* cmd = gen->add_subcommand(
      "rtscan", "RTScan's columns and selectivity-sweep queries in the RTScan artifact's layout");
  add_count(*cmd, "--rows", o->rows, "rows per column, e.g. 1e8", 1);
  add_count(*cmd, "--columns", o->columns, "columns", 1, 1024);
  cmd->add_option("--dist", o->distribution,
                  "uniform | zipf | normal | small-range | permutation (the paper's main sweep)");
  add_real(*cmd, "--zipf", o->zipf, "Zipf coefficient (the paper: 1.1, 1.3, 1.5)", 0, 100);
  add_count(*cmd, "--seed", o->seed, "seed (column c uses seed + c)");
  cmd->add_option("--out", o->out, "folder for columns.bin and queries.txt");
  cmd->callback([o] { run(*o); });

  auto sf = std::make_shared<double>(0.01);
  auto tseed = std::make_shared<uint64_t>(1);
  auto tout = std::make_shared<std::string>("tpch-scans");
  auto* tpch = gen->add_subcommand(
      "tpch-scans", "TPC-H Q3, Q6, Q17 predicate columns (spec distributions) and their queries");
  add_real(*tpch, "--sf", *sf, "scale factor (fractions allowed)", 1e-4, 1000);
  add_count(*tpch, "--seed", *tseed, "seed");
  tpch->add_option("--out", *tout, "folder for <query>-<table>.bin and .txt");
  tpch->callback([sf, tseed, tout] { run_tpch(*sf, *tseed, *tout); });
  register_gen_ssb(*gen);
}

}  // namespace raydb::cli
