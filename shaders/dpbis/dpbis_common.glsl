// DP-BIS (Gosink et al.): each column's values are sorted with their row ids, cut into 256
// equal-depth bins whose borders never split equal values, and every row gets its 8-bit bin code
// (four codes per 32-bit word). A range query sets the rows of bins strictly inside it from the
// codes alone and checks the values of its (at most two) boundary bins exactly.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

#define DPBIS_BINS 256u

layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Array { uint v[]; };

// The codes of a 32-row group are 8 words, and word i holds rows i, 8 + i, 16 + i and 24 + i in
// its bytes 0 to 3 (row r: word r % 8, byte r / 8; dpbis_params.hpp). A 4-byte test that sets
// each byte's high bit (bits 8 b + 7) then gives word i's rows of the group's bitmap word with
// one shift (bits 8 b + i), where byte-order codes needed a multiply and three more operations
// per word to gather the bits.
uint code_word(uint row) { return (row >> 5u) * 8u + (row & 7u); }
uint code_shift(uint row) { return 8u * ((row >> 3u) & 3u); }
uint group_rows(uint flags, uint i) { return flags >> (7u - i); }

// The high bit of byte b set when byte b of w lies in [lo, lo + width), all four bytes at once
// (SWAR); lo4 and width4 hold lo and width in every byte, lo + width <= 256, width < 256. The twin
// of in_range4 in src/ops/dpbis/cuda/dpbis.cu.
uint in_range4(uint w, uint lo4, uint width4) {
  const uint H = 0x80808080u;
  uint d = ((w | H) - (lo4 & ~H)) ^ ((w ^ ~lo4) & H);    // bytewise w - lo, modulo 256
  uint t = (d | H) - (width4 & ~H);                        // high bits: low 7 bits of d >= width's
  uint ge = ((d & ~width4) | (~(d ^ width4) & t)) & H;     // high bits: d >= width
  return ~ge & H;
}

// The high bit of byte b set when byte b of w equals the byte of a4 (one value in every byte): a
// byte of w ^ a4 is zero exactly when neither its high bit nor the carry of its low 7 bits plus
// 0x7F is set. The twin of equal_byte4 in src/ops/dpbis/cuda/dpbis.cu.
uint equal_byte4(uint w, uint a4) {
  const uint L = 0x7F7F7F7Fu, H = 0x80808080u;
  uint x = w ^ a4;
  return ~(((x & L) + L) | x) & H;
}
