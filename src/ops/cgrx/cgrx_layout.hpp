// The cgRX scene on the host: from the bucket representatives (each bucket's largest key, in key
// order) to the triangles of the BLAS and, per triangle, the bucket a ray that hits it lands in.
// Representatives use the RX triangle at their RX coordinates; markers sit at x = -1
// (shaders/cgrx/cgrx_geometry.h). Input size is n / bucket_size, so this stays off the GPU.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace raydb::detail {

struct CgrxScene {
  std::vector<float> triangles;  // 9 floats per primitive: three vertices (x, y, z)
  std::vector<uint32_t> bucket;  // per primitive: the bucket its hit names
  uint64_t representatives = 0, row_markers = 0, plane_markers = 0;
  // The first ray's length (cgrx_geometry.h): the gap before a representative on its line (from
  // the previous one, or from the line's start), at the kRayWindowQuantile of all gaps; 0 (one
  // ray to the line's end) when that is a whole line.
  uint32_t ray_window = 0;
  uint64_t primitives() const { return bucket.size(); }
};

// `reps[b]` is bucket b's largest key; non-decreasing. Of buckets sharing a representative only
// the first is mapped: the first key >= q then lies in the bucket the rays name. Each non-empty
// line gets a row marker and each non-empty plane a plane marker, naming the bucket of the first
// representative on it.
CgrxScene cgrx_scene(std::span<const uint64_t> reps);

// Share of lookups whose first ray, ray_window long, reaches their line's next representative
// (the rest cast one more ray): most lookups pay for a short ray, a few outliers for two.
inline constexpr double kRayWindowQuantile = 0.999;

}  // namespace raydb::detail
