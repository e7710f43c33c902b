// The command line's option parser on arbitrary argument lists (NUL-separated): an error naming
// the problem, never a crash, and parsed values inside their documented ranges.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/cli_options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) args.emplace_back();
    else args.back().push_back(char(data[i]));
  }
  absl::StatusOr<tilejit::Options> options = tilejit::parseOptions(args);
  if (!options.ok()) {
    if (options.status().message().empty()) std::abort();  // every error says what is wrong
    return 0;
  }
  for (const auto& [name, value] : options->shape)
    if (value < 0 || value > tilejit::kMaxShapeSymbol || name.empty()) std::abort();
  if (options->iterations < 0 || options->iterations > tilejit::kMaxIterations) std::abort();
  (void)tilejit::checkOptionsFor(*options, "run", {"--target", "-p"});
  return 0;
}
