# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
#
# cleave_library(<name> <folder> [PUBLIC <libs>...] [PRIVATE <libs>...])
# One static library from the sources directly in <folder> (a path from the source root, such as
# core/io/relay or ui/canvas/items; its subfolders are libraries of their own).
#
# Layering by construction: the library sees only its own headers and those of the libraries it
# links. Its headers are staged (symlinked) under build/include/<name>/<folder>/, and that staging
# folder, not the source tree, is its include path. An #include of a folder the library does not
# link (a higher layer) therefore fails to compile (docs/ARCHITECTURE.md, "Layers").
function(cleave_library name folder)
  cmake_parse_arguments(ARG "" "" "PUBLIC;PRIVATE" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${folder}/*.cpp)
  file(GLOB headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${folder}/*.h)
  set(stage ${CMAKE_BINARY_DIR}/include/${name})
  file(REMOVE_RECURSE ${stage})
  file(MAKE_DIRECTORY ${stage}/${folder})
  foreach(header IN LISTS headers)
    get_filename_component(file ${header} NAME)
    file(CREATE_LINK ${header} ${stage}/${folder}/${file} SYMBOLIC)
  endforeach()
  add_library(${name} STATIC ${sources} ${headers})
  target_include_directories(${name} PUBLIC ${stage})
  target_link_libraries(${name} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE} cleave_warnings)
endfunction()
