// DP-BIS and sieving: the twins of shaders/dpbis/dpbis_{vectors,sieve_select,select,candidates,
// select_exact,sieve_exact}.
#include "backend/cuda/grid.cuh"
#include "ops/dpbis/cuda/dpbis_kernels.hpp"

namespace raydb::detail::cuda::kernels {

namespace {

// The selection passes run in blocks of 64 threads with 32-bit indices, as their Vulkan twins
// (local_size_x = 64; word indices below 2^27 for 2^32 rows). Each thread moves 32-36 bytes and
// does ~80 integer operations, close to the H100's integer rate at its memory rate, so the index
// arithmetic is kept as short as the twin's.
constexpr uint32_t kSelectBlock = 64;

inline unsigned select_blocks(uint64_t items) {
  return static_cast<unsigned>((items + kSelectBlock - 1) / kSelectBlock);
}

__device__ inline uint32_t select_index() {
  return blockIdx.x * kSelectBlock + threadIdx.x;
}

__global__ void vectors_kernel(const uint32_t* codes, uint32_t* vectors, uint32_t rows,
                               uint32_t words, uint32_t bins, uint32_t stride) {
  uint64_t i = thread_index();
  if (i >= uint64_t{bins - 1} * stride) return;
  uint32_t k = static_cast<uint32_t>(i / stride) + 1u;
  uint32_t word = static_cast<uint32_t>(i % stride);
  uint32_t bits = 0u;
  if (word < words) {
    for (uint32_t j = 0u; j < 8u; ++j) {
      uint32_t w = codes[uint64_t{word} * 8u + j];
      for (uint32_t b = 0u; b < 4u; ++b) {
        uint32_t r = b * 8u + j;  // byte b of the group's word j: row 8 b + j (dpbis_params.hpp)
        if (uint64_t{word} * 32u + r < rows && ((w >> (8u * b)) & 0xFFu) < k) bits |= 1u << r;
      }
    }
  }
  vectors[i] = bits;  // padding words (word >= words) are 0
}

// The bits of word i that are rows (none for the padding words past the last row).
__device__ inline uint32_t valid_bits(uint32_t i, uint32_t rows) {
  if (uint64_t{i} * 32u >= rows) return 0u;
  uint32_t valid = rows - i * 32u;
  return valid >= 32u ? 0xFFFFFFFFu : ((1u << valid) - 1u);
}

// kStream: loaded evict-first (__ldcs), so that what the query's other passes read stays in L2.
template <bool kStream = false>
__device__ inline uint4 vector_words(const uint32_t* vectors, int32_t k, uint64_t q,
                                     uint32_t stride, uint32_t bins, uint4 valid) {
  if (k <= 0) return make_uint4(0u, 0u, 0u, 0u);       // no code is below 0
  if (static_cast<uint32_t>(k) >= bins) return valid;  // every code is below bins
  const uint4* words = reinterpret_cast<const uint4*>(vectors + uint64_t(k - 1) * stride) + q;
  return kStream ? __ldcs(words) : *words;
}

// 4 bitmap words per thread: one 16-byte load per vector, one 16-byte store, as
// dpbis_sieve_select.comp.
__global__ void __launch_bounds__(kSelectBlock)
    sieve_select_kernel(const uint32_t* __restrict__ vectors, uint32_t* __restrict__ bitmap,
                        uint32_t rows, uint32_t words, int32_t b_lo, int32_t b_hi, uint32_t bins,
                        uint32_t stride) {
  uint32_t q = select_index();
  uint64_t first64 = q * 4u;
  if (first64 >= words) return;
  uint32_t first = static_cast<uint32_t>(first64);
  uint4 valid = make_uint4(valid_bits(first, rows), valid_bits(first + 1, rows),
                           valid_bits(first + 2, rows), valid_bits(first + 3, rows));
  uint4 hi = vector_words(vectors, b_hi, q, stride, bins, valid);
  uint4 lo = vector_words(vectors, b_lo + 1, q, stride, bins, valid);
  uint4 bits = make_uint4(hi.x & ~lo.x & valid.x, hi.y & ~lo.y & valid.y, hi.z & ~lo.z & valid.z,
                          hi.w & ~lo.w & valid.w);
  if (words - first >= 4u) {
    reinterpret_cast<uint4*>(bitmap)[q] = bits;
    return;
  }
  const uint32_t b4[4] = {bits.x, bits.y, bits.z, bits.w};
  for (uint32_t j = 0u; first + j < words; ++j) bitmap[first + j] = b4[j];
}

// The twin of in_range4 in shaders/dpbis/dpbis_common.glsl: the high bit of byte b set when byte
// b of w lies in [lo, lo + width) (lo4, width4: the values in every byte; lo + width <= 256,
// width < 256).
__device__ inline uint32_t in_range4(uint32_t w, uint32_t lo4, uint32_t width4) {
  constexpr uint32_t H = 0x80808080u;
  uint32_t d = ((w | H) - (lo4 & ~H)) ^ ((w ^ ~lo4) & H);   // bytewise w - lo, modulo 256
  uint32_t t = (d | H) - (width4 & ~H);                     // high bits: low 7 bits of d >= width's
  uint32_t ge = ((d & ~width4) | (~(d ^ width4) & t)) & H;  // high bits: d >= width
  return ~ge & H;
}

// Word i of a 32-row group holds rows i, 8 + i, 16 + i and 24 + i in its bytes 0 to 3
// (dpbis_params.hpp), so flags in the bytes' high bits (bits 8 b + 7) are that word's rows of
// the group's bitmap word after one shift (bits 8 b + i).
__device__ inline uint32_t group_rows(uint32_t flags, uint32_t i) {
  return flags >> (7u - i);
}

// The twin of equal_byte4 in shaders/dpbis/dpbis_common.glsl: the high bit of byte b set when
// byte b of w equals the byte of a4 (the same value in every byte). A byte of w ^ a4 is zero
// exactly when its low 7 bits plus 0x7F leave its high bit clear and its own high bit is clear.
__device__ inline uint32_t equal_byte4(uint32_t w, uint32_t a4) {
  constexpr uint32_t L = 0x7F7F7F7Fu, H = 0x80808080u;
  uint32_t x = w ^ a4;
  return ~(((x & L) + L) | x) & H;
}

__global__ void __launch_bounds__(kSelectBlock)
    codes_select_kernel(const uint32_t* __restrict__ codes, uint32_t* __restrict__ bitmap,
                        uint32_t rows, int32_t b_lo, int32_t b_hi) {
  uint32_t word = select_index();
  if (word >= (rows + 31u) / 32u) return;
  uint32_t first = word * 32u;
  // The word's 32 code bytes as two 16-byte loads (codes are padded to whole words and mapped at
  // an aligned address), both in flight before either is used, as in dpbis_select.comp.
  const uint4* q = reinterpret_cast<const uint4*>(codes) + word * 2u;
  uint4 a = __ldg(q), b = __ldg(q + 1);
  const uint32_t w8[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  int32_t lo = max(b_lo + 1, 0);
  int32_t width = min(b_hi, 256) - lo;  // b_lo < code < b_hi: code in [lo, lo + width)
  uint32_t bits = 0u;
  if (width >= 256) {
    bits = 0xFFFFFFFFu;
  } else if (width > 0) {
    uint32_t lo4 = static_cast<uint32_t>(lo) * 0x01010101u;
    uint32_t width4 = static_cast<uint32_t>(width) * 0x01010101u;
#pragma unroll
    for (uint32_t i = 0u; i < 8u; ++i) bits |= group_rows(in_range4(w8[i], lo4, width4), i);
  }
  uint32_t valid = rows - first;
  if (valid < 32u) bits &= (1u << valid) - 1u;
  bitmap[word] = bits;
}

// Refine::in_select over the sieving vectors: the boundary rows' values, a tile's rows of a bin
// being one run of the column clustered by bin. The warp loads its tile's run of each bin
// together (lane l takes values base + l and base + 32 + l), and each lane takes its rows'
// answers from ballots of the compares. The loads are coalesced, and a lane issues two a bin per
// 64 rows of the run instead of one per row of its own (ranks from the prefix sum, four in
// flight), which took 16.8 us at 1e8 rows on the H100 where this takes 16.5
// (bench/gpu/round_trip_probe.cu), and 0.138-0.143 ms at 1e9 rows where this takes 0.133-0.135
// (docs/dpbis_refine.md).
template <bool kStream>
__device__ inline uint32_t run_value(const uint32_t* __restrict__ run, uint32_t at,
                                     uint32_t total) {
  return at < total ? (kStream ? __ldcs(run + at) : __ldg(run + at)) : 0u;
}

// Sets the next `n` rows of `edge` (lowest first, taken out of edge) from the low bits of pass.
__device__ inline void deposit_rows(uint32_t (&edge)[4], uint32_t (&bits)[4], uint64_t pass,
                                    uint32_t n) {
  uint32_t k = 0u;
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    for (uint32_t m = edge[w]; m != 0u && k < n; ++k) {
      uint32_t b = static_cast<uint32_t>(__ffs(m)) - 1u;
      m &= m - 1u;
      edge[w] = m;
      bits[w] |= static_cast<uint32_t>((pass >> k) & 1u) << b;
    }
  }
}

// sum: the warp's inclusive prefix sum of count, a lane's rows of the bin; offset: the run's start
// (lane 0's, which holds rows whenever the warp does).
template <bool kStream, int kBins>
__device__ inline void refine_runs_warp(const uint32_t* __restrict__ clustered,
                                        const uint32_t (&offset)[2], const uint32_t (&sum)[2],
                                        const uint32_t (&count)[2], uint32_t (&edge)[2][4],
                                        uint32_t (&bits)[4], uint32_t lo, uint32_t hi,
                                        uint32_t lane) {
  const uint32_t* run[2];
  uint32_t total[2], most = 0u;
#pragma unroll
  for (int k = 0; k < kBins; ++k) {
    run[k] = clustered + __shfl_sync(0xFFFFFFFFu, offset[k], 0);
    total[k] = __shfl_sync(0xFFFFFFFFu, sum[k], 31);
    most = max(most, total[k]);
  }
  for (uint32_t base = 0u; base < most; base += 64u) {  // the same in every lane
    uint32_t v[2][2];
#pragma unroll
    for (int k = 0; k < kBins; ++k)
#pragma unroll
      for (uint32_t j = 0u; j < 2u; ++j)
        v[k][j] = run_value<kStream>(run[k], base + 32u * j + lane, total[k]);
#pragma unroll
    for (int k = 0; k < kBins; ++k) {
      uint64_t pass = 0u;
#pragma unroll
      for (uint32_t j = 0u; j < 2u; ++j) {
        const bool in = base + 32u * j + lane < total[k] && v[k][j] >= lo && v[k][j] <= hi;
        pass |= uint64_t{__ballot_sync(0xFFFFFFFFu, in)} << (32u * j);
      }
      // This lane's ranks [sum - count, sum) within the window [base, base + 64).
      const uint32_t from = max(sum[k] - count[k], base), to = min(sum[k], base + 64u);
      if (from < to) deposit_rows(edge[k], bits, pass >> (from - base), to - from);
    }
  }
}

// One vector of a sieve pass, resolved on the host: V(k)'s 16-byte quads, or for k <= 0 (no code
// is below 0) and k >= bins (every code is below bins) a fill that needs no load. Every use of a
// vector is masked by the rows' valid bits, so the fill of "every row" may be all ones. Resolved
// once, the pass does no 64-bit index arithmetic per vector. kFills: some vector of the pass is
// a fill (its boundary bins include the first or the last); without, the loads are not behind
// a branch. On the H100 at 1e8 rows, 16.5 us with the index arithmetic, 16.3 resolved, 15.9
// unbranched (bench/gpu/round_trip_probe.cu; a select of the address took 16.6).
struct SieveVector {
  const uint4* quads;  // nullptr: every word is `fill`
  uint32_t fill;
};

template <bool kStream, bool kFills>
__device__ inline uint4 load_vector(SieveVector v, uint32_t q) {
  if (kFills && v.quads == nullptr) return make_uint4(v.fill, v.fill, v.fill, v.fill);
  return kStream ? __ldcs(v.quads + q) : v.quads[q];
}

// Refine::in_select over the sieving vectors, the twin of dpbis_sieve_exact.comp: per word
//   inner      = V(b_hi) & ~V(b_lo + 1)   (b_lo < code < b_hi: set)
//   bin b rows = V(b + 1) & ~V(b)         (b = b_lo, b_hi: the value decides)
// The boundary rows' values come from the column clustered by bin, each bin in row order: a warp
// is one 4096-row tile, whose rows of bin b start at offsets[b * tiles + tile] (`runs_hi`,
// `runs_lo`: the bins' rows of offsets), and each lane takes its place by a prefix sum over the
// warp (refine_runs_warp).
// 4 bitmap words per thread (16-byte loads and store), as sieve_select_kernel.
// kStream: the vectors and values are loaded evict-first (sieve_select_exact below says when).
// kTwo: a lower boundary bin of its own (0 <= b_lo < b_hi), four vectors. Otherwise b_lo is -1
// (every bin below b_hi is inner) or b_hi (none is), `lo` is a fill and the pass loads two
// vectors. Known when compiled, the second bin's loads, scan and runs cost nothing: on the H100
// at 1e8 rows, 17.6 -> 16.8 us with a lane's own loads.
template <bool kStream, bool kTwo, bool kFills>
__global__ void __launch_bounds__(kSelectBlock)
    sieve_select_exact_kernel(SieveVector v_hi, SieveVector v_hi1, SieveVector v_lo,
                              SieveVector v_lo0, const uint32_t* __restrict__ clustered,
                              const uint32_t* __restrict__ runs_hi,
                              const uint32_t* __restrict__ runs_lo, uint32_t* __restrict__ bitmap,
                              uint32_t rows, uint32_t words, uint32_t lo_value, uint32_t hi_value) {
  constexpr int kBins = kTwo ? 2 : 1;  // refined: b_hi, then b_lo
  const uint32_t q = select_index();
  const uint64_t first64 = uint64_t{q} * 4u;
  // Lanes past the bitmap stay for the warp's prefix sum and ballots, with no rows.
  const bool active = first64 < words;
  const uint32_t first = active ? static_cast<uint32_t>(first64) : 0u;
  // Every word of the quad is whole (all but the last quads), or each word's rows are masked.
  const uint4 valid = first64 * 32u + 128u <= rows ? make_uint4(~0u, ~0u, ~0u, ~0u)
                      : active
                          ? make_uint4(valid_bits(first, rows), valid_bits(first + 1, rows),
                                       valid_bits(first + 2, rows), valid_bits(first + 3, rows))
                          : make_uint4(0u, 0u, 0u, 0u);
  uint32_t bits[4] = {0u, 0u, 0u, 0u}, edge[2][4] = {{0u, 0u, 0u, 0u}, {0u, 0u, 0u, 0u}};
  // The tile's offsets depend on nothing else: loaded with the vectors, they add no round trip.
  const uint32_t tile = q / 32u;
  uint32_t offset[2] = {0u, 0u};
  if (active) {
    offset[0] = __ldg(runs_hi + tile);
    if (kTwo) offset[1] = __ldg(runs_lo + tile);
    // All loads are issued before any is used.
    const uint4 hi = load_vector<kStream, kFills>(v_hi, q);
    const uint4 hi1 = load_vector<kStream, kFills>(v_hi1, q);
    const uint4 lo = kTwo ? load_vector<kStream, kFills>(v_lo, q)
                          : make_uint4(v_lo.fill, v_lo.fill, v_lo.fill, v_lo.fill);
    const uint4 lo0 = kTwo ? load_vector<kStream, kFills>(v_lo0, q) : make_uint4(0u, 0u, 0u, 0u);
    const uint32_t h[4] = {hi.x, hi.y, hi.z, hi.w}, l[4] = {lo.x, lo.y, lo.z, lo.w};
    const uint32_t h1[4] = {hi1.x, hi1.y, hi1.z, hi1.w}, l0[4] = {lo0.x, lo0.y, lo0.z, lo0.w};
    const uint32_t v[4] = {valid.x, valid.y, valid.z, valid.w};
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      bits[w] = h[w] & ~l[w] & v[w];
      edge[0][w] = h1[w] & ~h[w] & v[w];
      if (kTwo) edge[1][w] = l[w] & ~l0[w] & v[w];
    }
  }
  // Inclusive prefix sums over the warp (the tile): a lane's rows of each bin and those before.
  const uint32_t lane = threadIdx.x & 31u;
  uint32_t count[2] = {0u, 0u}, sum[2];
#pragma unroll
  for (int k = 0; k < kBins; ++k) {
#pragma unroll
    for (int w = 0; w < 4; ++w) count[k] += static_cast<uint32_t>(__popc(edge[k][w]));
    sum[k] = count[k];
  }
#pragma unroll
  for (uint32_t d = 1u; d < 32u; d <<= 1u) {
    uint32_t up[2];
#pragma unroll
    for (int k = 0; k < kBins; ++k) up[k] = __shfl_up_sync(0xFFFFFFFFu, sum[k], d);
    if (lane >= d)
#pragma unroll
      for (int k = 0; k < kBins; ++k) sum[k] += up[k];
  }
  refine_runs_warp<kStream, kBins>(clustered, offset, sum, count, edge, bits, lo_value, hi_value,
                                   lane);
  if (!active) return;
  if (words - first >= 4u) {
    reinterpret_cast<uint4*>(bitmap)[q] = make_uint4(bits[0], bits[1], bits[2], bits[3]);
    return;
  }
  for (uint32_t j = 0u; first + j < words; ++j) bitmap[first + j] = bits[j];
}

// Inclusive prefix sums over the warp of two 16-bit counts packed in one word (each sum below
// 2^16).
__device__ inline uint32_t warp_scan2(uint32_t packed, uint32_t lane) {
#pragma unroll
  for (uint32_t d = 1u; d < 32u; d <<= 1u) {
    uint32_t up = __shfl_up_sync(0xFFFFFFFFu, packed, d);
    if (lane >= d) packed += up;
  }
  return packed;
}

// Where each of a lane's 4 words (k = 0..3, word 32 k + lane of the tile) starts in its bin's run
// of the tile, from the words' counts of that bin: the words before it in row order are all the
// tile's words of lower k and the lower lanes' word k.
__device__ inline void run_starts(const uint32_t (&count)[4], uint32_t lane, uint32_t (&start)[4]) {
  uint32_t lo = warp_scan2(count[0] | count[1] << 16, lane);  // at most 32 rows a word
  uint32_t hi = warp_scan2(count[2] | count[3] << 16, lane);
  uint32_t total_lo = __shfl_sync(0xFFFFFFFFu, lo, 31), total_hi = __shfl_sync(0xFFFFFFFFu, hi, 31);
  const uint32_t inclusive[4] = {lo & 0xFFFFu, lo >> 16, hi & 0xFFFFu, hi >> 16};
  const uint32_t total[4] = {total_lo & 0xFFFFu, total_lo >> 16, total_hi & 0xFFFFu,
                             total_hi >> 16};
  uint32_t before = 0u;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    start[k] = before + inclusive[k] - count[k];
    before += total[k];
  }
}

// Sets the rows of edge[k] (one boundary bin's rows of word k, ascending) whose values, from
// run + start[k] on, lie in [lo, hi]. A word rarely holds two boundary rows of a bin (32 rows of
// 256 bins), so the four words' first rows are loaded together and any others after.
__device__ inline void refine_words(const uint32_t* __restrict__ run, const uint32_t (&start)[4],
                                    const uint32_t (&edge)[4], uint32_t (&bits)[4], uint32_t lo,
                                    uint32_t hi) {
  uint32_t first[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) first[k] = edge[k] != 0u ? __ldg(run + start[k]) : 0u;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    uint32_t m = edge[k];
    if (m == 0u) continue;
    if (first[k] >= lo && first[k] <= hi) bits[k] |= m & (0u - m);
    m &= m - 1u;
    for (uint32_t j = 1u; m != 0u; ++j, m &= m - 1u) {
      uint32_t v = __ldg(run + start[k] + j);
      if (v >= lo && v <= hi) bits[k] |= m & (0u - m);
    }
  }
}

// Refine::in_select over the codes: codes_select_kernel's pass that also decides the rows whose
// code is a boundary bin. It reads their values clustered by bin, as sieve_select_exact_kernel
// does; its Vulkan counterpart, dpbis_select_exact.comp, reads them in row order, which measured
// faster there (DpBisImpl::clustered_values, docs/dpbis_refine.md; in row order this pass took
// 0.054 against 0.045 ms at 1e8 rows). A warp is one 4096-row tile and lane l decides its words l,
// 32 + l, 64 + l and 96 + l, so that each 16-byte code load and 4-byte bitmap store of the warp is
// contiguous; with 4 consecutive words a lane (as the sieve's pass), each code load touched 32
// cache lines. All 8 code loads are issued before any is used. Codes and bitmap words are loaded
// and stored evict-first (__ldcs, __stcs): 0.0455 -> 0.0428 ms at 1e8 rows on the H100, 0.375
// -> 0.380 at 1e9 (docs/dpbis_refine.md, "Streaming hints").
__global__ void __launch_bounds__(kSelectBlock)
    codes_exact_kernel(const uint32_t* __restrict__ codes, const uint32_t* __restrict__ clustered,
                       const uint32_t* __restrict__ offsets, uint32_t* __restrict__ bitmap,
                       uint32_t rows, uint32_t words, int32_t b_lo, int32_t b_hi, uint32_t lo_value,
                       uint32_t hi_value, uint32_t tiles) {
  const uint32_t lane = threadIdx.x & 31u, tile = select_index() / 32u;
  if (tile >= tiles) return;                   // the whole warp
  const bool two = b_lo >= 0 && b_lo != b_hi;  // a lower boundary bin of its own
  // The tile's offsets depend on nothing else: loaded with the codes, they add no round trip.
  const uint32_t offset_hi = __ldg(offsets + static_cast<uint32_t>(b_hi) * tiles + tile);
  const uint32_t offset_lo = two ? __ldg(offsets + static_cast<uint32_t>(b_lo) * tiles + tile) : 0u;
  const uint4* q = reinterpret_cast<const uint4*>(codes);  // codes are padded to whole words
  uint32_t word[4];
  uint4 c[8];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    word[k] = tile * 128u + 32u * k + lane;
    bool in = word[k] < words;  // codes end at the last word
    c[2 * k] = in ? __ldcs(q + word[k] * 2u) : make_uint4(0u, 0u, 0u, 0u);
    c[2 * k + 1] = in ? __ldcs(q + word[k] * 2u + 1u) : make_uint4(0u, 0u, 0u, 0u);
  }
  int32_t lo = max(b_lo + 1, 0);
  int32_t width = b_hi - lo;  // b_lo < code < b_hi: code in [lo, lo + width), b_hi < 256
  uint32_t lo4 = static_cast<uint32_t>(lo) * 0x01010101u;
  uint32_t width4 = static_cast<uint32_t>(max(width, 0)) * 0x01010101u;
  uint32_t hi4 = static_cast<uint32_t>(b_hi) * 0x01010101u;
  uint32_t lo4_edge = two ? static_cast<uint32_t>(b_lo) * 0x01010101u : 0u;
  uint32_t bits[4], edge_hi[4], edge_lo[4], count_hi[4], count_lo[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const uint32_t w8[8] = {c[2 * k].x,     c[2 * k].y,     c[2 * k].z,     c[2 * k].w,
                            c[2 * k + 1].x, c[2 * k + 1].y, c[2 * k + 1].z, c[2 * k + 1].w};
    uint32_t inner = 0u, eh = 0u, el = 0u;
#pragma unroll
    for (uint32_t i = 0u; i < 8u; ++i) {
      if (width > 0) inner |= group_rows(in_range4(w8[i], lo4, width4), i);
      eh |= group_rows(equal_byte4(w8[i], hi4), i);
      if (two) el |= group_rows(equal_byte4(w8[i], lo4_edge), i);
    }
    uint32_t valid = valid_bits(word[k], rows);  // padding codes are 0 and may equal a bin
    bits[k] = inner & valid;
    edge_hi[k] = eh & valid;
    edge_lo[k] = el & valid;
    count_hi[k] = static_cast<uint32_t>(__popc(edge_hi[k]));
    count_lo[k] = static_cast<uint32_t>(__popc(edge_lo[k]));
  }
  uint32_t start[4];
  run_starts(count_hi, lane, start);
  refine_words(clustered + offset_hi, start, edge_hi, bits, lo_value, hi_value);  // 64-bit
  if (two) {
    run_starts(count_lo, lane, start);
    refine_words(clustered + offset_lo, start, edge_lo, bits, lo_value, hi_value);
  }
#pragma unroll
  for (int k = 0; k < 4; ++k)
    if (word[k] < words) __stcs(bitmap + word[k], bits[k]);
}

__device__ inline uint32_t chunks(uint32_t begin, uint32_t end) {
  return end > begin ? (end - 1u) / 4u + 1u - begin / 4u : 0u;
}

// Both boundary bins in one launch, 4 positions per thread from two 16-byte loads, as
// dpbis_candidates.comp.
__global__ void candidates_kernel(const uint32_t* sorted, const uint32_t* row_ids, uint32_t* bitmap,
                                  uint32_t begin0, uint32_t end0, uint32_t begin1, uint32_t end1,
                                  uint32_t lo, uint32_t hi) {
  uint64_t q = thread_index();
  uint32_t begin = begin0, end = end0;
  uint32_t first = chunks(begin0, end0);
  if (q >= first) {
    q -= first;
    begin = begin1;
    end = end1;
    if (q >= chunks(begin1, end1)) return;
  }
  uint64_t chunk = begin / 4u + q;
  uint4 v4 = reinterpret_cast<const uint4*>(sorted)[chunk];
  uint4 r4 = reinterpret_cast<const uint4*>(row_ids)[chunk];
  const uint32_t v[4] = {v4.x, v4.y, v4.z, v4.w};
  const uint32_t r[4] = {r4.x, r4.y, r4.z, r4.w};
#pragma unroll
  for (uint32_t j = 0u; j < 4u; ++j) {
    uint64_t p = chunk * 4u + j;
    if (p < begin || p >= end || v[j] < lo || v[j] > hi) continue;
    atomicOr(&bitmap[r[j] >> 5u], 1u << (r[j] & 31u));
  }
}

template <bool kStream, bool kTwo>
auto sieve_exact_kernel(bool fills) {
  return fills ? sieve_select_exact_kernel<kStream, kTwo, true>
               : sieve_select_exact_kernel<kStream, kTwo, false>;
}

}  // namespace

cudaError_t sieve_vectors(const uint32_t* codes, uint32_t* vectors, uint32_t rows, uint32_t words,
                          uint32_t bins, uint32_t stride, cudaStream_t s) {
  uint64_t items = uint64_t{bins - 1} * stride;
  if (items == 0) return cudaSuccess;
  vectors_kernel<<<blocks_for(items), kBlock, 0, s>>>(codes, vectors, rows, words, bins, stride);
  return cudaGetLastError();
}

cudaError_t sieve_select(const uint32_t* vectors, uint32_t* bitmap, uint32_t rows, uint32_t words,
                         int32_t b_lo, int32_t b_hi, uint32_t bins, uint32_t stride,
                         cudaStream_t s) {
  if (words == 0) return cudaSuccess;
  sieve_select_kernel<<<select_blocks((uint64_t{words} + 3) / 4), kSelectBlock, 0, s>>>(
      vectors, bitmap, rows, words, b_lo, b_hi, bins, stride);
  return cudaGetLastError();
}

cudaError_t codes_select(const uint32_t* codes, uint32_t* bitmap, uint32_t rows, int32_t b_lo,
                         int32_t b_hi, cudaStream_t s) {
  uint64_t words = (uint64_t{rows} + 31) / 32;
  if (words == 0) return cudaSuccess;
  codes_select_kernel<<<select_blocks(words), kSelectBlock, 0, s>>>(codes, bitmap, rows, b_lo,
                                                                    b_hi);
  return cudaGetLastError();
}

cudaError_t codes_select_exact(const uint32_t* codes, const uint32_t* clustered,
                               const uint32_t* offsets, uint32_t* bitmap, uint32_t rows,
                               uint32_t words, int32_t b_lo, int32_t b_hi, uint32_t lo, uint32_t hi,
                               uint32_t tiles, cudaStream_t s) {
  if (words == 0) return cudaSuccess;
  codes_exact_kernel<<<select_blocks(uint64_t{tiles} * 32u), kSelectBlock, 0, s>>>(
      codes, clustered, offsets, bitmap, rows, words, b_lo, b_hi, lo, hi, tiles);
  return cudaGetLastError();
}

cudaError_t sieve_select_exact(const uint32_t* vectors, const uint32_t* clustered,
                               const uint32_t* offsets, uint32_t* bitmap, uint32_t rows,
                               uint32_t words, int32_t b_lo, int32_t b_hi, uint32_t bins,
                               uint32_t stride, uint32_t lo, uint32_t hi, uint32_t tiles,
                               bool stream, cudaStream_t s) {
  if (words == 0) return cudaSuccess;
  const unsigned blocks = select_blocks((uint64_t{words} + 3) / 4);
  auto vector = [&](int32_t k) -> SieveVector {
    if (k <= 0) return {nullptr, 0u};
    if (static_cast<uint32_t>(k) >= bins) return {nullptr, ~0u};
    return {reinterpret_cast<const uint4*>(vectors + uint64_t(k - 1) * stride), 0u};
  };
  const bool two = b_lo >= 0 && b_lo != b_hi;
  // Without a lower bin of its own, V(b_lo + 1) is empty (b_lo = -1) or V(b_hi + 1), which masks
  // out all of V(b_hi) (b_lo = b_hi): a fill either way, so the pass loads two vectors.
  const SieveVector inner_lo = two ? vector(b_lo + 1) : SieveVector{nullptr, b_lo < 0 ? 0u : ~0u};
  const uint32_t* runs_hi = offsets + uint64_t(b_hi) * tiles;
  const uint32_t* runs_lo = two ? offsets + uint64_t(b_lo) * tiles : nullptr;
  const SieveVector v_hi = vector(b_hi), v_hi1 = vector(b_hi + 1);
  const SieveVector v_lo0 = two ? vector(b_lo) : SieveVector{nullptr, 0u};
  const bool fills = !v_hi.quads || !v_hi1.quads || (two && (!inner_lo.quads || !v_lo0.quads));
  auto kernel = stream ? (two ? sieve_exact_kernel<true, true>(fills)
                              : sieve_exact_kernel<true, false>(fills))
                       : (two ? sieve_exact_kernel<false, true>(fills)
                              : sieve_exact_kernel<false, false>(fills));
  kernel<<<blocks, kSelectBlock, 0, s>>>(v_hi, v_hi1, inner_lo, v_lo0, clustered, runs_hi, runs_lo,
                                         bitmap, rows, words, lo, hi);
  return cudaGetLastError();
}

cudaError_t refine_candidates(const uint32_t* sorted, const uint32_t* row_ids, uint32_t* bitmap,
                              uint32_t begin0, uint32_t end0, uint32_t begin1, uint32_t end1,
                              uint32_t lo, uint32_t hi, cudaStream_t s) {
  auto chunks_of = [](uint32_t b, uint32_t e) -> uint64_t {
    return e > b ? (uint64_t{e} - 1) / 4 + 1 - b / 4 : 0;
  };
  uint64_t items = chunks_of(begin0, end0) + chunks_of(begin1, end1);
  if (items == 0) return cudaSuccess;
  candidates_kernel<<<blocks_for(items), kBlock, 0, s>>>(sorted, row_ids, bitmap, begin0, end0,
                                                         begin1, end1, lo, hi);
  return cudaGetLastError();
}

}  // namespace raydb::detail::cuda::kernels
