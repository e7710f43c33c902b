#include "tools/aot/aot_preflight.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/status.h"

namespace tilejit {
namespace {

absl::StatusOr<KernelSpec> bareSpec(const AotSpecRequest& request) {
  if (isTemplatePath(request.templateRef))
    return KernelSpec::fromFile(request.templateRef, request.target, ParameterMap{});
  return KernelSpec::shipped(request.templateRef, request.target, ParameterMap{});
}

}  // namespace

absl::Status checkBundleOutput(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
    return absl::InvalidArgumentError(absl::StrCat("bundle path '", path, "' is a directory"));
  std::string probe = absl::StrCat(path, ".probe.", ::getpid());
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot write the bundle '", path, "': ", std::strerror(errno), " (checked before compiling)"));
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return absl::OkStatus();
}

absl::Status checkAotSize(size_t specs, size_t limit) {
  if (specs <= limit) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "the manifest expands to ", specs, " specializations, more than the limit of ", limit,
      ": narrow its grids, or pass --max-specs ", specs, " to compile them all"));
}

absl::Status checkAotRequests(const std::vector<AotSpecRequest>& requests, JitCompiler& jit) {
  std::set<std::string> targetsChecked;
  // Template -> its declared parameters (parsed once per template).
  std::map<std::string, std::set<std::string>> declared;
  for (const AotSpecRequest& request : requests) {
    if (targetsChecked.insert(request.target).second) {
      absl::StatusOr<const TargetDescription*> target = lookupTarget(request.target);
      if (!target.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(request.describe(), ": ", target.status().message()));
      }
    }
    auto found = declared.find(request.templateRef);
    if (found == declared.end()) {
      absl::StatusOr<KernelSpec> spec = bareSpec(request);
      absl::StatusOr<std::vector<std::string>> names =
          spec.ok() ? jit.parameterNames(*spec) : spec.status();
      if (!names.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("template '", request.templateRef, "': ", names.status().message()));
      }
      found = declared.emplace(request.templateRef,
                               std::set<std::string>(names->begin(), names->end())).first;
    }
    for (const auto& [name, value] : request.parameters) {
      if (found->second.count(name)) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "template '", request.templateRef, "' has no parameter '", name, "' (its parameters: ",
          absl::StrJoin(found->second, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace tilejit
