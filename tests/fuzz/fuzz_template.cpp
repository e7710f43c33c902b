// The template front end on arbitrary text: parse with the tj dialect, verify, specialize for a
// target with parameters read off the input, and emit C++ where it specializes (no compiler
// runs). Errors, never a crash; what emits is emitted again to the same bytes (the emitter
// promises determinism), and specializing leaves the parsed module as it was.
//
// Input: template text, optionally followed by a NUL and "target\nname=value\n..." (the
// target defaults to "host", parameters to the template's defaults and the target's tuning).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "compiler/emit/cpp_emitter.h"
#include "compiler/specialize/specializer.h"
#include "compiler/targets/target_description.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

namespace {

struct FuzzInput {
  std::string_view text;
  std::string target = "host";
  tilejit::ParameterMap parameters;
};

FuzzInput splitInput(std::string_view data) {
  FuzzInput input;
  size_t separator = data.find('\0');
  input.text = data.substr(0, separator);
  if (separator == std::string_view::npos) return input;
  std::string_view rest = data.substr(separator + 1);
  for (bool first = true; !rest.empty(); first = false) {
    size_t end = std::min(rest.find('\n'), rest.size());
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    if (first) {
      if (!line.empty()) input.target = std::string(line);
      continue;
    }
    size_t equals = line.find('=');
    if (equals == std::string_view::npos) continue;
    input.parameters[std::string(line.substr(0, equals))] = std::string(line.substr(equals + 1));
  }
  return input;
}

std::string printed(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

}  // namespace

// LLVM's allocators poison their free space when the header code is built under ASan, but the
// uninstrumented MLIR archives allocate from the same pools without unpoisoning: such
// "use-after-poison" reports are the mix, not a fault. Real overflows are still reported.
extern "C" const char* __asan_default_options() { return "allow_user_poisoning=0"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput input = splitInput(std::string_view(reinterpret_cast<const char*>(data), size));
  absl::StatusOr<const tilejit::TargetDescription*> target = tilejit::lookupTarget(input.target);
  if (!target.ok()) return 0;

  // A context per input: nothing uniqued by one input outlives it.
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  auto parsed = tilejit::parseTemplate(context, input.text, "fuzz.mlir");
  if (!parsed.ok()) return 0;
  std::string before = printed(**parsed);
  absl::StatusOr<tilejit::SpecializedKernel> specialized =
      tilejit::specializeTemplate(**parsed, **target, input.parameters);
  if (printed(**parsed) != before) std::abort();  // specialization must work on a clone
  if (!specialized.ok()) return 0;

  absl::StatusOr<tilejit::EmittedKernel> emitted =
      tilejit::emitKernel(specialized->templateOp, **target);
  if (!emitted.ok()) return 0;
  absl::StatusOr<tilejit::EmittedKernel> again =
      tilejit::emitKernel(specialized->templateOp, **target);
  if (!again.ok() || again->source != emitted->source || emitted->source.empty()) std::abort();
  return 0;
}
