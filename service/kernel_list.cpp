#include "service/kernel_list.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace tilejit::service {

absl::StatusOr<std::vector<CompileRequest>> parseKernelList(const std::string& text) {
  std::vector<CompileRequest> requests;
  int lineNumber = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++lineNumber;
    line = line.substr(0, line.find('#'));
    std::vector<absl::string_view> words = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (words.empty()) continue;
    CompileRequest request;
    request.templateRef = std::string(words[0]);
    for (size_t i = 1; i < words.size(); ++i) {
      size_t equals = words[i].find('=');
      if (equals == absl::string_view::npos || equals == 0)
        return absl::InvalidArgumentError(absl::StrCat("kernel list line ", lineNumber, ": '",
                                                       std::string(words[i]), "' is not name=value"));
      request.parameters.emplace_back(std::string(words[i].substr(0, equals)),
                                      std::string(words[i].substr(equals + 1)));
    }
    requests.push_back(std::move(request));
  }
  if (requests.empty()) return absl::InvalidArgumentError("the kernel list names no kernel");
  return requests;
}

}  // namespace tilejit::service
