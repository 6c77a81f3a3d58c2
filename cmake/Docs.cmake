# The API reference (Doxygen) from the public headers: `cmake --build build --target docs` writes
# build/docs/html/index.html. Warnings are errors (cmake/docs/Doxyfile.in): an undocumented public
# class, function or member fails the target and the ctest entry "docs: ...", so CI keeps every
# public name documented. tools/setup.sh installs doxygen.
find_package(Doxygen QUIET)
set(RAYDB_DOCS_OUT ${PROJECT_BINARY_DIR}/docs)
set(RAYDB_DOCS_VERSION_HEADER ${PROJECT_BINARY_DIR}/include/raydb/version.hpp)
configure_file(${PROJECT_SOURCE_DIR}/cmake/docs/Doxyfile.in ${RAYDB_DOCS_OUT}/Doxyfile @ONLY)
if(DOXYGEN_FOUND)
  add_custom_target(docs
    COMMAND ${CMAKE_COMMAND} -E make_directory ${RAYDB_DOCS_OUT}
    COMMAND Doxygen::doxygen ${RAYDB_DOCS_OUT}/Doxyfile
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    COMMENT "API reference: ${RAYDB_DOCS_OUT}/html/index.html (warnings are errors)"
    VERBATIM)
  set(RAYDB_DOCS_COMMAND Doxygen::doxygen ${RAYDB_DOCS_OUT}/Doxyfile)
else()
  message(STATUS "raydb: doxygen not found; no docs target (tools/setup.sh installs it)")
  add_custom_target(docs
    COMMAND ${CMAKE_COMMAND} -E echo "docs: doxygen not found (tools/setup.sh installs it)"
    COMMAND ${CMAKE_COMMAND} -E false)
  set(RAYDB_DOCS_COMMAND ${CMAKE_COMMAND} -E false)
endif()
