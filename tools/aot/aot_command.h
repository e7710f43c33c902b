// `tilejit aot MANIFEST [--jobs N] [-o BUNDLE]`: precompile a manifest's kernels into a bundle.
#pragma once

#include <string>
#include <vector>

namespace tilejit {

// `args` excludes the "aot" word. Exit status: 0 all compiled or skipped, 1 some failed (the
// bundle still holds the rest), 2 usage or fatal errors.
int runAotCommand(const std::vector<std::string>& args);

}  // namespace tilejit
