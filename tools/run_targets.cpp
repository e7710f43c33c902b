#include "tools/run_targets.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/specialize/specializer.h"

namespace tilejit {
namespace {

// The template's `tj.reference` attribute, or "" where it has none (or does not parse: the run
// reports the file's diagnostics when it compiles it).
absl::StatusOr<std::string> declaredReference(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  auto parsed = parseTemplate(context, text.str(), path);
  if (!parsed.ok()) return std::string();
  absl::StatusOr<mlir::tj::TemplateOp> templ = findTemplate(**parsed);
  if (!templ.ok()) return std::string();
  mlir::Attribute attribute = (*templ)->getAttr("tj.reference");
  if (!attribute) return std::string();
  auto name = mlir::dyn_cast<mlir::StringAttr>(attribute);
  if (!name || name.getValue().empty())
    return absl::InvalidArgumentError(absl::StrCat(
        "'", path, "': tj.reference must be a string naming an op or a reference file"));
  return name.getValue().str();
}

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
    absl::StatusOr<std::string> reference = declaredReference(name);
    if (!reference.ok()) return reference.status();
    const OpDefinition* byReference = reference->empty() ? nullptr : ops.find(*reference);
    std::string referenceFile;
    if (!reference->empty() && !byReference)
      referenceFile = (std::filesystem::path(name).parent_path() / *reference).string();
    const OpDefinition* op = forced ? forced : byReference ? byReference : opFor(*declared, ops);
    if (!op)
      return absl::InvalidArgumentError(absl::StrCat(
          "'", name, "' declares @", *declared, ", which no op launches: name the op to check it "
          "against with --check OP (ops: ", known, ")"));
    // A file checked as another op's kernel (--check, tj.reference) replaces that kernel; where
    // the op launches several, it must say which by its name.
    if (std::find(op->kernels.begin(), op->kernels.end(), *declared) == op->kernels.end()) {
      if (op->kernels.size() != 1)
        return absl::InvalidArgumentError(absl::StrCat(
            "'", name, "' declares @", *declared, ", which op ", op->name, " does not launch (its "
            "kernels: ", absl::StrJoin(op->kernels, ", "), "): name the template after the one "
            "it replaces"));
      *declared = op->kernels.front();
    }
    RunTarget* target = targetFor(targets, op->name);
    if (target->templateOverrides.count(*declared))
      return absl::InvalidArgumentError(absl::StrCat("two files replace @", *declared, " of op ", op->name));
    target->templateOverrides[*declared] = name;
    if (!referenceFile.empty()) target->reference = referenceFile;
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
