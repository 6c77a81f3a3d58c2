// DP-BIS (Gosink et al.): each column's values are sorted with their row ids, cut into 256
// equal-depth bins whose borders never split equal values, and every row gets its 8-bit bin code
// (four codes per 32-bit word). A range query sets the rows of bins strictly inside it from the
// codes alone and checks the values of its (at most two) boundary bins exactly.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

#define DPBIS_BINS 256u

layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Array { uint v[]; };
