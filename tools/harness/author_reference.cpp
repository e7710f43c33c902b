#include "tools/harness/author_reference.h"

#include <cmath>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "support/status.h"

namespace tilejit {

namespace {

std::string indexText(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] > 0 ? flat % shape[d] : 0;
    flat = shape[d] > 0 ? flat / shape[d] : 0;
  }
  return absl::StrCat("[", absl::StrJoin(index, ", "), "]");
}

}  // namespace

absl::StatusOr<std::vector<std::vector<double>>> evaluateAuthorReference(
    const std::string& path, const std::vector<RecordedArgument>& arguments) {
  if (absl::EndsWith(path, ".py")) return evaluatePythonReference(path, arguments);
  for (const char* suffix : {".cpp", ".cc", ".cxx", ".c"})
    if (absl::EndsWith(path, suffix)) return evaluateCxxReference(path, arguments);
  return absl::InvalidArgumentError(absl::StrCat(
      "--reference ", path, ": not a reference file (a .py file defining reference(**tensors), "
      "or a .cpp/.cc/.cxx/.c file defining tilejit_reference())"));
}

CheckResult compareWithAuthorReference(const std::string& path,
                                       const std::vector<RecordedArgument>& arguments,
                                       const std::vector<std::vector<double>>& expected,
                                       double tolerance) {
  CheckResult result;
  result.tolerance = tolerance;
  std::string worstAt = "no output";
  double worstGot = 0, worstWant = 0;
  int64_t nan = 0, compared = 0;
  size_t output = 0;
  for (const RecordedArgument& argument : arguments) {
    if (!argument.written) continue;
    const std::vector<double>& want = expected[output++];
    double scale = 0, largest = -1;
    int64_t worst = -1;
    for (size_t i = 0; i < want.size(); ++i)
      if (std::isfinite(want[i])) scale = std::max(scale, std::fabs(want[i]));
    for (size_t i = 0; i < want.size(); ++i) {
      double got = argument.after[i];
      if (std::isnan(got) && std::isnan(want[i])) continue;
      ++compared;
      double error = got == want[i] ? 0 : std::fabs(got - want[i]);
      if (std::isnan(error)) error = std::numeric_limits<double>::infinity(), ++nan;
      if (error > largest) largest = error, worst = int64_t(i);
    }
    double relative = largest <= 0 ? 0 : largest / std::max(scale, 1e-30);
    if (worst >= 0 && relative >= result.error) {
      result.error = relative;
      worstAt = argument.name + indexText(argument.shape, worst);
      worstGot = argument.after[size_t(worst)];
      worstWant = want[size_t(worst)];
    }
  }
  result.passed = nan == 0 && result.error <= tolerance;
  result.detail = absl::StrFormat(
      "vs %s: rel L-inf %.3e (tolerance %.0e) over %d elements, %d NaN in one only; worst at "
      "%s: %g vs %g",
      path, result.error, tolerance, compared, nan, worstAt, worstGot, worstWant);
  return result;
}

absl::StatusOr<OpCheckReport> runWithAuthorReference(const std::string& path,
                                                     const OpReference& reference,
                                                     JitCompiler& jit, Device& device,
                                                     const OpDefinition& op,
                                                     const OpConfig& config,
                                                     const OpCheckOptions& options) {
  OpRunRecorder recorder;
  OpDefinition recorded = recorder.wrap(op);
  device.setLaunchObserver(&recorder);
  absl::StatusOr<OpCheckReport> report = reference.check(jit, device, recorded, config, options);
  device.setLaunchObserver(nullptr);
  if (!report.ok()) return report.status();
  TJ_ASSIGN_OR_RETURN(std::vector<RecordedArgument> arguments, recorder.arguments());
  TJ_ASSIGN_OR_RETURN(std::vector<std::vector<double>> expected,
                      evaluateAuthorReference(path, arguments));
  bool ownCheck = report->check.passed;
  report->check = compareWithAuthorReference(path, arguments, expected, report->check.tolerance);
  report->check.detail += absl::StrCat(" (the op's own check: ", ownCheck ? "pass" : "FAIL", ")");
  return report;
}

}  // namespace tilejit
