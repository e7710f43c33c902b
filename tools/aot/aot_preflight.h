// What makes a whole AOT run wrong is found before anything compiles, so a bad manifest costs
// seconds, not the hours of a large grid, and writes nothing: an output that cannot be written,
// a grid past the limit, an unknown template, target or parameter.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/jit_compiler.h"
#include "tools/aot/aot_manifest.h"

namespace tilejit {

// The bundle can be created at `path`: not a directory, in an existing folder this process can
// write (a probe file is created there and removed).
absl::Status checkBundleOutput(const std::string& path);

// Every request's template exists and parses, its target is known, and every parameter it sets
// is one the template declares (each template and target checked once).
absl::Status checkAotRequests(const std::vector<AotSpecRequest>& requests, JitCompiler& jit);

// More than `limit` specializations is an error that names the count and the flag that allows it.
absl::Status checkAotSize(size_t specs, size_t limit);

}  // namespace tilejit
