# The optional OptiX backend (docs/optix.md). Found through OptiX_ROOT (a cache variable or an
# environment variable) or OPTIX_ROOT: the directory of NVIDIA's optix-dev repository, whose
# include/ holds optix.h. OptiX needs the CUDA backend (its context is made from raydb's CUDA
# device and it reads records shared through CUDA). Without headers the build is the one without
# OptiX. Sets RAYDB_HAS_OPTIX, RAYDB_OPTIX_INCLUDE_DIR and RAYDB_OPTIX_VERSION.
set(OptiX_ROOT "" CACHE PATH "OptiX SDK / optix-dev directory (with include/optix.h); empty: off")
set(RAYDB_HAS_OPTIX OFF)
set(_raydb_optix_root "${OptiX_ROOT}")
foreach(_var OptiX_ROOT OPTIX_ROOT)
  if(NOT _raydb_optix_root AND DEFINED ENV{${_var}})
    set(_raydb_optix_root "$ENV{${_var}}")
  endif()
endforeach()
if(NOT _raydb_optix_root AND DEFINED OPTIX_ROOT)
  set(_raydb_optix_root "${OPTIX_ROOT}")
endif()

# The oldest OptiX whose API raydb uses: optixModuleCreate (7.7; before it was
# optixModuleCreateFromPTX) and optixUtilAccumulateStackSizes-free default stack sizes.
set(RAYDB_OPTIX_MIN_VERSION 70700)

if(NOT _raydb_optix_root)
  message(STATUS "raydb: OptiX backend off (set OptiX_ROOT or OPTIX_ROOT to NVIDIA's optix-dev headers)")
elseif(NOT EXISTS "${_raydb_optix_root}/include/optix.h")
  message(FATAL_ERROR "OptiX_ROOT='${_raydb_optix_root}' has no include/optix.h (expected NVIDIA's optix-dev repository)")
elseif(NOT RAYDB_HAS_CUDA)
  message(FATAL_ERROR "OptiX_ROOT is set but the CUDA backend is off: OptiX needs it (nvcc, RAYDB_CUDA)")
else()
  file(STRINGS "${_raydb_optix_root}/include/optix.h" _raydb_optix_line REGEX "^#define OPTIX_VERSION [0-9]+")
  string(REGEX REPLACE "^#define OPTIX_VERSION ([0-9]+).*" "\\1" _raydb_optix_v "${_raydb_optix_line}")
  if(NOT _raydb_optix_v OR _raydb_optix_v LESS RAYDB_OPTIX_MIN_VERSION)
    message(FATAL_ERROR "OptiX headers in '${_raydb_optix_root}' are version '${_raydb_optix_v}'; raydb needs 7.7 or newer (9.0.0 is what it is tested with)")
  endif()
  math(EXPR _major "${_raydb_optix_v} / 10000")
  math(EXPR _minor "(${_raydb_optix_v} % 10000) / 100")
  math(EXPR _micro "${_raydb_optix_v} % 100")
  set(RAYDB_OPTIX_VERSION "${_major}.${_minor}.${_micro}")
  set(RAYDB_OPTIX_INCLUDE_DIR "${_raydb_optix_root}/include")
  set(RAYDB_HAS_OPTIX ON)
  message(STATUS "raydb: OptiX backend on (OptiX ${RAYDB_OPTIX_VERSION} headers from ${RAYDB_OPTIX_INCLUDE_DIR})")
endif()

# raydb_embed_file(<output .cpp> <input> <symbol>): the input's bytes as
#   extern const unsigned char <symbol>[]; extern const unsigned long long <symbol>_size;
# (NUL-terminated; the size excludes the NUL).
function(raydb_embed_file output input symbol)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output} -DSYMBOL=${symbol}
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake
    DEPENDS ${input} ${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake
    COMMENT "embedding ${symbol}"
    VERBATIM)
endfunction()
