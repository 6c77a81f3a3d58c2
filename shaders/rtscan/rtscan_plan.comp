#version 460
#include "rtscan/rtscan_plan.glsl"

// An RTScan selection planned on the device, so that neither the mapping table nor the sieving
// borders come to the host, in two stages:
// stage 0, one workgroup per predicate: its constants rewritten into the codes it accepts (as
//   EncodedColumn::rewrite, then accepted_interval), by 64-way searches of the column's mapping
//   table (about 5 dependent reads for 10^8 distinct values, against 27 for a binary search: the
//   table is far larger than any cache). The codes replace the predicate in its buffer, which the
//   host rewrites before every selection.
// stage 1, one invocation: the codes intersected per column, the nearest sieving borders (a few
//   hundred int64 at most), the refine boxes and their ray lattices, as RtScanImpl::select and
//   refine_plan.cpp do on the host.
//
// Lattice sizes use fixed point with 24 fraction bits (exact integers in, the table's constants
// rounded so that a lattice never has fewer lines than the exact one needs): the host's doubles
// are not in every device's shaders.
layout(local_size_x = 64) in;

struct PlanColumn {  // RtScanPlanColumn
  uint64_t values;    // distinct values, ascending
  uint64_t lo_codes;  // first code of each
  uint64_t borders;   // sieving borders X_0 .. X_m (int64)
  uint64_t vectors;   // sieving vectors F_1 .. F_{m-1}
  uint distinct;
  uint border_count;  // m + 1
};
struct PlanGroup {  // RtScanPlanGroup
  uint columns[3];
  uint count;
  uint ray_axis;  // 0..2, or 3: the box's longest side
  uint pad;
  uint64_t interval;       // I, rounded down (fixed point)
  uint64_t stride;         // L + S, rounded down
  uint64_t width;          // 2 x half width, rounded up
  uint64_t half_width;     // rounded to nearest
  uint64_t half_interval;  // I / 2, rounded to nearest
};
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer Columns {
  PlanColumn c[];
};
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer Groups {
  PlanGroup g[];
};
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Predicates {
  // in: column, op (CompareOp: lt le gt ge eq between), value, value2; after stage 0: column,
  // the first and last code accepted (first > last: none), 0
  uvec4 p[];
};
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer Words { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer Borders {
  int64_t b[];
};
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Stats {
  uint64_t rays;  // all groups
  uint boxes;
  uint overflow;  // a group needs more than 2^32 - 1 rays
};
struct Interval {
  int64_t lo, hi;  // inclusive; empty when lo > hi
};
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer Scratch {
  Interval t;
  uint constrained;
  uint pad;
};

layout(push_constant, scalar) uniform RtScanPlanParams {
  uint64_t columns;     // PlanColumn per column
  uint64_t groups;      // PlanGroup per group
  uint64_t predicates;  // uvec4 per predicate
  uint64_t out_stats;   // Stats, then RtScanGroupPlan per group, then per column a Scratch
  uint n_columns;
  uint n_groups;
  uint n_predicates;
  uint rows;
  uint stage;
  uint pad;
}
pc;

const uint kFrac = 24u;
const int64_t kMaxKey = 0xFFFFFFFFl;

uint64_t group_plan_address(uint g) { return pc.out_stats + 16ul + uint64_t(g) * 280ul; }
Scratch scratch(uint k) {
  return Scratch(group_plan_address(pc.n_groups) + uint64_t(k) * 24ul);
}

bool is_empty(Interval x) { return x.lo > x.hi; }
Interval meet(Interval x, Interval y) { return Interval(max(x.lo, y.lo), min(x.hi, y.hi)); }
Interval hull(Interval x, Interval y) {
  if (is_empty(x)) return y;
  if (is_empty(y)) return x;
  return Interval(min(x.lo, y.lo), max(x.hi, y.hi));
}

shared uint s_before[64];

// Rows whose value is < v (upper = false) or <= v (upper = true): the first code of the first
// distinct value above the bound, minus one (EncodedColumn::count_less / count_less_equal).
// Called alike by the whole workgroup: 64 probes a round narrow the range 65-fold.
uint64_t count_below(PlanColumn c, uint v, bool upper) {
  Words values = Words(c.values);
  const uint t = gl_LocalInvocationID.x;
  // The answer, the first index whose value is not before the bound, lies in [lo, hi] (hi = d:
  // none); every index below lo is before it.
  uint lo = 0u, hi = c.distinct;
  while (hi - lo > 64u) {
    uint span = hi - lo;
    uint at = lo + uint(uint64_t(span) * uint64_t(t + 1u) / 65ul);
    uint x = values.v[at];
    s_before[t] = (upper ? x <= v : x < v) ? 1u : 0u;
    memoryBarrierShared();
    barrier();
    uint k = 0u;  // probes before the bound: probes 0 .. k - 1
    for (uint i = 0u; i < 64u; ++i) k += s_before[i];
    barrier();  // every invocation has read the flags before the next round writes them
    // Probe j sits at lo + floor(span * (j + 1) / 65): probe k - 1 is before the bound, probe k
    // is not.
    uint last_before = lo + uint(uint64_t(span) * uint64_t(k) / 65ul);
    uint first_after = lo + uint(uint64_t(span) * uint64_t(k + 1u) / 65ul);
    if (k > 0u) lo = last_before + 1u;
    if (k < 64u) hi = first_after;
  }
  uint at = lo + t;
  s_before[t] = 0u;
  if (at < hi) {
    uint x = values.v[at];
    s_before[t] = (upper ? x <= v : x < v) ? 1u : 0u;
  }
  memoryBarrierShared();
  barrier();
  uint k = 0u;
  for (uint i = 0u; i < 64u; ++i) k += s_before[i];
  barrier();
  uint a = lo + k;
  return a == c.distinct ? uint64_t(pc.rows) : uint64_t(Words(c.lo_codes).v[a]) - 1ul;
}

// The codes a predicate on values accepts (EncodedColumn::rewrite, then accepted_interval).
Interval accepted_codes(PlanColumn c, uvec4 p) {
  const Interval none = Interval(1l, 0l);
  uint op = p.y, v = p.z, v2 = p.w;
  if (op == 0u) return Interval(0l, int64_t(count_below(c, v, false)));          // lt
  if (op == 1u) return Interval(0l, int64_t(count_below(c, v, true)));           // le
  if (op == 2u) return Interval(int64_t(count_below(c, v, true)) + 1l, kMaxKey);  // gt
  if (op == 3u) return Interval(int64_t(count_below(c, v, false)) + 1l, kMaxKey); // ge
  if (op == 4u) {  // eq: v's codes, or none when the column does not hold v
    uint64_t below = count_below(c, v, false), upto = count_below(c, v, true);
    return upto > below ? Interval(int64_t(below) + 1l, int64_t(upto)) : none;
  }
  if (v > v2) return none;  // between with crossed bounds
  return Interval(int64_t(count_below(c, v, false)) + 1l, int64_t(count_below(c, v2, true)));
}

// The border index nearest to x (X_0 <= x <= X_m); ties go down (refine_plan.cpp's nearest).
uint nearest(PlanColumn c, int64_t x) {
  Borders b = Borders(c.borders);
  uint lo = 0u, hi = c.border_count;  // first border > x
  while (lo < hi) {
    uint mid = lo + (hi - lo) / 2u;
    if (b.b[mid] <= x)
      lo = mid + 1u;
    else
      hi = mid;
  }
  uint i = lo - 1u;
  if (i + 1u < c.border_count && b.b[i + 1u] - x < x - b.b[i]) ++i;
  return i;
}

// Lattice lines (or segments) over `extent` key units with pitch `step`: floor(extent / step) + 1
// in fixed point, never below the exact count (step rounded down, `extra` rounded up).
uint64_t lines(int64_t extent, uint64_t extra, uint64_t step) {
  return ((uint64_t(extent) << kFrac) + extra) / step + 1ul;
}
// a * b, or 2^32 where that is 2^32 or more (a launch past 2^32 - 1 rays is refused anyway).
uint64_t capped_product(uint64_t a, uint64_t b) {
  const uint64_t cap = 0x100000000ul;
  return a >= cap || b >= cap ? cap : min(a * b, cap);
}
float fixed_to_float(int64_t x) { return float(x) * (1.0 / 16777216.0); }

void rewrite_predicate(uint i) {
  Predicates preds = Predicates(pc.predicates);
  uvec4 p = preds.p[i];
  barrier();  // every invocation has read the predicate before invocation 0 replaces it
  Interval a = accepted_codes(Columns(pc.columns).c[p.x], p);
  if (gl_LocalInvocationID.x == 0u) preds.p[i] = uvec4(p.x, uint(a.lo), uint(a.hi), 0u);
}

void main() {
  if (pc.stage == 0u) {
    rewrite_predicate(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
    return;
  }
  if (gl_WorkGroupID.x + gl_WorkGroupID.y + gl_LocalInvocationID.x != 0u) return;
  Stats stats = Stats(pc.out_stats);
  stats.rays = 0ul;
  stats.boxes = 0u;
  stats.overflow = 0u;
  for (uint k = 0u; k < pc.n_columns; ++k) {
    scratch(k).t = Interval(0l, kMaxKey);
    scratch(k).constrained = 0u;
  }
  Predicates preds = Predicates(pc.predicates);
  for (uint i = 0u; i < pc.n_predicates; ++i) {
    uvec4 p = preds.p[i];  // column, first and last code (stage 0)
    Scratch s = scratch(p.x);
    s.t = meet(s.t, Interval(int64_t(p.y), int64_t(p.z)));
    s.constrained = 1u;
  }
  bool none = false;  // some column accepts no code: every bitmap is empty
  for (uint k = 0u; k < pc.n_columns; ++k) {
    Scratch s = scratch(k);
    s.t = meet(s.t, Interval(1l, int64_t(pc.rows)));
    none = none || is_empty(s.t);
  }
  for (uint gi = 0u; gi < pc.n_groups; ++gi) {
    PlanGroup g = Groups(pc.groups).g[gi];
    RtScanGroupPlan plan = RtScanGroupPlan(group_plan_address(gi));
    plan.empty = 0u;
    plan.boxes = 0u;
    plan.rays = 0u;
    Interval gt[3], ga[3];
    for (uint d = 0u; d < 3u; ++d) {
      plan.upper[d] = 0ul;
      plan.lower[d] = 0ul;
      plan.lo[d] = 0u;
      plan.hi[d] = 0u;
    }
    if (none) {
      plan.empty = 7u;
      continue;
    }
    for (uint d = 0u; d < g.count; ++d) {
      uint k = g.columns[d];
      Scratch s = scratch(k);
      gt[d] = s.t;
      plan.lo[d] = uint(s.t.lo);
      plan.hi[d] = uint(s.t.hi);
      if (s.constrained == 0u) {
        ga[d] = s.t;  // the whole column: nothing to sieve or refine
        continue;
      }
      PlanColumn c = Columns(pc.columns).c[k];
      uint a = nearest(c, s.t.lo), b = nearest(c, s.t.hi + 1l);
      uint m = c.border_count - 1u;
      uint64_t stride = uint64_t((pc.rows + 31u) / 32u) * 4ul;
      if (a >= b) {
        plan.empty |= 1u << d;
        ga[d] = Interval(1l, 0l);
      } else {
        plan.upper[d] = b == m ? 0ul : c.vectors + uint64_t(b - 1u) * stride;
        plan.lower[d] = a == 0u ? 0ul : c.vectors + uint64_t(a - 1u) * stride;
        Borders x = Borders(c.borders);
        ga[d] = Interval(x.b[a], x.b[b] - 1l);
      }
    }
    // Refine boxes (refine_plan.cpp's refine_boxes): for each column d, the pieces of
    // t_d XOR a_d, times t_c AND a_c on earlier columns and the hull on later ones.
    uint64_t rays = 0ul;
    uint boxes = 0u;
    for (uint d = 0u; d < g.count; ++d) {
      Interval x = gt[d], y = ga[d];
      Interval pieces[2];
      uint n_pieces = 0u;
      if (is_empty(x) || is_empty(y) || is_empty(meet(x, y))) {
        if (!is_empty(x)) pieces[n_pieces++] = x;
        if (!is_empty(y)) pieces[n_pieces++] = y;
      } else {
        if (x.lo != y.lo) pieces[n_pieces++] = Interval(min(x.lo, y.lo), max(x.lo, y.lo) - 1l);
        if (x.hi != y.hi) pieces[n_pieces++] = Interval(min(x.hi, y.hi) + 1l, max(x.hi, y.hi));
      }
      for (uint q = 0u; q < n_pieces; ++q) {
        Interval box[3];
        bool empty = false;
        for (uint e = 0u; e < 3u; ++e) {
          box[e] = Interval(0l, 0l);
          if (e >= g.count) continue;
          box[e] = e < d ? meet(gt[e], ga[e]) : e == d ? pieces[q] : hull(gt[e], ga[e]);
          empty = empty || is_empty(box[e]);
        }
        if (empty) continue;
        // The box's lattice (refine_plan.cpp's make_lattice).
        uint axis = g.ray_axis;
        if (axis > 2u) {
          axis = 0u;
          for (uint e = 1u; e < 3u; ++e)
            if (box[e].hi - box[e].lo > box[axis].hi - box[axis].lo) axis = e;
        }
        uint cross0 = axis == 0u ? 1u : 0u, cross1 = axis == 2u ? 1u : 2u;
        uint64_t n0 = lines(box[cross0].hi - box[cross0].lo, 0ul, g.interval);
        uint64_t n1 = lines(box[cross1].hi - box[cross1].lo, 0ul, g.interval);
        uint64_t ns = lines(box[axis].hi - box[axis].lo, g.width, g.stride);
        uint64_t box_rays = capped_product(capped_product(n0, n1), ns);
        vec3 origin;
        origin[cross0] = fixed_to_float((box[cross0].lo << kFrac) + int64_t(g.half_interval));
        origin[cross1] = fixed_to_float((box[cross1].lo << kFrac) + int64_t(g.half_interval));
        origin[axis] = fixed_to_float((box[axis].lo << kFrac) - int64_t(g.half_width));
        plan.box[boxes] = RtScanPlanBox(origin, uint(n0), uint(ns), axis, cross0, uint(rays));
        rays += box_rays;
        ++boxes;
      }
    }
    stats.boxes += boxes;
    stats.rays += rays;
    if (rays > 0xFFFFFFFFul) {  // the launch indexes rays in 32 bits: refine nothing, report it
      stats.overflow = 1u;
      boxes = 0u;
      rays = 0ul;
    }
    plan.boxes = boxes;
    plan.rays = uint(rays);
  }
}
