// DP-BIS and sieving: the twins of shaders/dpbis/dpbis_{vectors,sieve_select,select,candidates}.
#include "backend/cuda/grid.cuh"
#include "backend/cuda/kernels.hpp"

namespace raydb::detail::cuda::kernels {

namespace {

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
        uint32_t r = j * 4u + b;
        if (uint64_t{word} * 32u + r < rows && ((w >> (8u * b)) & 0xFFu) < k) bits |= 1u << r;
      }
    }
  }
  vectors[i] = bits;  // padding words (word >= words) are 0
}

__device__ inline uint32_t valid_bits(uint32_t i, uint32_t rows) {
  uint32_t valid = rows - i * 32u;
  return valid >= 32u ? 0xFFFFFFFFu : ((1u << valid) - 1u);
}

__device__ inline uint4 vector_words(const uint32_t* vectors, int32_t k, uint64_t q,
                                     uint32_t stride, uint32_t bins, uint4 valid) {
  if (k <= 0) return make_uint4(0u, 0u, 0u, 0u);       // no code is below 0
  if (static_cast<uint32_t>(k) >= bins) return valid;  // every code is below bins
  return reinterpret_cast<const uint4*>(vectors + uint64_t(k - 1) * stride)[q];
}

// 4 bitmap words per thread: one 16-byte load per vector, one 16-byte store, as
// dpbis_sieve_select.comp.
__global__ void sieve_select_kernel(const uint32_t* vectors, uint32_t* bitmap, uint32_t rows,
                                    uint32_t words, int32_t b_lo, int32_t b_hi, uint32_t bins,
                                    uint32_t stride) {
  uint64_t q = thread_index();
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

// The twin of in_range4 in shaders/dpbis/dpbis_common.glsl: bit j set when byte j of w lies in
// [lo, lo + width) (lo4, width4: the values in every byte; lo + width <= 256, width < 256).
__device__ inline uint32_t in_range4(uint32_t w, uint32_t lo4, uint32_t width4) {
  constexpr uint32_t H = 0x80808080u;
  uint32_t d = ((w | H) - (lo4 & ~H)) ^ ((w ^ ~lo4) & H);   // bytewise w - lo, modulo 256
  uint32_t t = (d | H) - (width4 & ~H);                     // high bits: low 7 bits of d >= width's
  uint32_t ge = ((d & ~width4) | (~(d ^ width4) & t)) & H;  // high bits: d >= width
  return ((((~ge & H) >> 7) * 0x00204081u) >> 21) & 0xFu;   // the 4 high bits, gathered
}

__global__ void codes_select_kernel(const uint32_t* codes, uint32_t* bitmap, uint32_t rows,
                                    int32_t b_lo, int32_t b_hi) {
  uint64_t word = thread_index();
  uint64_t first = word * 32u;
  if (first >= rows) return;
  // The word's 32 code bytes as two 16-byte loads (codes are padded to whole words and mapped at
  // an aligned address), as in dpbis_select.comp.
  const uint4* q = reinterpret_cast<const uint4*>(codes) + word * 2u;
  uint4 a = q[0], b = q[1];
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
    for (uint32_t i = 0u; i < 8u; ++i) bits |= in_range4(w8[i], lo4, width4) << (4u * i);
  }
  uint64_t valid = rows - first;
  if (valid < 32u) bits &= (1u << valid) - 1u;
  bitmap[word] = bits;
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

__global__ void hold_kernel(uint64_t ns) {
  uint64_t start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
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
  sieve_select_kernel<<<blocks_for((uint64_t{words} + 3) / 4), kBlock, 0, s>>>(
      vectors, bitmap, rows, words, b_lo, b_hi, bins, stride);
  return cudaGetLastError();
}

cudaError_t codes_select(const uint32_t* codes, uint32_t* bitmap, uint32_t rows, int32_t b_lo,
                         int32_t b_hi, cudaStream_t s) {
  uint64_t words = (uint64_t{rows} + 31) / 32;
  if (words == 0) return cudaSuccess;
  codes_select_kernel<<<blocks_for(words), kBlock, 0, s>>>(codes, bitmap, rows, b_lo, b_hi);
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

cudaError_t hold_stream(uint64_t ns, cudaStream_t s) {
  if (ns == 0) return cudaSuccess;
  hold_kernel<<<1, 1, 0, s>>>(ns);
  return cudaGetLastError();
}

}  // namespace raydb::detail::cuda::kernels
