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
  t.aggs = t.counts + 1;
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
layout(push_constant, scalar) uniform Params {
  uint64_t vertices, rays, flags, table;
  float ray_x, ray_y;
  uint ray_offset, num_rays;
} pc;
uint64_t T(uint i) { return U64s(pc.table).v[i]; }
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
  std::string body;
  body += "// Counts one hit row once into its group: side filters, the row flag, the atomics.\n";
  body += "void count_row(uint row) {\n";
  for (size_t i = 0; i < p.side.size(); ++i)
    body += fmt::format(
        "  {{  // {}\n    uint c = U32s(T({}u)).v[row];\n"
        "    if ((U32s(T({}u)).v[c >> 5] & (1u << (c & 31u))) == 0u) return;\n  }}\n",
        p.side[i].name, tl.side + 2 * i, tl.side + 2 * i + 1);
  body +=
      "  uint bit = 1u << (row & 31u);\n"
      "  if ((atomicOr(U32s(pc.flags).v[row >> 5], bit) & bit) != 0u) return;\n"
      "  uint g = uint(Floats(pc.vertices).v[9u * row + 1u]);\n";
  body += fmt::format("  atomicAdd(U32s(T({}u)).v[g], 1u);\n", tl.counts);
  for (size_t i = 0; i < q.aggs.size(); ++i) {
    const Aggregate& a = q.aggs[i];
    if (a.func == AggFunc::count) continue;
    std::string v = static_cast<int>(i) == p.x_agg ? "int64_t(Floats(pc.vertices).v[9u * row])"
                                                   : expr_glsl(a.expr, p.fact_columns, 0);
    uint32_t slot = tl.aggs + static_cast<uint32_t>(i);
    if (a.func == AggFunc::sum || a.func == AggFunc::avg)
      body += fmt::format("  atomicAdd(U64s(T({}u)).v[g], uint64_t({}));\n", slot, v);
    else
      body += fmt::format("  {}(U64s(T({}u)).v[g], uint64_t({}) ^ 0x8000000000000000ul);\n",
                          a.func == AggFunc::min ? "atomicMin" : "atomicMax", slot, v);
  }
  body += "}\n";

  std::string common = std::string(kCommon) + body;
  GeneratedShaders g;
  g.any_hit = "#version 460\n#extension GL_EXT_ray_tracing : require\n" + common +
              "layout(location = 0) rayPayloadInEXT uint unused_payload;\n"
              "void main() {\n  count_row(gl_PrimitiveID);\n  ignoreIntersectionEXT;\n}\n";
  g.raygen = "#version 460\n#extension GL_EXT_ray_tracing : require\n" + std::string(kCommon) +
             "layout(set = 0, binding = 0) uniform accelerationStructureEXT tlas;\n"
             "layout(location = 0) rayPayloadEXT uint unused_payload;\n"
             "void main() {\n"
             "  if (gl_LaunchIDEXT.x >= pc.num_rays) return;\n"
             "  vec3 origin;\n  float tmax;\n"
             "  ray_of(gl_LaunchIDEXT.x + pc.ray_offset, origin, tmax);\n"
             "  traceRayEXT(tlas, gl_RayFlagsSkipClosestHitShaderEXT, 0xFF, 0, 1, 0, origin, 0.0,\n"
             "              vec3(0.0, 0.0, 1.0), tmax, 0);\n}\n";
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
                "  while (rayQueryProceedEXT(rq))\n"
                "    count_row(rayQueryGetIntersectionPrimitiveIndexEXT(rq, false));\n}\n";
  return g;
}

}  // namespace raydb::sql::detail
