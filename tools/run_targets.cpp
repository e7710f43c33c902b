#include "tools/run_targets.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/specialize/specializer.h"

namespace tilejit {
namespace {

bool isTemplateFile(const std::string& name) {
  return name.find('/') != std::string::npos ||
         (name.size() > 5 && name.compare(name.size() - 5, 5, ".mlir") == 0);
}

absl::StatusOr<std::string> declaredIn(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read template file '", path, "'"));
  std::ostringstream text;
  text << in.rdbuf();
  std::string name = declaredTemplateName(text.str());
  if (name.empty())
    return absl::InvalidArgumentError(absl::StrCat(
        "'", path, "' declares no template (a tj.template @name { ... } op): not a tj template"));
  return name;
}

// The op that launches kernel `name`, preferring the op of that name.
const OpDefinition* opFor(const std::string& name, const OpRegistry& ops) {
  if (const OpDefinition* op = ops.find(name)) return op;
  return ops.findByKernel(name);
}

RunTarget* targetFor(std::vector<RunTarget>& targets, const std::string& op) {
  for (RunTarget& target : targets)
    if (target.op == op) return &target;
  targets.push_back({op, {}});
  return &targets.back();
}

}  // namespace

absl::StatusOr<std::vector<RunTarget>> resolveRunTargets(
    const std::vector<std::string>& positional, const std::string& checkOp,
    const std::map<std::string, std::string>& templateFlags, const OpRegistry& ops) {
  std::string known = absl::StrJoin(ops.names(), ", ");
  const OpDefinition* forced = nullptr;
  if (!checkOp.empty() && !(forced = ops.find(checkOp)))
    return absl::InvalidArgumentError(absl::StrCat("--check ", checkOp, ": no such op (ops: ", known, ")"));
  std::vector<RunTarget> targets;
  for (const std::string& name : positional) {
    if (!isTemplateFile(name)) {
      const OpDefinition* op = opFor(name, ops);
      if (!op)
        return absl::InvalidArgumentError(absl::StrCat("'", name, "' is neither an op nor a kernel of one (ops: ", known,
                                                       "); a template file needs a path or a .mlir name"));
      targetFor(targets, op->name);
      continue;
    }
    absl::StatusOr<std::string> declared = declaredIn(name);
    if (!declared.ok()) return declared.status();
    const OpDefinition* op = forced ? forced : opFor(*declared, ops);
    if (!op)
      return absl::InvalidArgumentError(absl::StrCat(
          "'", name, "' declares @", *declared, ", which no op launches: name the op to check it "
          "against with --check OP (ops: ", known, ")"));
    RunTarget* target = targetFor(targets, op->name);
    if (target->templateOverrides.count(*declared))
      return absl::InvalidArgumentError(absl::StrCat("two files replace @", *declared, " of op ", op->name));
    target->templateOverrides[*declared] = name;
  }
  if (positional.empty()) {
    if (forced) targets.push_back({forced->name, {}});
    else
      for (const std::string& name : ops.names()) targets.push_back({name, {}});
  }
  for (const auto& [kernel, file] : templateFlags) {
    absl::StatusOr<std::string> declared = declaredIn(file);
    if (!declared.ok()) return declared.status();
    if (*declared != kernel)
      return absl::InvalidArgumentError(absl::StrCat("--template ", kernel, "=", file, ": the file declares @",
                                                     *declared, ", not @", kernel));
    bool used = false;
    for (RunTarget& target : targets) {
      const OpDefinition* op = ops.find(target.op);
      if (std::find(op->kernels.begin(), op->kernels.end(), kernel) == op->kernels.end()) continue;
      if (target.templateOverrides.count(kernel))
        return absl::InvalidArgumentError(absl::StrCat("--template ", kernel, "=", file,
                                                       ": another file already replaces @", kernel));
      target.templateOverrides[kernel] = file;
      used = true;
    }
    if (!used)
      return absl::InvalidArgumentError(absl::StrCat("--template ", kernel, "=", file,
                                                     ": no op being run launches a kernel @", kernel));
  }
  return targets;
}

}  // namespace tilejit
