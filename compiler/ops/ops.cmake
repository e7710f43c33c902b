# Every folder under compiler/ops/ is an op. tilejit_op_sources(<out> <kind> <generated>):
# kind "op": the folders' sources except reference*.cpp, plus a generated file whose
# registerShippedOps() calls each folder's tilejit::ops::register_<folder>(OpRegistry&);
# kind "reference": the folders' reference*.cpp, plus a generated registerShippedReferences()
# calling tilejit::reference::register_<folder>(OpReferenceRegistry&) where a folder has one.
# A new op folder is found at configure time (CONFIGURE_DEPENDS): no list to edit.
function(tilejit_op_sources out kind generated)
  file(GLOB folders LIST_DIRECTORIES true CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/compiler/ops/*)
  set(sources)
  set(declarations)
  set(calls)
  foreach(folder ${folders})
    if(NOT IS_DIRECTORY ${folder})
      continue()
    endif()
    get_filename_component(op ${folder} NAME)
    file(GLOB all CONFIGURE_DEPENDS ${folder}/*.cpp)
    file(GLOB references CONFIGURE_DEPENDS ${folder}/reference*.cpp)
    if(kind STREQUAL "op")
      if(references)
        list(REMOVE_ITEM all ${references})
      endif()
      set(mine ${all})
      set(space ops)
      set(registry OpRegistry)
    else()
      set(mine ${references})
      set(space reference)
      set(registry OpReferenceRegistry)
    endif()
    if(mine)
      list(APPEND sources ${mine})
      string(APPEND declarations "namespace ${space} { absl::Status register_${op}(${registry}& registry); }\n")
      string(APPEND calls "  TJ_RETURN_IF_ERROR(${space}::register_${op}(registry));\n")
    endif()
  endforeach()
  if(kind STREQUAL "op")
    set(header "compiler/ops/op.h")
    set(function "registerShippedOps(OpRegistry& registry)")
  else()
    set(header "tools/harness/op_reference.h")
    set(function "registerShippedReferences(OpReferenceRegistry& registry)")
  endif()
  file(CONFIGURE OUTPUT ${generated} CONTENT "// Generated from the folders of compiler/ops/ (compiler/ops/ops.cmake).
#include \"${header}\"
#include \"support/status.h\"

namespace tilejit {
${declarations}
absl::Status ${function} {
${calls}  return absl::OkStatus();
}
}  // namespace tilejit
")
  set(${out} ${sources} ${generated} PARENT_SCOPE)
endfunction()
