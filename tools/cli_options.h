// The options of `tilejit compile|run|signature`: parsed once, every value checked (numbers in
// range, NAME=VALUE forms, a parameter or shape symbol given once), and each command accepts
// only its own flags, so nothing given on the command line is silently ignored.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tilejit {

// Shape symbols above this are refused before anything is allocated (the harness's host
// tensors index with 64 bits, but a typo of three zeros should not start a 40 GB allocation).
inline constexpr int64_t kMaxShapeSymbol = (int64_t(1) << 31) - 1;
inline constexpr int kMaxIterations = 1000000;

struct Options {
  std::vector<std::string> positional;
  std::string target;
  std::map<std::string, std::string> params;
  std::vector<std::string> assignments;  // every -p as given, for an op's schema
  std::map<std::string, int64_t> shape;
  std::string check;                            // run: the op a template file is checked as
  std::map<std::string, std::string> templates;  // run: --template NAME=FILE
  std::string reference;                         // run: an author's reference file
  std::string emit = "cpp";
  std::string output;
  int iterations = 20;
  uint64_t seed = 1;
  bool noCache = false;
  bool json = false;
  bool help = false;
  std::set<std::string> given;  // the flags that appeared, by their canonical spelling
};

absl::StatusOr<Options> parseOptions(const std::vector<std::string>& args);

// An error naming the first flag `command` does not take.
absl::Status checkOptionsFor(const Options& options, std::string_view command,
                             std::initializer_list<const char*> accepted);

}  // namespace tilejit
