# cmake -DLD=... -DNM=... -DOBJCOPY=... -DOUTPUT=<.o> -DARCHIVES=<a;b> -P Prelink.cmake
#
# Links raydb's archives into one relocatable object and makes the bundled third-party code
# local to it: volk's function pointers (vkCreateInstance, ... are variables in volk) and Vulkan
# Memory Allocator's functions. A host that links libvulkan or its own volk/VMA next to raydb
# would otherwise resolve its vk* calls to raydb's volk variables, or meet two VMAs. Weak
# (inline, template) symbols stay as they are: the linker merges those by name.
foreach(var LD NM OBJCOPY OUTPUT ARCHIVES)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "Prelink.cmake: ${var} is not set")
  endif()
endforeach()
set(_all "${OUTPUT}.all.o")
execute_process(COMMAND "${LD}" -r -o "${_all}" --whole-archive ${ARCHIVES} --no-whole-archive
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "Prelink.cmake: ld -r failed (${rc})")
endif()
execute_process(COMMAND "${NM}" --defined-only --extern-only "${_all}" OUTPUT_VARIABLE symbols
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "Prelink.cmake: nm failed (${rc})")
endif()
string(REPLACE "\n" ";" symbols "${symbols}")
set(local)
foreach(line IN LISTS symbols)
  # "<address> <type> <name>"; strong definitions only (T D B R), not weak (W V) or common.
  if(line MATCHES "^[0-9a-fA-F]+ [TDBR] (.+)$")
    set(name "${CMAKE_MATCH_1}")
    if(name MATCHES "^(vk|volk|vma|Vma)" OR name MATCHES "^_Z.*Vma")
      list(APPEND local "${name}")
    endif()
  endif()
endforeach()
list(LENGTH local n)
if(n EQUAL 0)
  message(FATAL_ERROR "Prelink.cmake: no volk/VMA symbols found in ${ARCHIVES}; did the sources move?")
endif()
list(JOIN local "\n" text)
file(WRITE "${OUTPUT}.local" "${text}\n")
execute_process(COMMAND "${OBJCOPY}" "--localize-symbols=${OUTPUT}.local" "${_all}" "${OUTPUT}"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "Prelink.cmake: objcopy failed (${rc})")
endif()
file(REMOVE "${_all}")
