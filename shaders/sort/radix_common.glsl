// Shared by the radix-sort kernels: a stable LSD sort of 32- or 64-bit keys with 32-bit row ids,
// 8 bits per pass. A tile of 4096 elements (256 threads x 16) is the unit of every kernel, and
// the histogram is stored digit-major (hist[digit * num_tiles + tile]) so that one exclusive scan
// over it yields every tile's output offset for every digit.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

#define RADIX_THREADS 256u
#define RADIX_ITEMS 16u
#define RADIX_TILE (RADIX_THREADS * RADIX_ITEMS)
#define RADIX_DIGITS 256u

layout(local_size_x = 256) in;

layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Array { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer U64Array { uint64_t v[]; };

// Mirrors raydb::detail::RadixParams.
layout(push_constant, scalar) uniform RadixParams {
  uint64_t keys_in;
  uint64_t keys_out;
  uint64_t rows_in;  // 0: the row of element i is i
  uint64_t rows_out;
  uint64_t hist;     // RADIX_DIGITS * num_tiles counters
  uint n;
  uint shift;        // bit offset of this pass's digit
  uint key64;        // keys are 64-bit
  uint num_tiles;
}
pc;

uint tile_index() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

uint64_t load_key(uint i) {
  return pc.key64 != 0u ? U64Array(pc.keys_in).v[i] : uint64_t(U32Array(pc.keys_in).v[i]);
}

uint digit_of(uint64_t key) { return uint((key >> pc.shift) & 0xFFul); }
