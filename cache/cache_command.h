// `tilejit cache ls|stats|verify|gc|clear`: the maintenance CLI over DiskCache. The tilejit
// driver passes the arguments after "cache".
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tilejit {

// Returns the process exit code: 0 success, 1 failure (or corrupt entries found by verify),
// 2 usage error.
int runCacheCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tilejit
