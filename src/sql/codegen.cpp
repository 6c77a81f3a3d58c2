// Per-query GLSL: RTCUDB's Algorithm 1 specialized to the query (see codegen.hpp).
#include "sql/codegen.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace raydb::sql::detail {

TableLayout table_layout(const BoundQuery& q, const RtPlan& p) {
  TableLayout t;
  t.columns = 0;
  t.side = static_cast<uint32_t>(p.fact_columns.size());
  t.counts = t.side + 2 * static_cast<uint32_t>(p.side.size());
  t.groups = t.counts + 1;
  t.aggs = t.groups + 1;
  t.size = t.aggs + static_cast<uint32_t>(q.aggs.size());
  return t;
}

namespace {

const char* kCommon = R"(#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_atomic_int64 : require
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer Floats { float v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer Rays { uvec2 z[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32s { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer I64s { int64_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer U64s { uint64_t v[]; };
// Read only, so that no atomic on a U32s or U64s can alias it: the compiler may keep an address
// it has read in a register instead of reading it again after every atomic of a hit.
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer Addresses { uint64_t v[]; };
layout(push_constant, scalar) uniform Params {
  uint64_t vertices, rays, flags, table;
  float ray_x, ray_y;
  uint ray_offset, num_rays;
} pc;
uint64_t T(uint i) { return Addresses(pc.table).v[i]; }
// The ray of launch index `ray`: along +Z from half a code below its first Z code to half a code
// past its last (triangles sit on integer codes below 2^23, so both ends are exact).
void ray_of(uint ray, out vec3 origin, out float tmax) {
  uvec2 z = Rays(pc.rays).z[ray];
  origin = vec3(pc.ray_x, pc.ray_y, float(z.x) - 0.5);
  tmax = float(z.y - z.x) + 1.0;
}
)";

}  // namespace

std::string expr_glsl(const Expr& e, const std::vector<int>& fact_columns, int scale_up) {
  std::string s;
  if (e.op == 'c') {
    auto slot =
        std::find(fact_columns.begin(), fact_columns.end(), e.column) - fact_columns.begin();
    s = fmt::format("I64s(T({}u)).v[row]", slot);
  } else if (e.op == 'k') {
    s = fmt::format("int64_t({}l)", e.value);
  } else {
    int ka = e.op == '*' ? 0 : e.scale - e.kids[0].scale;
    int kb = e.op == '*' ? 0 : e.scale - e.kids[1].scale;
    s = fmt::format("({} {} {})", expr_glsl(e.kids[0], fact_columns, ka), e.op,
                    expr_glsl(e.kids[1], fact_columns, kb));
  }
  int64_t mul = 1;
  for (int i = 0; i < scale_up; ++i) mul *= 10;
  return mul == 1 ? s : fmt::format("({} * int64_t({}l))", s, mul);
}

GeneratedShaders generate(const BoundQuery& q, const RtPlan& p) {
  TableLayout tl = table_layout(q, p);
  // The ray's run: the rows it counted for one group and not yet added to the group's atomics.
  // As in the SSB engine (ssb/ssb_trace.h), consecutive hits of one group cost one atomic per
  // aggregate; Q1.x's single group would otherwise take every row's atomics on one address.
  // Per aggregate the run holds a partial sum (wrapping, so the order of additions does not
  // change it), minimum or maximum; COUNT is the run's count.
  std::string fields, start, add, flush;
  // The row's group: Y (value_group), the side array (filter_only), or the only group's 0.
  std::string group_read = !p.row_groups.empty() ? fmt::format("U32s(T({}u)).v[row]", tl.groups)
                           : p.geometry == StarGeometry::filter_only
                               ? std::string("0u")
                               : std::string("uint(Floats(pc.vertices).v[9u * row + 1u])");
  for (size_t i = 0; i < q.aggs.size(); ++i) {
    const Aggregate& a = q.aggs[i];
    if (a.func == AggFunc::count) continue;
    std::string v = static_cast<int>(i) == p.x_agg ? "int64_t(Floats(pc.vertices).v[9u * row])"
                                                   : expr_glsl(a.expr, p.fact_columns, 0);
    uint32_t slot = tl.aggs + static_cast<uint32_t>(i);
    fields += fmt::format("  int64_t a{};\n", i);
    if (a.func == AggFunc::sum || a.func == AggFunc::avg) {
      start += fmt::format("  run.a{} = int64_t(0);\n", i);
      add += fmt::format("  run.a{} += {};\n", i, v);
      flush += fmt::format("  atomicAdd(U64s(T({}u)).v[run.group], uint64_t(run.a{}));\n", slot, i);
    } else {
      bool mn = a.func == AggFunc::min;
      start += fmt::format("  run.a{} = int64_t({});\n", i,
                           mn ? "0x7FFFFFFFFFFFFFFFl" : "0x8000000000000000l");
      add += fmt::format("  run.a{0} = {1}(run.a{0}, {2});\n", i, mn ? "min" : "max", v);
      flush += fmt::format(
          "  {}(U64s(T({}u)).v[run.group], uint64_t(run.a{}) ^ 0x8000000000000000ul);\n",
          mn ? "atomicMin" : "atomicMax", slot, i);
    }
  }
  std::string body =
      "struct Run {\n  uint group;  // 0xFFFFFFFF: none yet\n  uint count;\n" + fields + "};\n";
  body += "void run_start(inout Run run) {\n  run.group = 0xFFFFFFFFu;\n  run.count = 0u;\n" +
          start + "}\n";
  body += "void run_flush(inout Run run) {\n  if (run.count == 0u) return;\n" +
          fmt::format("  atomicAdd(U32s(T({}u)).v[run.group], run.count);\n", tl.counts) + flush +
          "  uint group = run.group;\n  run_start(run);\n  run.group = group;\n}\n";
  body += "// Counts one hit row once into the ray's run: side filters, the row flag, the run.\n";
  body += "void count_row(uint row, inout Run run) {\n";
  for (size_t i = 0; i < p.side.size(); ++i)
    body += fmt::format(
        "  {{  // {}\n    uint c = U32s(T({}u)).v[row];\n"
        "    if ((U32s(T({}u)).v[c >> 5] & (1u << (c & 31u))) == 0u) return;\n  }}\n",
        p.side[i].name, tl.side + 2 * i, tl.side + 2 * i + 1);
  body +=
      "  uint bit = 1u << (row & 31u);\n"
      "  if ((atomicOr(U32s(pc.flags).v[row >> 5], bit) & bit) != 0u) return;\n"
      "  uint g = " +
      group_read +
      ";\n"
      "  if (g != run.group) {\n    run_flush(run);\n    run.group = g;\n  }\n"
      "  run.count += 1u;\n";
  body += add + "}\n";

  std::string common = std::string(kCommon) + body;
  GeneratedShaders g;
  g.any_hit = "#version 460\n#extension GL_EXT_ray_tracing : require\n" + common +
              "layout(location = 0) rayPayloadInEXT Run run;\n"
              "void main() {\n  count_row(gl_PrimitiveID, run);\n  ignoreIntersectionEXT;\n}\n";
  // The ray generation shader starts the ray's run and adds its last one.
  g.raygen = "#version 460\n#extension GL_EXT_ray_tracing : require\n" + common +
             "layout(set = 0, binding = 0) uniform accelerationStructureEXT tlas;\n"
             "layout(location = 0) rayPayloadEXT Run run;\n"
             "void main() {\n"
             "  if (gl_LaunchIDEXT.x >= pc.num_rays) return;\n"
             "  vec3 origin;\n  float tmax;\n"
             "  ray_of(gl_LaunchIDEXT.x + pc.ray_offset, origin, tmax);\n"
             "  run_start(run);\n"
             "  traceRayEXT(tlas, gl_RayFlagsSkipClosestHitShaderEXT, 0xFF, 0, 1, 0, origin, 0.0,\n"
             "              vec3(0.0, 0.0, 1.0), tmax, 0);\n"
             "  run_flush(run);\n}\n";
  g.miss = "#version 460\n#extension GL_EXT_ray_tracing : require\nvoid main() {}\n";
  g.closest_hit = g.miss;
  g.intersection = g.miss;
  g.ray_query = "#version 460\n#extension GL_EXT_ray_query : require\n" + common +
                "layout(local_size_x = 64) in;\n"
                "layout(set = 0, binding = 0) uniform accelerationStructureEXT tlas;\n"
                "void main() {\n"
                "  uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u +"
                " gl_LocalInvocationID.x;\n"
                "  if (local >= pc.num_rays) return;\n"
                "  vec3 origin;\n  float tmax;\n"
                "  ray_of(local + pc.ray_offset, origin, tmax);\n"
                "  rayQueryEXT rq;\n"
                "  rayQueryInitializeEXT(rq, tlas, gl_RayFlagsNoneEXT, 0xFF, origin, 0.0,"
                " vec3(0.0, 0.0, 1.0), tmax);\n"
                "  Run run;\n  run_start(run);\n"
                "  while (rayQueryProceedEXT(rq))\n"
                "    count_row(rayQueryGetIntersectionPrimitiveIndexEXT(rq, false), run);\n"
                "  run_flush(run);\n}\n";
  return g;
}

}  // namespace raydb::sql::detail
