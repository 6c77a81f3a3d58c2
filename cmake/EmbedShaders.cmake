# raydb_embed_shaders(TARGET <lib> SOURCES <glsl files...>)
# Compiles each GLSL file with glslc into SPIR-V, written as a comma-separated list of words
# (glslc -mfmt=num) that src/backend/vk/shaders.cpp #includes, so the library carries its shaders
# and needs no files at run time.
function(raydb_embed_shaders)
  cmake_parse_arguments(ARG "" "TARGET;OUTPUT_DIR" "SOURCES;DEPENDS" ${ARGN})
  set(outputs)
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(name ${src} NAME)
    set(out ${ARG_OUTPUT_DIR}/${name}.inc)
    add_custom_command(
      OUTPUT ${out}
      COMMAND ${GLSLC} --target-env=vulkan1.2 -O -Werror -mfmt=num
              -I ${CMAKE_SOURCE_DIR}/shaders -MD -MF ${out}.d -o ${out} ${src}
      DEPENDS ${src} ${ARG_DEPENDS}
      DEPFILE ${out}.d
      COMMENT "glslc ${name}"
      VERBATIM)
    list(APPEND outputs ${out})
  endforeach()
  add_custom_target(${ARG_TARGET} DEPENDS ${outputs})
endfunction()
