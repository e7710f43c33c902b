#include "tools/cli_options.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/status.h"

namespace tilejit {
namespace {

// Flags that may appear more than once (each NAME once, checked separately).
bool repeatable(std::string_view flag) {
  return flag == "-p" || flag == "--shape" || flag == "--template";
}

std::string canonical(const std::string& flag) { return flag == "--param" ? "-p" : flag; }

}  // namespace

absl::StatusOr<Options> parseOptions(const std::vector<std::string>& args) {
  Options options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> absl::StatusOr<std::string> {
      if (i + 1 >= args.size()) return absl::InvalidArgumentError(arg + " needs a value");
      return args[++i];
    };
    auto keyValue = [&](const std::string& text) -> absl::StatusOr<std::pair<std::string, std::string>> {
      size_t eq = text.find('=');
      if (eq == std::string::npos || eq == 0)
        return absl::InvalidArgumentError(absl::StrCat(arg, " expects NAME=VALUE, got '", text, "'"));
      return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
    };
    if (!arg.empty() && arg[0] == '-') {
      std::string flag = canonical(arg);
      if (!options.given.insert(flag).second && !repeatable(flag))
        return absl::InvalidArgumentError(absl::StrCat("option ", arg, " given twice"));
    }
    if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else if (arg == "--target") {
      TJ_ASSIGN_OR_RETURN(options.target, value());
    } else if (arg == "-p" || arg == "--param") {
      TJ_ASSIGN_OR_RETURN(std::string text, value());
      TJ_ASSIGN_OR_RETURN(auto pair, keyValue(text));
      if (options.params.count(pair.first)) {
        return absl::InvalidArgumentError(absl::StrCat("parameter '", pair.first, "' given twice (-p ",
                                                       pair.first, "=", options.params[pair.first],
                                                       " and -p ", text, ")"));
      }
      options.params[pair.first] = pair.second;
      options.assignments.push_back(text);
    } else if (arg == "--shape") {
      TJ_ASSIGN_OR_RETURN(std::string text, value());
      TJ_ASSIGN_OR_RETURN(auto pair, keyValue(text));
      int64_t n;
      if (!absl::SimpleAtoi(pair.second, &n) || n < 0 || n > kMaxShapeSymbol)
        return absl::InvalidArgumentError(absl::StrCat(
            "--shape ", text, ": not a size from 0 to ", kMaxShapeSymbol));
      if (options.shape.count(pair.first))
        return absl::InvalidArgumentError(absl::StrCat("shape symbol '", pair.first, "' given twice"));
      options.shape[pair.first] = n;
    } else if (arg == "--template") {
      TJ_ASSIGN_OR_RETURN(std::string text, value());
      TJ_ASSIGN_OR_RETURN(auto pair, keyValue(text));
      if (!options.templates.emplace(pair.first, pair.second).second)
        return absl::InvalidArgumentError(absl::StrCat("--template ", pair.first, " given twice"));
    } else if (arg == "--check") {
      TJ_ASSIGN_OR_RETURN(options.check, value());
    } else if (arg == "--reference") {
      TJ_ASSIGN_OR_RETURN(options.reference, value());
      if (options.reference.empty())
        return absl::InvalidArgumentError("--reference expects a file (.py or .cpp), got ''");
    } else if (arg == "--emit") {
      TJ_ASSIGN_OR_RETURN(options.emit, value());
    } else if (arg == "-o") {
      TJ_ASSIGN_OR_RETURN(options.output, value());
    } else if (arg == "--iterations") {
      TJ_ASSIGN_OR_RETURN(std::string text, value());
      if (!absl::SimpleAtoi(text, &options.iterations) || options.iterations < 0 ||
          options.iterations > kMaxIterations)
        return absl::InvalidArgumentError(
            absl::StrCat("--iterations expects a count from 0 to ", kMaxIterations, ", got '", text, "'"));
    } else if (arg == "--seed") {
      TJ_ASSIGN_OR_RETURN(std::string text, value());
      if (!absl::SimpleAtoi(text, &options.seed))
        return absl::InvalidArgumentError(absl::StrCat("--seed expects a non-negative integer, got '", text, "'"));
    } else if (arg == "--no-cache") {
      options.noCache = true;
    } else if (arg == "--json") {
      options.json = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg, "'"));
    } else {
      options.positional.push_back(arg);
    }
  }
  return options;
}

absl::Status checkOptionsFor(const Options& options, std::string_view command,
                             std::initializer_list<const char*> accepted) {
  for (const std::string& flag : options.given) {
    if (flag == "--help" || flag == "-h") continue;
    if (std::find_if(accepted.begin(), accepted.end(),
                     [&](const char* a) { return flag == a; }) != accepted.end())
      continue;
    std::string name(command);
    return absl::InvalidArgumentError(absl::StrCat(name, " does not take ", flag, " (it takes ",
                                                   absl::StrJoin(accepted, ", "), "; tilejit ",
                                                   name, " --help)"));
  }
  return absl::OkStatus();
}

}  // namespace tilejit
