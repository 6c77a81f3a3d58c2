// raydb gen ssb (the SSB tables as dbgen-compatible .tbl files) and raydb ssb (the 13 SSB queries
// on the ray-tracing engine, printed like a SQL shell, optionally checked against SQLite).
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/cli.hpp"
#include "raydb/ssb.hpp"
#include "raydb/ssb_sqlite.hpp"

namespace raydb::cli {

namespace {

struct SsbOptions {
  CommonOptions common;
  double sf = 0.01;
  uint64_t seed = 1;
  std::string query = "all";
  std::string data;
  bool check = false, stats = false;
};

void run_ssb(const SsbOptions& o) {
  // The query names first, so a typo fails before any data is made.
  std::vector<std::string> names;
  if (o.query == "all") {
    names = ssb::query_names();
  } else {
    // A comma-separated list, such as 1.1,2.3,Q4.1.
    size_t start = 0;
    for (;;) {
      size_t comma = o.query.find(',', start);
      names.push_back(ssb::canonical_query_name(o.query.substr(start, comma - start)).value());
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  // A given folder is read before the device opens, so a bad file fails at once.
  ssb::SsbTables tables;
  if (!o.data.empty()) tables = ssb::load_ssb_tbl(o.data).value();
  Context ctx = open_context(o.common).value();
  if (o.data.empty()) {
    ssb::SsbRowCounts n = ssb::ssb_row_counts(o.sf).value();
    ssb::SsbEngine::check_fits(ctx, n.orders * 7).value();  // before spending time generating
    tables = ssb::generate_ssb(o.sf, o.seed).value();
  }
  ssb::SsbEngineOptions eo;
  ssb::SsbEngine engine = ssb::SsbEngine::create(ctx, tables, eo).value();
  std::unique_ptr<ssb::SqliteReference> reference;
  if (o.check)
    reference = std::make_unique<ssb::SqliteReference>(ssb::SqliteReference::load(tables).value());
  int mismatches = 0;
  for (const auto& name : names) {
    ssb::ResultTable r = engine.run(name).value();
    const ssb::SsbQueryStats& s = engine.last_stats();
    std::printf("-- Q%s (%s, %llu rows)\n%s", name.c_str(), to_string(engine.traversal()),
                static_cast<unsigned long long>(engine.rows()), r.format().c_str());
    if (o.stats)
      std::printf(
          "   encode %.1f ms, upload %.2f ms, BVH build %.2f ms (%.1f MiB), trace %.3f ms "
          "(%llu intervals, %llu rays, %llu lanes, %llu rows hit), groups %llu\n",
          s.encode_ms, s.upload_ms, s.bvh_build_ms, s.bvh_bytes / 1048576.0, s.trace_ms,
          static_cast<unsigned long long>(s.intervals), static_cast<unsigned long long>(s.rays),
          static_cast<unsigned long long>(s.lanes), static_cast<unsigned long long>(s.rows_hit),
          static_cast<unsigned long long>(s.groups));
    if (reference) {
      bool same = reference->run(name).value() == r;
      mismatches += !same;
      std::printf("   SQLite: %s\n", same ? "MATCH" : "MISMATCH");
    }
    std::printf("\n");
  }
  if (mismatches)
    throw Error(Errc::internal, fmt::format("{} queries differ from SQLite", mismatches));
}

}  // namespace

void register_gen_ssb(CLI::App& gen) {
  auto sf = std::make_shared<double>(0.01);
  auto seed = std::make_shared<uint64_t>(1);
  auto out = std::make_shared<std::string>("ssb-data");
  auto* cmd = gen.add_subcommand(
      "ssb", "Star Schema Benchmark tables (lineorder, customer, supplier, part, date) as .tbl");
  add_real(*cmd, "--sf", *sf, "scale factor (fractions allowed, such as 0.01)", 1e-4, 1000);
  add_count(*cmd, "--seed", *seed, "seed");
  cmd->add_option("--out", *out, "folder for the .tbl files");
  cmd->callback([sf, seed, out] {
    ssb::SsbTables t = ssb::generate_ssb(*sf, *seed, *out).value();
    std::printf("wrote %s: lineorder %zu, customer %zu, supplier %zu, part %zu, date %zu rows\n",
                out->c_str(), t.lineorder.size(), t.customer.size(), t.supplier.size(),
                t.part.size(), t.date.size());
  });
}

void register_ssb(CLI::App& app) {
  auto o = std::make_shared<SsbOptions>();
  auto* cmd = app.add_subcommand(
      "ssb", "run the Star Schema Benchmark queries as ray-tracing jobs (RTCUDB) and print them");
  add_common_options(*cmd, o->common);
  add_real(*cmd, "--sf", o->sf, "scale factor of generated data (fractions allowed)", 1e-4, 1000);
  add_count(*cmd, "--seed", o->seed, "seed of generated data");
  cmd->add_option("--query", o->query,
                  "1.1 .. 4.3 (or Q1.1), a comma-separated list of them, or all");
  cmd->add_option("--data", o->data, "read the .tbl files of this folder instead of generating");
  cmd->add_flag("--check", o->check, "also run the query on SQLite and compare the whole result");
  cmd->add_flag("--stats", o->stats, "print encode, build and trace times");
  cmd->callback([o] { run_ssb(*o); });
}

}  // namespace raydb::cli
