// Push constants of the RTScan kernels (shaders/rtscan), in the shaders' scalar layout.
#pragma once

#include <cstdint>

namespace raydb::detail {

struct RtScanCubeParams {
  uint64_t keys[3];
  uint64_t boxes;
  uint32_t rows;
  float half_width;
};
static_assert(sizeof(RtScanCubeParams) == 40);

struct RtScanVectorParams {
  uint64_t keys, borders, vectors, items;
  uint32_t words, rows;
};
static_assert(sizeof(RtScanVectorParams) == 40);

struct RtScanSieveParams {
  uint64_t upper[3];
  uint64_t lower[3];
  uint64_t bitmap;
  uint32_t words, rows, columns, empty;
  uint64_t plan;  // the group's RtScanGroupPlan on the device (then upper, lower, empty unused)
};
static_assert(sizeof(RtScanSieveParams) == 80);

struct RtScanRefineParams {
  uint64_t keys[3];
  uint64_t bitmap;
  uint64_t counter;
  uint32_t lo[3];
  uint32_t hi[3];
  float origin[3];
  uint32_t n_cross0, n_cross1, n_segments;
  uint32_t axis, cross0, cross1;
  float interval, segment, stride;
  uint32_t ray_offset, num_rays;
};
static_assert(sizeof(RtScanRefineParams) == 120);

// The device plan (rtscan_plan.comp, rtscan/rtscan_plan.glsl). Per column, what the planner
// reads of its Uniform Encoding and sieve; per group, its columns and lattice constants in fixed
// point with kRtScanPlanFraction fraction bits.
struct RtScanPlanColumn {
  uint64_t values, lo_codes, borders, vectors;
  uint32_t distinct, border_count;
};
static_assert(sizeof(RtScanPlanColumn) == 40);

struct RtScanPlanGroup {
  uint32_t columns[3];
  uint32_t count, ray_axis, pad;
  uint64_t interval, stride, width, half_width, half_interval;
};
static_assert(sizeof(RtScanPlanGroup) == 64);

struct RtScanPlanParams {
  uint64_t columns, groups, predicates, out_stats;
  uint32_t n_columns, n_groups, n_predicates, rows;
  uint32_t stage, pad;  // 0: one workgroup per predicate; 1: the plan
};
static_assert(sizeof(RtScanPlanParams) == 56);

struct RtScanPlanRefineParams {
  uint64_t keys[3];
  uint64_t bitmap, counter, plan;
  float interval, segment, stride;
  uint32_t width;
};
static_assert(sizeof(RtScanPlanRefineParams) == 64);

// What the planner writes: 16 bytes of counts (rays, refine boxes, overflow), one record per
// group, and per column its accepted codes (scratch).
struct RtScanPlanStats {
  uint64_t rays;
  uint32_t boxes, overflow;
};
static_assert(sizeof(RtScanPlanStats) == 16);
inline constexpr uint64_t kRtScanGroupPlanBytes = 280;
inline constexpr uint64_t kRtScanPlanScratchBytes = 24;
inline constexpr int kRtScanPlanFraction = 24;

}  // namespace raydb::detail
