# fuzz_template: the template parser, verifier, specializer and emitter under libFuzzer. It
# needs the MLIR build, so it is a target of the main project configured by tests/fuzz/run.sh
# in build-fuzz-mlir/ with clang and the sanitizers on every tilejit source (MLIR's own
# archives are Debian's, uninstrumented: a fault inside MLIR is seen only where ASan sees it).
add_executable(fuzz_template ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_template.cpp)
target_link_libraries(fuzz_template PRIVATE tilejit_frontend)
target_link_options(fuzz_template PRIVATE -fsanitize=fuzzer)
