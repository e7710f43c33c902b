// The tuning files as compiled at build time: tilejit-tuning-compile (tuning_compile.cpp)
// parses and checks every file and writes the table below as C++ (tuning_tables.cpp in the
// build folder), so a process builds a target's tuning from constants instead of parsing JSON.
#pragma once

#include <string_view>

#include "absl/types/span.h"
#include "compiler/tuning/tuning_file.h"

namespace tilejit {

struct CompiledTuning {
  std::string_view target;
  TargetTuning (*build)();  // constructs the file's tuning, every field as parsed
};

// One entry per tuning file, sorted by target.
absl::Span<const CompiledTuning> compiledTunings();

}  // namespace tilejit
