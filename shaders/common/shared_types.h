// Types and qualifiers that let one header compile as GLSL, C++ and CUDA, so a mapping
// (key -> coordinates, query -> rays) is written once for every backend (DESIGN.md).
#ifndef RAYDB_SHARED_TYPES_H
#define RAYDB_SHARED_TYPES_H

#if defined(__cplusplus) || defined(__CUDACC__)
#include <cstdint>
#define RDB_U32 std::uint32_t
#define RDB_U64 std::uint64_t
#if defined(__CUDACC__)
#define RDB_FN __host__ __device__ inline
#else
#define RDB_FN inline
#endif
#else
#define RDB_U32 uint
#define RDB_U64 uint64_t
#define RDB_FN
#endif

#endif
