// The host side of an RTScan query, independent of the GPU: sieving borders, the positive or
// negative choice of approximation per predicate, the refine boxes between the approximate and
// the true box of a group, and the ray lattice that covers a box. Keys are uint32 held in int64 so
// that "past the largest key" and empty intervals need no special values.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace raydb::detail::rtscan {

struct KeyInterval {
  int64_t lo = 0, hi = -1;  // inclusive; empty when lo > hi
  bool empty() const { return lo > hi; }
  bool operator==(const KeyInterval&) const = default;
};

// Borders X_0 < X_1 < ... < X_m of `bins` equal-depth bins over a Uniform-Encoded column of `rows`
// rows whose distinct values start at codes `lo_codes` (ascending, the first is 1): X_i is the code
// at rank floor(i * rows / bins) moved back to the first code of its value, so a value never
// straddles two bins (repeated borders collapse, m <= bins). X_0 = 1, X_m = rows + 1.
std::vector<int64_t> sieve_borders(std::span<const uint32_t> lo_codes, uint64_t rows,
                                   uint32_t bins);

// The approximation of `t` (non-empty, within [X_0, X_m - 1]) by borders: indices (a, b) so that
// rows with X_a <= key < X_b are the approximate set; each end goes to its nearest border (the
// paper's positive selection when the border below is nearer, negative otherwise). a >= b: empty.
std::pair<uint32_t, uint32_t> nearest_borders(std::span<const int64_t> borders, KeyInterval t);

struct Box {
  std::array<KeyInterval, 3> axis;  // axes past the group's columns are [0, 0]
};

// Boxes whose union holds every row whose membership differs between the true box (t per column)
// and the approximate box (a per column): for each column d, the pieces of t_d XOR a_d, times the
// overlap t_c AND a_c on earlier columns and the hull of t_c and a_c on later ones. Boxes may be
// empty only where noted in the .cpp; none is returned empty.
std::vector<Box> refine_boxes(std::span<const KeyInterval> t, std::span<const KeyInterval> a);

// The rays over one box: a lattice of pitch `interval` across the ray axis starting half a pitch
// inside the box, segments of length `segment` every `stride` (= segment + spacing) along it,
// starting half_width before the box. With half_width = (interval + epsilon) / 2, every cube whose
// centre lies in the box is crossed by at least one segment.
struct Lattice {
  uint32_t axis = 2, cross0 = 0, cross1 = 1;
  uint64_t n_cross0 = 0, n_cross1 = 0, n_segments = 0;
  std::array<double, 3> origin{};
  double segment = 0;  // each ray's length when not the table's L (rtindex: the whole range)
  uint64_t rays() const { return n_cross0 * n_cross1 * n_segments; }
};
// ray_axis: 0..2, or 3 to pick the box's longest side.
Lattice make_lattice(const Box& box, uint32_t ray_axis, double interval, double stride,
                     double half_width);

}  // namespace raydb::detail::rtscan
