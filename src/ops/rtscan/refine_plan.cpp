#include "ops/rtscan/refine_plan.hpp"

#include <algorithm>
#include <cmath>

namespace raydb::detail::rtscan {

std::vector<int64_t> sieve_borders(std::span<const uint32_t> lo_codes, uint64_t rows,
                                   uint32_t bins) {
  std::vector<int64_t> b;
  if (rows == 0) return b;
  for (uint64_t i = 0; i < bins; ++i) {
    uint64_t code = i * rows / bins + 1;  // the code at rank i * rows / bins
    // ... moved back to its value's first code
    auto it = std::upper_bound(lo_codes.begin(), lo_codes.end(), code);
    int64_t x = *(it - 1);
    if (b.empty() || x > b.back()) b.push_back(x);
  }
  b.push_back(int64_t(rows) + 1);
  return b;
}

namespace {
// The border index nearest to x (X_0 <= x <= X_m); ties go down.
uint32_t nearest(std::span<const int64_t> borders, int64_t x) {
  auto it = std::upper_bound(borders.begin(), borders.end(), x);  // first border > x
  auto i = static_cast<uint32_t>(it - borders.begin()) - 1;       // X_i <= x
  if (i + 1 < borders.size() && borders[i + 1] - x < x - borders[i]) ++i;
  return i;
}
}  // namespace

std::pair<uint32_t, uint32_t> nearest_borders(std::span<const int64_t> borders, KeyInterval t) {
  return {nearest(borders, t.lo), nearest(borders, t.hi + 1)};
}

namespace {
KeyInterval meet(KeyInterval x, KeyInterval y) {
  return {std::max(x.lo, y.lo), std::min(x.hi, y.hi)};
}
KeyInterval hull(KeyInterval x, KeyInterval y) {
  if (x.empty()) return y;
  if (y.empty()) return x;
  return {std::min(x.lo, y.lo), std::max(x.hi, y.hi)};
}
// x XOR y as at most two intervals.
std::vector<KeyInterval> symmetric_difference(KeyInterval x, KeyInterval y) {
  std::vector<KeyInterval> out;
  if (x.empty() || y.empty() || meet(x, y).empty()) {
    if (!x.empty()) out.push_back(x);
    if (!y.empty()) out.push_back(y);
    return out;
  }
  if (x.lo != y.lo) out.push_back({std::min(x.lo, y.lo), std::max(x.lo, y.lo) - 1});
  if (x.hi != y.hi) out.push_back({std::min(x.hi, y.hi) + 1, std::max(x.hi, y.hi)});
  return out;
}
}  // namespace

// A row differs between the two boxes only if, on its first column d where it is not in
// t_d AND a_d, it lies in t_d XOR a_d (a row outside both t_d and a_d is in neither box); on
// earlier columns it is then in t_c AND a_c, and on later ones in the hull (else it would be in
// neither box).
std::vector<Box> refine_boxes(std::span<const KeyInterval> t, std::span<const KeyInterval> a) {
  std::vector<Box> out;
  size_t g = t.size();
  for (size_t d = 0; d < g; ++d) {
    for (KeyInterval piece : symmetric_difference(t[d], a[d])) {
      Box box;
      for (size_t c = 0; c < 3; ++c) box.axis[c] = {0, 0};
      bool empty = false;
      for (size_t c = 0; c < g; ++c) {
        box.axis[c] = c < d ? meet(t[c], a[c]) : c == d ? piece : hull(t[c], a[c]);
        empty = empty || box.axis[c].empty();
      }
      if (!empty) out.push_back(box);
    }
  }
  return out;
}

Lattice make_lattice(const Box& box, uint32_t ray_axis, double interval, double stride,
                     double half_width) {
  Lattice l;
  if (ray_axis > 2) {
    ray_axis = 0;
    for (uint32_t c = 1; c < 3; ++c)
      if (box.axis[c].hi - box.axis[c].lo > box.axis[ray_axis].hi - box.axis[ray_axis].lo)
        ray_axis = c;
  }
  l.axis = ray_axis;
  l.cross0 = ray_axis == 0 ? 1 : 0;
  l.cross1 = ray_axis == 2 ? 1 : 2;
  auto extent = [&](uint32_t c) { return double(box.axis[c].hi - box.axis[c].lo); };
  l.n_cross0 = static_cast<uint64_t>(std::floor(extent(l.cross0) / interval)) + 1;
  l.n_cross1 = static_cast<uint64_t>(std::floor(extent(l.cross1) / interval)) + 1;
  // Segments must reach from half_width before the box to half_width past it.
  l.n_segments = static_cast<uint64_t>(std::floor((extent(l.axis) + 2 * half_width) / stride)) + 1;
  l.origin[l.cross0] = double(box.axis[l.cross0].lo) + 0.5 * interval;
  l.origin[l.cross1] = double(box.axis[l.cross1].lo) + 0.5 * interval;
  l.origin[l.axis] = double(box.axis[l.axis].lo) - half_width;
  return l;
}

}  // namespace raydb::detail::rtscan
