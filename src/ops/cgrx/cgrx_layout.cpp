// cgRX triangles and markers from the bucket representatives (see cgrx_layout.hpp).
#include "ops/cgrx/cgrx_layout.hpp"

#include <algorithm>

#include "cgrx/cgrx_geometry.h"

namespace raydb::detail {

namespace {

void push_vertex(std::vector<float>& t, float x, float y, float z) {
  t.push_back(x);
  t.push_back(y);
  t.push_back(z);
}

// RX's triangle around (x, y, z): contains the point in its interior, reaches +-1/2 on every
// axis, so a +x ray along the key's own line crosses it at the key point and rays of other lines
// never touch it (its plane x - z = const is crossed by +x rays, never contained in them).
void representative(std::vector<float>& t, uint64_t key) {
  float x = float(rx_part_x(key)), y = float(rx_part_y(key)), z = float(rx_part_z(key));
  push_vertex(t, x - 0.5f, y + 0.5f, z - 0.5f);
  push_vertex(t, x - 0.5f, y - 0.5f, z - 0.5f);
  push_vertex(t, x + 0.5f, y, z + 0.5f);
}

// Row marker of line (y, z): a triangle in the plane y' = y around (-1, y, z), so the +y ray of
// the marker column crosses it head on. It spans x in [-3/2, -1/2] (left of every key triangle,
// x >= -1/2) and z +- 1/2 (away from other planes' marker columns).
void row_marker(std::vector<float>& t, float y, float z) {
  push_vertex(t, -1.5f, y, z - 0.5f);
  push_vertex(t, -0.5f, y, z - 0.5f);
  push_vertex(t, -1.0f, y, z + 0.5f);
}

// Plane marker of plane z: a triangle in the plane z' = z around (-1, -1, z), crossed head on by
// the +z ray of the plane column; it spans y in [-3/2, -1/2], below every row marker (y >= 0).
void plane_marker(std::vector<float>& t, float z) {
  push_vertex(t, -1.5f, -1.5f, z);
  push_vertex(t, -0.5f, -1.5f, z);
  push_vertex(t, -1.0f, -0.5f, z);
}

}  // namespace

CgrxScene cgrx_scene(std::span<const uint64_t> reps) {
  CgrxScene s;
  // Representatives first, then row markers, then plane markers, each in key order: builders that
  // keep input order (lavapipe) then get spatially coherent nodes.
  std::vector<float> rows, planes;
  std::vector<uint32_t> row_buckets, plane_buckets;
  std::vector<uint32_t> gaps;  // per representative: the distance a first ray may need to reach it
  for (uint64_t b = 0; b < reps.size(); ++b) {
    uint64_t key = reps[b];
    bool first_of_key = b == 0 || reps[b - 1] != key;
    if (!first_of_key) continue;
    representative(s.triangles, key);
    s.bucket.push_back(static_cast<uint32_t>(b));
    bool new_line = b == 0 || rx_line(reps[b - 1]) != rx_line(key);
    bool new_plane = b == 0 || rx_part_z(reps[b - 1]) != rx_part_z(key);
    gaps.push_back(new_line ? rx_part_x(key) + 1 : rx_part_x(key) - rx_part_x(reps[b - 1]));
    if (new_line) {
      row_marker(rows, float(rx_part_y(key)), float(rx_part_z(key)));
      row_buckets.push_back(static_cast<uint32_t>(b));
    }
    if (new_plane) {
      plane_marker(planes, float(rx_part_z(key)));
      plane_buckets.push_back(static_cast<uint32_t>(b));
    }
  }
  if (!gaps.empty()) {
    // A lookup in (previous representative, this one] of a line starts its ray at most
    // gap - 1/2 before this one, so a window of `gap` reaches it.
    auto q = gaps.begin() + static_cast<ptrdiff_t>(kRayWindowQuantile * (gaps.size() - 1));
    std::nth_element(gaps.begin(), q, gaps.end());
    s.ray_window = *q >= RX_LINE_LENGTH ? 0u : *q;
  }
  s.representatives = s.bucket.size();
  s.row_markers = row_buckets.size();
  s.plane_markers = plane_buckets.size();
  s.triangles.insert(s.triangles.end(), rows.begin(), rows.end());
  s.triangles.insert(s.triangles.end(), planes.begin(), planes.end());
  s.bucket.insert(s.bucket.end(), row_buckets.begin(), row_buckets.end());
  s.bucket.insert(s.bucket.end(), plane_buckets.begin(), plane_buckets.end());
  return s;
}

}  // namespace raydb::detail
