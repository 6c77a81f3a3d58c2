// Types and qualifiers that let one header compile as GLSL, C++ and CUDA, so a mapping
// (key -> coordinates, query -> rays) is written once for every backend (DESIGN.md).
#ifndef RAYDB_SHARED_TYPES_H
#define RAYDB_SHARED_TYPES_H

// RDB_VEC3 is GLSL's vec3, CUDA's float3, or a plain struct in host C++; RDB_MAKE_VEC3 builds one.
// RDB_INOUT(T) is a parameter the function reads and writes (GLSL inout, C++ reference).
#if defined(__cplusplus) || defined(__CUDACC__)
#include <cstdint>
#define RDB_U32 std::uint32_t
#define RDB_U64 std::uint64_t
#define RDB_I64 std::int64_t
#define RDB_INOUT(T) T&
#if defined(__CUDACC__)
#define RDB_FN __host__ __device__ inline
#define RDB_VEC3 float3
#define RDB_MAKE_VEC3(x, y, z) make_float3(x, y, z)
#else
#define RDB_FN inline
struct RdbVec3 {
  float x, y, z;
};
inline RdbVec3 rdb_make_vec3(float x, float y, float z) {
  return RdbVec3{x, y, z};
}
#define RDB_VEC3 RdbVec3
#define RDB_MAKE_VEC3 rdb_make_vec3
#endif
#else
#define RDB_U32 uint
#define RDB_U64 uint64_t
#define RDB_I64 int64_t
#define RDB_FN
#define RDB_INOUT(T) inout T
#define RDB_VEC3 vec3
#define RDB_MAKE_VEC3(x, y, z) vec3(x, y, z)
#endif

#endif
