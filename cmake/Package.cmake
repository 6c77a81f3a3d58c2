# What `cmake --install` installs and `cpack -G DEB` packages (docs in README.md, "Install").
#
# The tests and the CLI link the internal static target `raydb` and may use its internals (volk,
# VMA, src/ headers). What is installed is `raydb_package`, exported as raydb::raydb: the same
# code prelinked into one object whose bundled volk and VMA symbols are local
# (cmake/package/Prelink.cmake), as a static archive or, with BUILD_SHARED_LIBS, a versioned
# shared library exporting only namespace raydb (cmake/package/raydb.map).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_pkg_dir ${PROJECT_BINARY_DIR}/package)
set(_archives $<TARGET_FILE:raydb>)
set(_archive_targets raydb)
foreach(kernels raydb_cuda_kernels raydb_optix_kernels)
  if(TARGET ${kernels})
    list(APPEND _archives $<TARGET_FILE:${kernels}>)
    list(APPEND _archive_targets ${kernels})
  endif()
endforeach()
find_program(RAYDB_NM NAMES ${CMAKE_NM} nm REQUIRED)
find_program(RAYDB_OBJCOPY NAMES ${CMAKE_OBJCOPY} objcopy REQUIRED)
find_program(RAYDB_LD NAMES ${CMAKE_LINKER} ld REQUIRED)
add_custom_command(
  OUTPUT ${_pkg_dir}/raydb_prelinked.o
  COMMAND ${CMAKE_COMMAND} -DLD=${RAYDB_LD} -DNM=${RAYDB_NM} -DOBJCOPY=${RAYDB_OBJCOPY}
          -DOUTPUT=${_pkg_dir}/raydb_prelinked.o "-DARCHIVES=${_archives}"
          -P ${PROJECT_SOURCE_DIR}/cmake/package/Prelink.cmake
  DEPENDS ${_archive_targets} ${PROJECT_SOURCE_DIR}/cmake/package/Prelink.cmake
  COMMENT "prelinking raydb (volk and VMA made local)"
  VERBATIM)
set_source_files_properties(${_pkg_dir}/raydb_prelinked.o PROPERTIES EXTERNAL_OBJECT ON GENERATED ON)

if(BUILD_SHARED_LIBS)
  # A shared object needs position-independent code in every piece.
  set_target_properties(raydb PROPERTIES POSITION_INDEPENDENT_CODE ON)
  add_library(raydb_package SHARED ${_pkg_dir}/raydb_prelinked.o)
  # 0.x: every minor version may change the ABI.
  if(PROJECT_VERSION_MAJOR EQUAL 0)
    set(_soversion ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  else()
    set(_soversion ${PROJECT_VERSION_MAJOR})
  endif()
  set_target_properties(raydb_package PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${_soversion}
                                                 LINKER_LANGUAGE CXX)
  target_link_options(raydb_package PRIVATE
    -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/package/raydb.map -Wl,--no-undefined)
  set_property(TARGET raydb_package APPEND PROPERTY LINK_DEPENDS
               ${PROJECT_SOURCE_DIR}/cmake/package/raydb.map)
  # What the prelinked object still needs, linked in now and never asked of the user.
  target_link_libraries(raydb_package PRIVATE ${CMAKE_DL_LIBS})
  if(RAYDB_HAS_CUDA)
    target_link_libraries(raydb_package PRIVATE CUDA::cudart_static)
  endif()
else()
  add_library(raydb_package STATIC ${_pkg_dir}/raydb_prelinked.o)
  set_target_properties(raydb_package PROPERTIES LINKER_LANGUAGE CXX)
  # A static library's dependencies come to the user's link line, never to their compile line.
  target_link_libraries(raydb_package PRIVATE ${CMAKE_DL_LIBS})
  if(RAYDB_HAS_CUDA)
    target_link_libraries(raydb_package PRIVATE CUDA::cudart_static)
  endif()
endif()
set_target_properties(raydb_package PROPERTIES OUTPUT_NAME raydb EXPORT_NAME raydb
                                               ARCHIVE_OUTPUT_DIRECTORY ${_pkg_dir}
                                               LIBRARY_OUTPUT_DIRECTORY ${_pkg_dir})
target_link_libraries(raydb_package PUBLIC Threads::Threads)
target_include_directories(raydb_package PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(raydb_package PUBLIC cxx_std_20)
add_library(raydb::raydb ALIAS raydb_package)

# The public headers, the generated version header, the library, the CLI.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/raydb ${PROJECT_BINARY_DIR}/include/raydb
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.hpp"
        # The SQLite reference and the SQL engine are libraries of their own (raydb_sqlite_reference,
        # raydb_sql), not yet in the package: their headers stay out of it too.
        PATTERN "ssb_sqlite.hpp" EXCLUDE PATTERN "sql.hpp" EXCLUDE)
install(TARGETS raydb_package EXPORT raydbTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev)
if(TARGET raydb_cli)
  install(TARGETS raydb_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
endif()

# The CMake package.
set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/raydb)
set(BUILD_SHARED_LIBS_01 0)
if(BUILD_SHARED_LIBS)
  set(BUILD_SHARED_LIBS_01 1)
endif()
install(EXPORT raydbTargets NAMESPACE raydb:: DESTINATION ${_cmake_dir} COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/package/raydbConfig.cmake.in
                              ${_pkg_dir}/raydbConfig.cmake INSTALL_DESTINATION ${_cmake_dir})
# 0.x: a minor version is a new API; from 1.0 the major version is.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_compat SameMinorVersion)
else()
  set(_compat SameMajorVersion)
endif()
write_basic_package_version_file(${_pkg_dir}/raydbConfigVersion.cmake COMPATIBILITY ${_compat})
install(FILES ${_pkg_dir}/raydbConfig.cmake ${_pkg_dir}/raydbConfigVersion.cmake
        DESTINATION ${_cmake_dir} COMPONENT dev)

# pkg-config. The prefix is found from the .pc file's own place, so the package can be installed
# under any --prefix (and by the .deb under /usr) without reconfiguring.
file(RELATIVE_PATH _pc_to_prefix /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)  # any absolute prefix
set(RAYDB_PC_PREFIX "\${pcfiledir}/${_pc_to_prefix}")
string(REGEX REPLACE "/$" "" RAYDB_PC_PREFIX "${RAYDB_PC_PREFIX}")
set(RAYDB_PC_LIBS_PRIVATE "-pthread")
if(CMAKE_DL_LIBS)
  string(APPEND RAYDB_PC_LIBS_PRIVATE " -l${CMAKE_DL_LIBS}")
endif()
set(RAYDB_PC_REQUIRES_PRIVATE "")
if(NOT BUILD_SHARED_LIBS)
  if(RAYDB_HAS_CUDA)
    get_target_property(_cudart CUDA::cudart_static IMPORTED_LOCATION)
    set(RAYDB_PC_LIBS_PRIVATE "${_cudart} -lrt ${RAYDB_PC_LIBS_PRIVATE}")
  endif()
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/package/raydb.pc.in ${_pkg_dir}/raydb.pc @ONLY)
install(FILES ${_pkg_dir}/raydb.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# The Debian package: `cpack -G DEB` in the build folder (configure with -DBUILD_SHARED_LIBS=ON
# for a shared libraydb; either works). Vulkan is loaded at run time (volk), so libvulkan1 is a
# declared dependency that dpkg-shlibdeps cannot see; lavapipe (Mesa >= 25) or a GPU driver
# provides the device.
set(CPACK_PACKAGE_NAME raydb)
set(CPACK_PACKAGE_VENDOR "raydb")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "database operators on GPU ray tracing (Vulkan): library, headers, CMake package and CLI")
set(CPACK_PACKAGE_DESCRIPTION
    "raydb answers index lookups, multi-column scans, star-schema queries and joins by casting rays against bounding-volume hierarchies built with Vulkan, on any device with VK_KHR_acceleration_structure (GPUs, or Mesa's lavapipe on the CPU).")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "raydb developers <raydb@invalid>" CACHE STRING "Debian Maintainer field")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libvulkan1")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "mesa-vulkan-drivers (>= 25) | vulkan-icd")
set(CPACK_DEB_COMPONENT_INSTALL OFF)
include(CPack)
