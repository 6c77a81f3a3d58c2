// StarGeometry: where the ray-tracing star-join plans (raydb::ssb::SsbEngine,
// raydb::sql::SqlEngine) put each fact row's triangle.
#pragma once

namespace raydb {

/// Where a star query's fact row becomes a triangle, in the SSB engine and SqlEngine's
/// ray-tracing plan (docs/ssb.md, "Geometry"). Both give the same answers.
enum class StarGeometry {
  /// Every triangle shares one footprint in X and Y and differs only in its Z (filter) code; the
  /// value and group code are read by primitive index from per-row arrays (8 bytes a row, 12
  /// with more than one group), and the triangles are dropped once the BVH is built. The BVH
  /// then splits only along the rays' axis. On an H100, SSB SF 10 ran 14-113x faster than
  /// value_group, and value_group's Q3.3 never finished on 150 million rows.
  filter_only,
  /// RTCUDB's: X = the aggregated value, Y = the group code, Z = the filter code; the hit reads
  /// value and group back from the triangle's vertices.
  value_group,
};

}  // namespace raydb
