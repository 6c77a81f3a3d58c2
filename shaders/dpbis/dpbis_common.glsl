// DP-BIS (Gosink et al.): each column's values are sorted with their row ids, cut into 256
// equal-depth bins whose borders never split equal values, and every row gets its 8-bit bin code
// (four codes per 32-bit word). A range query sets the rows of bins strictly inside it from the
// codes alone and checks the values of its (at most two) boundary bins exactly.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

#define DPBIS_BINS 256u

layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Array { uint v[]; };

// Bit j (0 .. 3) set when byte j of w lies in [lo, lo + width), all four bytes at once (SWAR);
// lo4 and width4 hold lo and width in every byte, lo + width <= 256, width < 256. The twin of
// in_range4 in src/ops/dpbis/cuda/dpbis.cu.
uint in_range4(uint w, uint lo4, uint width4) {
  const uint H = 0x80808080u;
  uint d = ((w | H) - (lo4 & ~H)) ^ ((w ^ ~lo4) & H);    // bytewise w - lo, modulo 256
  uint t = (d | H) - (width4 & ~H);                        // high bits: low 7 bits of d >= width's
  uint ge = ((d & ~width4) | (~(d ^ width4) & t)) & H;     // high bits: d >= width
  return ((((~ge & H) >> 7u) * 0x00204081u) >> 21u) & 0xFu;  // the 4 high bits, gathered
}

// Bit j (0 .. 3) set when byte j of w equals the byte of a4 or of b4 (each one value in every
// byte): a byte of w ^ a4 is zero exactly when neither its high bit nor the carry of its low 7
// bits plus 0x7F is set. Half the operations of two in_range4 calls. The twin of equal4 in
// src/ops/dpbis/cuda/dpbis.cu.
uint equal4(uint w, uint a4, uint b4) {
  const uint L = 0x7F7F7F7Fu, H = 0x80808080u;
  uint xa = w ^ a4, xb = w ^ b4;
  uint nonzero_a = ((xa & L) + L) | xa;  // high bits: the byte of xa is not 0
  uint nonzero_b = ((xb & L) + L) | xb;
  uint eq = ~(nonzero_a & nonzero_b) & H;
  return (((eq >> 7u) * 0x00204081u) >> 21u) & 0xFu;  // the 4 high bits, gathered
}
