// tilejit: the command line for kernel authors and operators.
//   tilejit run [op...]                  JIT-compile, check against the reference, time
//   tilejit compile <template> --emit S  print one stage (ir, specialized, cpp, binary, resources)
//   tilejit cache ls|stats|verify|gc|clear
//   tilejit signature <template>         a specialization's arguments
//   tilejit targets
//   tilejit aot <manifest.json>        precompile a grid of kernels into a bundle
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/toolchains/toolchain.h"
#include "nlohmann/json.hpp"
#include "support/status.h"
#include "cache/cache_command.h"
#include "compiler/embedded_files.h"
#include "compiler/jit_compiler.h"
#include "tools/aot/aot_command.h"
#include "tools/cli_options.h"
#include "tools/run_targets.h"
#include "compiler/ops/op.h"
#include "tools/harness/author_reference.h"
#include "tools/harness/op_reference.h"

namespace tilejit {
namespace {

constexpr const char* kUsage = R"(usage: tilejit <command> [options]

commands:
  run [OP...]         JIT-compile ops (all shipped ones by default) for the best device
                      present, run them on random inputs, check against the reference, and
                      show compile time, cache hit/miss and kernel time
  compile TEMPLATE    compile one specialization and print a stage of it
  signature TEMPLATE  list one specialization's arguments (names, dtypes, shapes) in order
  cache SUBCOMMAND    inspect or maintain the kernel cache (tilejit cache --help)
  targets             list the targets, their properties and whether they compile (and run)
                      here (--json for a machine-readable list)
  aot MANIFEST        precompile a manifest's grid of kernels into a bundle (tilejit aot --help)

TEMPLATE is a shipped template name (merge_attn_states, reshape_and_cache, ...) or a path to
a .mlir file. `tilejit <command> --help` describes each command's options.
)";

constexpr const char* kCompileUsage = R"(usage: tilejit compile TEMPLATE [options]
  --target T          target name (tilejit targets); default: host
  -p NAME=VALUE       bind a template parameter (repeatable); unset ones come from the
                      target's tuning table, then the template's default
  --emit STAGE        ir | specialized | cpp | asm | binary | resources (default: cpp);
                      asm is the toolchain's assembly (PTX on NVIDIA)
  -o FILE             write the stage to FILE instead of stdout
  --no-cache          do not read or write the disk cache
)";

constexpr const char* kSignatureUsage = R"(usage: tilejit signature TEMPLATE [options]
  --target T          target name (tilejit targets); default: host
  -p NAME=VALUE       bind a template parameter (repeatable)
  --json              one JSON object instead of a table
Lists the kernel's arguments in call order: name, kind, dtype, shape (symbols are bound from the
tensors at launch; numbers are fixed by the specialization), and whether the kernel writes it.
)";

constexpr const char* kRunUsage = R"(usage: tilejit run [OP | FILE ...] [options]
  OP is an op name (below) or the name of a kernel it launches. FILE is a template file, whatever
  its name: it replaces the kernel it declares (tj.template @NAME) in the op that launches it,
  and that op's reference checks it
  --check OP          check the FILEs as kernels of OP (where their @NAME does not say)
  --template K=FILE   replace kernel K of the ops run by FILE (repeatable), e.g. the split-K
                      decode's paged_decode_reduce
  --reference PATH    check the op's outputs against an author's reference instead of the
                      shipped one: a .py file defining reference(**tensors) over numpy arrays,
                      or a .cpp/.c file defining tilejit_reference() (tools/harness/
                      tilejit_reference.h); the op's problem, tolerance and timing are kept
  --target T          compile for T; default: the best device present (CUDA GPU, else host)
  -p NAME=VALUE       set an op parameter (repeatable; each name once)
  --shape SYM=N       set a shape symbol (repeatable), e.g. --shape num_tokens=4096
  --iterations N      timed launches (default 20), after 3 warm-up launches
  --seed N            random inputs' seed (default 1)
  --no-cache          do not read or write the disk cache
Exit status 1 if any check fails.
)";

absl::StatusOr<KernelSpec> specFor(const std::string& templ, const std::string& target,
                                   const std::map<std::string, std::string>& params) {
  if (templ.find('/') != std::string::npos || templ.find(".mlir") != std::string::npos)
    return KernelSpec::fromFile(templ, target, params);
  return KernelSpec::shipped(templ, target, params);
}

absl::StatusOr<std::unique_ptr<JitCompiler>> makeCompiler(const Options& options) {
  JitOptions jit;
  jit.useDiskCache = !options.noCache;
  return JitCompiler::create(jit);
}

int fail(const absl::Status& status) {
  std::fprintf(stderr, "tilejit: error: %s\n", std::string(status.message()).c_str());
  return 2;
}

int compileCommand(const Options& options) {
  if (options.help) return std::printf("%s", kCompileUsage), 0;
  if (absl::Status ok = checkOptionsFor(options, "compile",
                                        {"--target", "-p", "--emit", "-o", "--no-cache"});
      !ok.ok())
    return fail(ok);
  if (options.positional.size() != 1)
    return fail(absl::InvalidArgumentError("compile takes exactly one TEMPLATE"));
  absl::StatusOr<Stage> stage = parseStage(options.emit);
  if (!stage.ok()) return fail(stage.status());
  absl::StatusOr<KernelSpec> spec = specFor(options.positional[0],
                                            options.target.empty() ? "host" : options.target,
                                            options.params);
  if (!spec.ok()) return fail(spec.status());
  absl::StatusOr<std::unique_ptr<JitCompiler>> jit = makeCompiler(options);
  if (!jit.ok()) return fail(jit.status());
  absl::StatusOr<std::string> text = (*jit)->dumpStage(*spec, *stage);
  if (!text.ok()) return fail(text.status());
  if (options.output.empty()) {
    std::fwrite(text->data(), 1, text->size(), stdout);
  } else {
    std::ofstream out(options.output, std::ios::binary);
    out << *text;
    if (!out) return fail(absl::InternalError("cannot write " + options.output));
  }
  return 0;
}

void printRow(const std::string& name, const OpCheckReport& report) {
  double jitMs = (report.compiled.specializeSeconds + report.compiled.toolchainSeconds) * 1e3;
  std::printf("%-20s %-8s %-10s %9.2e %9.1e %9.1f %9.2f %10.2f %9.1f  %s\n", name.c_str(),
              report.compiled.cacheHit ? "hit" : "miss", report.check.passed ? "pass" : "FAIL",
              report.check.error, report.check.tolerance, jitMs, report.loadSeconds * 1e3, report.medianMs * 1e3,
              report.medianMs > 0 ? report.bytes / (report.medianMs * 1e-3) / 1e9 : 0.0,
              report.check.detail.c_str());
}

// The op's check; a problem too large for this host's memory is an error, not an abort.
absl::StatusOr<OpCheckReport> runCheck(const OpReference& reference, JitCompiler& jit,
                                       Device& device, const OpDefinition& op,
                                       const OpConfig& config, const OpCheckOptions& options,
                                       const std::string& authorReference) {
  try {
    if (!authorReference.empty())
      return runWithAuthorReference(authorReference, reference, jit, device, op, config, options);
    return reference.check(jit, device, op, config, options);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        "the problem's host tensors do not fit in this machine's memory: choose smaller --shape "
        "values");
  } catch (const std::length_error&) {
    return absl::ResourceExhaustedError("the problem's host tensors are too large: choose smaller "
                                        "--shape values");
  }
}

int runCommand(const Options& options) {
  const OpRegistry& ops = OpRegistry::shipped();
  const OpReferenceRegistry& references = OpReferenceRegistry::shipped();
  if (!ops.status().ok()) return fail(ops.status());
  if (!references.status().ok()) return fail(references.status());
  if (options.help) {
    std::printf("%s\nOPs (-p NAME=VALUE sets their parameters):\n", kRunUsage);
    for (const std::string& name : ops.names()) {
      const OpDefinition* op = ops.find(name);
      std::printf("%s: %s\n%s", name.c_str(), op->summary.c_str(), op->schema.describe().c_str());
    }
    return 0;
  }
  if (absl::Status ok = checkOptionsFor(options, "run",
                                        {"--target", "-p", "--shape", "--iterations", "--seed",
                                         "--no-cache", "--check", "--template", "--reference"});
      !ok.ok())
    return fail(ok);
  // The best device present, or the one that runs the target asked for.
  std::string whyNotGpu;
  std::unique_ptr<Device> device;
  if (options.target.empty()) {
    device = createBestDevice(&whyNotGpu);
    if (!device) return fail(absl::UnavailableError(absl::StrCat("no device here: ", whyNotGpu)));
  } else {
    absl::StatusOr<std::unique_ptr<Device>> found = createDeviceForTarget(options.target);
    if (!found.ok())
      return fail(absl::InvalidArgumentError(absl::StrCat(
          "target ", options.target, " cannot run here: ", found.status().message())));
    device = *std::move(found);
  }
  // What runs, and every op's parameters, are settled before anything runs: a bad file, name
  // or parameter is an error naming it.
  absl::StatusOr<std::vector<RunTarget>> targets =
      resolveRunTargets(options.positional, options.check, options.templates, ops);
  if (!targets.ok()) return fail(targets.status());
  if (!options.reference.empty() && targets->size() != 1)
    return fail(absl::InvalidArgumentError(absl::StrCat(
        "--reference ", options.reference, " checks one op; this run has ", targets->size(),
        ": name the op or the template file")));
  struct Run {
    std::string op;
    OpConfig config;
    std::string reference;  // an author's reference file, or "" for the shipped check
  };
  std::vector<Run> runs;
  for (const RunTarget& run : *targets) {
    const OpReference* reference = references.find(run.op);
    if (!reference)
      return fail(absl::InternalError(absl::StrCat("op ", run.op, " has no reference check")));
    absl::StatusOr<OpConfig> config =
        ops.find(run.op)->schema.parse(options.assignments, reference->defaults);
    if (!config.ok()) return fail(config.status());
    config->templateOverrides = run.templateOverrides;
    runs.push_back({run.op, *std::move(config),
                    options.reference.empty() ? run.reference : options.reference});
    if (!runs.back().reference.empty())
      std::printf("%s: checked against %s\n", run.op.c_str(), runs.back().reference.c_str());
    for (const auto& [kernel, file] : run.templateOverrides)
      std::printf("%s: @%s from %s\n", run.op.c_str(), kernel.c_str(), file.c_str());
  }

  std::printf("device: %s%s\n", device->name().c_str(),
              whyNotGpu.empty() ? "" : absl::StrCat(" (no GPU: ", whyNotGpu, ")").c_str());
  absl::StatusOr<std::unique_ptr<JitCompiler>> jit = makeCompiler(options);
  if (!jit.ok()) return fail(jit.status());
  bool allPassed = true;
  std::printf("%-20s %-8s %-10s %9s %9s %9s %9s %10s %9s  %s\n", "op", "cache", "check",
              "error", "tolerance", "jit ms", "load ms", "kernel us", "GB/s", "detail");
  OpCheckOptions checkOptions;
  checkOptions.shape = options.shape;
  checkOptions.iterations = options.iterations;
  checkOptions.seed = options.seed;
  for (const auto& [name, config, reference] : runs) {
    absl::StatusOr<OpCheckReport> report = runCheck(*references.find(name), **jit, *device,
                                                    *ops.find(name), config, checkOptions,
                                                    reference);
    if (!report.ok()) {
      std::printf("%-20s FAILED: %s\n", name.c_str(), std::string(report.status().message()).c_str());
      allPassed = false;
      continue;
    }
    allPassed &= report->check.passed;
    printRow(name, *report);
  }
  return allPassed ? 0 : 1;
}

std::string dimsText(const ArgSpec& arg) {
  std::vector<std::string> dims;
  for (const DimSpec& dim : arg.dims)
    dims.push_back(dim.isSymbolic() ? dim.symbol : std::to_string(dim.value));
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

int signatureCommand(const Options& options) {
  if (options.help) return std::printf("%s", kSignatureUsage), 0;
  if (absl::Status ok = checkOptionsFor(options, "signature", {"--target", "-p", "--json"}); !ok.ok())
    return fail(ok);
  if (options.positional.size() != 1)
    return fail(absl::InvalidArgumentError("signature takes exactly one TEMPLATE"));
  absl::StatusOr<KernelSpec> spec = specFor(options.positional[0],
                                            options.target.empty() ? "host" : options.target,
                                            options.params);
  if (!spec.ok()) return fail(spec.status());
  absl::StatusOr<std::unique_ptr<JitCompiler>> jit = JitCompiler::create({.useDiskCache = false});
  if (!jit.ok()) return fail(jit.status());
  absl::StatusOr<KernelMetadata> metadata = (*jit)->signature(*spec);
  if (!metadata.ok()) return fail(metadata.status());
  if (options.json) {
    nlohmann::ordered_json out;
    out["template"] = metadata->templateName;
    out["target"] = metadata->target;
    for (const auto& [name, value] : metadata->parameters) out["parameters"][name] = value;
    out["arguments"] = nlohmann::ordered_json::array();
    for (const ArgSpec& arg : metadata->args) {
      nlohmann::ordered_json item;
      item["name"] = arg.name;
      item["kind"] = arg.kind == ArgSpec::Kind::kView ? "tensor" : "scalar";
      item["dtype"] = std::string(dtypeName(arg.dtype));
      if (arg.kind == ArgSpec::Kind::kView) {
        item["shape"] = nlohmann::ordered_json::array();
        for (const DimSpec& dim : arg.dims) {
          if (dim.isSymbolic()) item["shape"].push_back(dim.symbol);
          else item["shape"].push_back(dim.value);
        }
        item["writes"] = arg.writable;
        item["contiguous"] = arg.contiguous;
      }
      out["arguments"].push_back(item);
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%s for %s:\n", metadata->templateName.c_str(), metadata->target.c_str());
  for (size_t i = 0; i < metadata->args.size(); ++i) {
    const ArgSpec& arg = metadata->args[i];
    bool view = arg.kind == ArgSpec::Kind::kView;
    std::printf("  %2zu %-18s %-6s %-5s %s%s\n", i, arg.name.c_str(), view ? "tensor" : "scalar",
                std::string(dtypeName(arg.dtype)).c_str(), view ? dimsText(arg).c_str() : "",
                view ? (arg.writable ? "  written" : "  read") : "");
  }
  return 0;
}

// Whether `target` compiles on this machine: its toolchain can be created (the vendor library
// is present), with the reason where not.
std::pair<bool, std::string> compilesHere(const TargetDescription& target) {
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain = createToolchain(target);
  if (!toolchain.ok()) return {false, std::string(toolchain.status().message())};
  return {true, (*toolchain)->identity()};
}

int targetsCommand(const std::vector<std::string>& args) {
  bool json = false;
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::printf("usage: tilejit targets [--json]\n  the targets, their properties, and whether "
                  "each compiles and runs on this machine\n");
      return 0;
    }
    if (arg != "--json")
      return fail(absl::InvalidArgumentError(absl::StrCat("targets does not take '", arg, "' (it takes --json)")));
    json = true;
  }
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  if (!json)
    std::printf("%-8s %-34s %-7s %5s %6s %10s %-8s %s\n", "target", "product", "backend", "warp",
                "SM/CU", "shared KB", "compiles", "runs here");
  for (const TargetDescription& target : allTargets()) {
    auto [compiles, how] = compilesHere(target);
    absl::StatusOr<std::unique_ptr<Device>> device = createDeviceForTarget(target.name);
    if (json) {
      list.push_back({{"target", target.name}, {"product", target.product},
                      {"backend", target.backend}, {"warp", target.warpSize},
                      {"multiprocessors", target.multiprocessorCount},
                      {"shared_bytes", target.sharedBytesPerProgram},
                      {"compiles", compiles}, {"toolchain", how}, {"runs", device.ok()}});
      continue;
    }
    std::printf("%-8s %-34s %-7s %5lld %6lld %10lld %-8s %s\n", target.name.c_str(),
                target.product.c_str(), target.backend.c_str(), (long long)target.warpSize,
                (long long)target.multiprocessorCount,
                (long long)(target.sharedBytesPerProgram / 1024), compiles ? "yes" : "no",
                device.ok() ? "yes" : "no");
    if (!compiles) std::printf("         cannot compile here: %s\n", how.c_str());
  }
  if (json) std::printf("%s\n", list.dump(2).c_str());
  return 0;
}

}  // namespace
}  // namespace tilejit

int main(int argc, char** argv) {
  using namespace tilejit;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::printf("%s", kUsage);
    return args.empty() ? 2 : 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  if (command == "cache") return runCacheCommand(args, std::cout, std::cerr);
  if (command == "targets") return targetsCommand(args);
  if (command == "aot") return runAotCommand(args);
  absl::StatusOr<Options> options = parseOptions(args);
  if (!options.ok()) return fail(options.status());
  if (command == "compile") return compileCommand(*options);
  if (command == "signature") return signatureCommand(*options);
  if (command == "run") return runCommand(*options);
  std::fprintf(stderr, "tilejit: unknown command '%s'\n\n%s", command.c_str(), kUsage);
  return 2;
}
