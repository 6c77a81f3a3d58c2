#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/capture.hpp"
#include "common/key_sort.hpp"
#include "common/parallel.hpp"
#include "raydb/workload.hpp"

namespace raydb::workload {

const char* to_string(Distribution d) {
  switch (d) {
    case Distribution::uniform:
      return "uniform";
    case Distribution::dense:
      return "dense";
    case Distribution::zipf:
      return "zipf";
  }
  return "?";
}

Result<Distribution> parse_distribution(const std::string& text) {
  if (text == "uniform") return Distribution::uniform;
  if (text == "dense") return Distribution::dense;
  if (text == "zipf") return Distribution::zipf;
  return Error(Errc::invalid_argument,
               fmt::format("unknown distribution '{}' (uniform, dense, zipf)", text));
}

// ---- Zipf ----------------------------------------------------------------------------------

namespace {
double log1p_over_x(double x) {
  return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x / 2.0;
}
double expm1_over_x(double x) {
  return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1.0 + x / 2.0;
}
}  // namespace

ZipfSampler::ZipfSampler(uint64_t n, double s) : n_(std::max<uint64_t>(n, 1)), s_(s) {
  h_integral_x1_ = h_integral(1.5) - 1.0;
  h_integral_n_ = h_integral(static_cast<double>(n_) + 0.5);
  threshold_ = 2.0 - h_integral_inverse(h_integral(2.5) - h(2.0));
}

double ZipfSampler::h(double x) const {
  return std::exp(-s_ * std::log(x));
}

double ZipfSampler::h_integral(double x) const {
  double lx = std::log(x);
  return expm1_over_x((1.0 - s_) * lx) * lx;
}

double ZipfSampler::h_integral_inverse(double x) const {
  double t = x * (1.0 - s_);
  if (t < -1.0) t = -1.0;  // rounding guard
  return std::exp(log1p_over_x(t) * x);
}

uint64_t ZipfSampler::operator()(std::mt19937_64& rng) const {
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  for (;;) {
    double u = h_integral_n_ + u01(rng) * (h_integral_x1_ - h_integral_n_);
    double x = h_integral_inverse(u);
    auto k = static_cast<uint64_t>(x + 0.5);
    k = std::clamp<uint64_t>(k, 1, n_);
    if (static_cast<double>(k) - x <= threshold_ ||
        u >= h_integral(static_cast<double>(k) + 0.5) - h(static_cast<double>(k)))
      return k;
  }
}

// ---- Keys ----------------------------------------------------------------------------------

namespace {
// Seeded bijections of the 32- and 64-bit integers (xor-shift-multiply finalizers; every step is
// invertible), so distinct inputs give distinct keys.
uint32_t mix32(uint32_t x, uint64_t seed) {
  x ^= static_cast<uint32_t>(seed * 0x9E3779B97F4A7C15ull >> 32);
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  x ^= x >> 16;
  return x;
}
uint64_t mix64(uint64_t x, uint64_t seed) {
  x ^= seed * 0x9E3779B97F4A7C15ull;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}
}  // namespace

KeyUniverse::KeyUniverse(KeyWidth width, Distribution layout, uint64_t distinct, uint64_t seed)
    : width_(width),
      layout_(layout == Distribution::dense ? Distribution::dense : Distribution::uniform),
      distinct_(distinct),
      seed_(seed) {}

uint64_t KeyUniverse::member(uint64_t i) const {
  if (layout_ == Distribution::dense) return i;
  return width_ == KeyWidth::bits64 ? mix64(i, seed_) : mix32(static_cast<uint32_t>(i), seed_);
}

uint64_t KeyUniverse::non_members() const {
  uint64_t space = width_ == KeyWidth::bits64 ? ~uint64_t{0} : 0xFFFFFFFFull + 1;
  return space - distinct_;
}

void KeyColumn::push_back(uint64_t k) {
  if (width == KeyWidth::bits64)
    k64.push_back(k);
  else
    k32.push_back(static_cast<uint32_t>(k));
}

void KeyColumn::reserve(size_t n) {
  if (width == KeyWidth::bits64)
    k64.reserve(n);
  else
    k32.reserve(n);
}

Result<KeyWorkload> make_keys(const KeyOptions& o) {
  return detail::capture([&]() -> KeyWorkload {
    if (o.multiplicity == 0) throw Error(Errc::invalid_argument, "multiplicity must be at least 1");
    if (o.width == KeyWidth::bits32 && o.count > 0xFFFFFFFFull)
      throw Error(Errc::invalid_argument, "more than 2^32 keys do not fit 32-bit keys");
    uint64_t distinct = std::max<uint64_t>(1, o.count / o.multiplicity);
    KeyWorkload w{KeyUniverse(o.width, o.distribution, distinct, o.seed), {}, {}};
    w.keys.width = o.width;
    w.keys.reserve(o.count);
    std::mt19937_64 rng(o.seed * 7919 + 13);
    if (o.distribution == Distribution::zipf) {
      ZipfSampler z(distinct, o.zipf);
      for (uint64_t i = 0; i < o.count; ++i) w.keys.push_back(w.universe.member(z(rng) - 1));
    } else {
      std::vector<uint64_t> order(o.count);
      for (uint64_t i = 0; i < o.count; ++i) order[i] = i % distinct;
      std::shuffle(order.begin(), order.end(), rng);
      for (uint64_t r : order) w.keys.push_back(w.universe.member(r));
    }
    w.values.resize(o.count);
    for (uint64_t i = 0; i < o.count; ++i) w.values[i] = static_cast<uint32_t>(2 * w.keys[i] + 1);
    return w;
  });
}

namespace {
// Draws lookup keys: members (uniform or Zipf over ranks) with probability hit_rate, else
// non-members.
std::vector<uint64_t> draw_probe_keys(const KeyUniverse& u, const ProbeOptions& o) {
  if (o.hit_rate < 0.0 || o.hit_rate > 1.0 || std::isnan(o.hit_rate))
    throw Error(Errc::invalid_argument, fmt::format("hit rate {} is not in [0, 1]", o.hit_rate));
  if (o.hit_rate < 1.0 && u.non_members() == 0)
    throw Error(Errc::invalid_argument,
                "the key set fills the whole key space: no misses can be drawn");
  uint64_t miss_space = std::min<uint64_t>(u.non_members(), uint64_t{1} << 62);
  ZipfSampler zipf(u.distinct(), o.zipf);
  std::vector<uint64_t> keys(o.count);
  // Fixed slices with their own seeds: the same keys whatever the number of threads.
  constexpr size_t kSlice = 1 << 16;
  detail::parallel_for((o.count + kSlice - 1) / kSlice, [&](size_t slice) {
    std::mt19937_64 rng(o.seed * 104729 + 7 + slice * 0x9E3779B97F4A7C15ull);
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    std::uniform_int_distribution<uint64_t> any_member(0, u.distinct() - 1);
    std::uniform_int_distribution<uint64_t> any_miss(0, miss_space == 0 ? 0 : miss_space - 1);
    size_t end = std::min<size_t>(o.count, (slice + 1) * kSlice);
    for (size_t i = slice * kSlice; i < end; ++i) {
      if (coin(rng) < o.hit_rate)
        keys[i] = u.member(o.distribution == Distribution::zipf ? zipf(rng) - 1 : any_member(rng));
      else
        keys[i] = u.non_member(any_miss(rng));
    }
  });
  if (o.sorted) detail::sort_keys_with_rows(keys, static_cast<std::vector<uint32_t>*>(nullptr));
  return keys;
}
}  // namespace

Result<KeyColumn> make_point_probes(const KeyUniverse& u, const ProbeOptions& o) {
  return detail::capture([&]() -> KeyColumn {
    KeyColumn c;
    c.width = u.width();
    c.reserve(o.count);
    for (uint64_t k : draw_probe_keys(u, o)) c.push_back(k);
    return c;
  });
}

Result<RangeColumn> make_range_probes(const KeyUniverse& u, const ProbeOptions& o) {
  return detail::capture([&]() -> RangeColumn {
    if (o.range_width == 0) throw Error(Errc::invalid_argument, "range width must be at least 1");
    RangeColumn c;
    c.width = u.width();
    uint64_t max_key = u.width() == KeyWidth::bits64 ? ~uint64_t{0} : 0xFFFFFFFFull;
    for (uint64_t lo : draw_probe_keys(u, o)) {
      // Saturates at the largest key; a width past the key space once wrapped (lo > hi).
      uint64_t hi = o.range_width - 1 > max_key - lo ? max_key : lo + (o.range_width - 1);
      if (u.width() == KeyWidth::bits64)
        c.r64.push_back({lo, hi});
      else
        c.r32.push_back({static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)});
    }
    return c;
  });
}

}  // namespace raydb::workload
