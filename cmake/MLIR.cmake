# MLIR/LLVM, linked statically so the compiler can share a process with PyTorch/Triton (which
# carry their own LLVM) and so build/bin travels to the GPU machine without libLLVM/libMLIR.
find_package(MLIR REQUIRED CONFIG)
list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
separate_arguments(tilejit_llvm_definitions NATIVE_COMMAND ${LLVM_DEFINITIONS})
add_definitions(${tilejit_llvm_definitions})

# Debian's MLIR archives name the shared libLLVM in their link interface; point them at the
# static component archives instead.
llvm_map_components_to_libnames(tilejit_llvm_static_libs Support Core Demangle TargetParser BinaryFormat)
get_property(tilejit_imported DIRECTORY PROPERTY IMPORTED_TARGETS)
foreach(target ${tilejit_imported})
  if(target MATCHES "^MLIR")
    get_target_property(deps ${target} INTERFACE_LINK_LIBRARIES)
    if(deps)
      list(TRANSFORM deps REPLACE "^LLVM$" "${tilejit_llvm_static_libs}")
      set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
    endif()
  endif()
endforeach()
