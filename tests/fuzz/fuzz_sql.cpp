// libFuzzer target: the SQL front end without the GPU - parse (libpg_query), bind, plan (RTCUDB's
// encoding) and the per-query GLSL - against a fixed small star schema: SSB's five tables
// (share/ssb/schema.sql, read once) with a few rows each whose keys all resolve. Any input must
// end as a plan or as a raydb::Error other than Errc::internal; anything else thrown (a JSON
// accessor's exception, a std::out_of_range), a sanitizer report or a broken plan invariant is a
// crash.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "raydb/error.hpp"
#include "sql/bind.hpp"
#include "sql/catalog.hpp"
#include "sql/codegen.hpp"
#include "sql/plan.hpp"

namespace {

using namespace raydb::sql::detail;

// Rows per dimension table; the fact table has kFactRows whose foreign keys cycle through them,
// so every join resolves and filters select some rows and not others.
constexpr int kDimRows = 7;
constexpr int kFactRows = 40;

Catalog make_catalog() {
  std::ifstream in(RAYDB_FUZZ_SSB_SCHEMA, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz_sql: cannot read %s\n", RAYDB_FUZZ_SSB_SCHEMA);
    std::abort();
  }
  std::stringstream ss;
  ss << in.rdbuf();
  Catalog cat;
  load_ddl(cat, ss.str(), RAYDB_FUZZ_SSB_SCHEMA);
  static const char* const kWords[] = {"AMERICA",    "ASIA",    "MFGR#12", "MFGR#2221",
                                       "UNITED KI1", "Dec1997", "EUROPE"};
  for (Table& t : cat.tables) {
    bool fact = !t.foreign_keys.empty();
    t.rows = fact ? kFactRows : kDimRows;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      Column& col = t.columns[c];
      const ForeignKey* fk = nullptr;
      for (const ForeignKey& f : t.foreign_keys)
        if (f.column == static_cast<int>(c)) fk = &f;
      for (uint64_t r = 0; r < t.rows; ++r) {
        int64_t v = static_cast<int64_t>((r * 7 + c * 3) % 11);
        if (static_cast<int>(c) == t.primary_key) v = static_cast<int64_t>(r + 1);
        if (fk) v = static_cast<int64_t>(r % kDimRows + 1);
        switch (col.type) {
          case ColType::text:
            col.texts.emplace_back(kWords[static_cast<size_t>(v) % 7]);
            break;
          case ColType::date:
            col.ints.push_back(19920101 + v);
            break;
          default:
            col.ints.push_back(v);
        }
      }
    }
  }
  // Date keys as the dates the fact rows name (d_datekey joins lo_orderdate and lo_commitdate).
  for (Table& t : cat.tables)
    for (const ForeignKey& f : t.foreign_keys) {
      int d = cat.find(f.ref_table);
      if (d < 0) continue;
      Table& dim = cat.tables[static_cast<size_t>(d)];
      int k = dim.find(f.ref_column);
      if (k < 0 || k != dim.primary_key) continue;
      Column& key = dim.columns[static_cast<size_t>(k)];
      Column& fkc = t.columns[static_cast<size_t>(f.column)];
      if (!key.ints.empty() && !fkc.ints.empty())
        for (uint64_t r = 0; r < t.rows; ++r) fkc.ints[r] = key.ints[r % dim.rows];
    }
  return cat;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Catalog cat = make_catalog();
  static PlanCache cache;
  std::string_view sql(reinterpret_cast<const char*>(data), size);
  try {
    Parsed parsed = parse_sql(sql, "<query>");
    BoundQuery q = bind_select(cat, parsed);
    // The geometry from the input's length, so both are planned.
    RtPlan p =
        plan_rt(q, cat, cache,
                size % 2 ? raydb::StarGeometry::value_group : raydb::StarGeometry::filter_only);
    // Invariants the executor relies on.
    if (q.fact < 0 || static_cast<size_t>(q.fact) >= cat.tables.size()) std::abort();
    if (p.rows != cat.tables[static_cast<size_t>(q.fact)].rows) std::abort();
    if (p.vertices.size() != 9 * p.rows) std::abort();
    if (!p.row_groups.empty() && p.row_groups.size() != p.rows) std::abort();
    for (uint32_t g : p.row_groups)
      if (g >= p.group_tuples.size()) std::abort();
    for (const auto& [lo, hi] : p.intervals)
      if (lo > hi || hi >= p.z_codes) std::abort();
    for (const Output& o : q.outputs)
      if ((o.group < 0) == (o.agg < 0) || o.group >= static_cast<int>(q.group.size()) ||
          o.agg >= static_cast<int>(q.aggs.size()))
        std::abort();
    GeneratedShaders g = generate(q, p);
    if (g.any_hit.empty()) std::abort();
  } catch (const raydb::Error& e) {
    // A named refusal is the expected end of most inputs; Errc::internal is what the SQL code
    // turns an unexpected parse-tree shape into, a bug to fix.
    if (e.code() == raydb::Errc::internal) {
      std::fprintf(stderr, "internal error: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
