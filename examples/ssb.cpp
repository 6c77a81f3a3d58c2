// One Star Schema Benchmark query from dbgen-style .tbl files, answered by ray tracing
// (`raydb ssb --check` compares every query with SQLite):
//   raydb gen ssb --sf 0.01 --out ssb-tables     (or dbgen's own output)
//   ./ssb ssb-tables 2.1
#include <raydb/context.hpp>
#include <raydb/ssb.hpp>
#include <raydb/ssb_data.hpp>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <folder with lineorder.tbl ...> <query: 1.1 .. 4.3>\n",
                 argv[0]);
    return 2;
  }
  try {
    raydb::Context ctx = raydb::Context::create().value();
    raydb::ssb::SsbTables tables = raydb::ssb::load_ssb_tbl(argv[1]).value();
    // The engine joins the five tables into one flat table once; each query then builds its own
    // BVH (one triangle per row) and traces rays over its filter's intervals.
    raydb::ssb::SsbEngine engine = raydb::ssb::SsbEngine::create(ctx, tables).value();
    raydb::ssb::ResultTable result = engine.run(argv[2]).value();
    std::printf("%s", result.format().c_str());
    const raydb::ssb::SsbQueryStats& s = engine.last_stats();
    std::printf("%llu rows, %llu rays; BVH build %.2f ms, trace %.2f ms (%s)\n",
                static_cast<unsigned long long>(s.rows), static_cast<unsigned long long>(s.rays),
                s.bvh_build_ms, s.trace_ms, ctx.device().name.c_str());

    if (ctx.validation_messages() != 0) {  // RAYDB_VALIDATION=1 turns the layer on
      std::fprintf(stderr, "ssb: %llu validation messages\n",
                   static_cast<unsigned long long>(ctx.validation_messages()));
      return 1;
    }
  } catch (const raydb::Error& e) {
    std::fprintf(stderr, "ssb: error (%s): %s\n", raydb::to_string(e.code()), e.what());
    return 1;
  }
  return 0;
}
