// tilejit: the command line for kernel authors and operators.
//   tilejit run [op...]                  JIT-compile, check against the reference, time
//   tilejit compile <template> --emit S  print one stage (ir, specialized, cpp, binary, resources)
//   tilejit cache ls|stats|verify|gc|clear
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
#include "support/status.h"
#include "cache/cache_command.h"
#include "compiler/embedded_files.h"
#include "compiler/jit_compiler.h"
#include "tools/aot/aot_command.h"
#include "compiler/ops/op.h"
#include "tools/harness/op_reference.h"

namespace tilejit {
namespace {

constexpr const char* kUsage = R"(usage: tilejit <command> [options]

commands:
  run [OP...]         JIT-compile ops (all shipped ones by default) for the best device
                      present, run them on random inputs, check against the reference, and
                      show compile time, cache hit/miss and kernel time
  compile TEMPLATE    compile one specialization and print a stage of it
  cache SUBCOMMAND    inspect or maintain the kernel cache (tilejit cache --help)
  targets             list the targets and their properties
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

constexpr const char* kRunUsage = R"(usage: tilejit run [OP...] [options]
  OP is an op name (below) or a template file for one (its file name names the op)
  --target T          compile for T; default: the best device present (CUDA GPU, else host)
  -p NAME=VALUE       set an op parameter (repeatable; each name once)
  --shape SYM=N       set a shape symbol (repeatable), e.g. --shape num_tokens=4096
  --iterations N      timed launches (default 20), after 3 warm-up launches
  --seed N            random inputs' seed (default 1)
  --no-cache          do not read or write the disk cache
Exit status 1 if any check fails.
)";

struct Options {
  std::vector<std::string> positional;
  std::string target;
  std::map<std::string, std::string> params;
  std::vector<std::string> assignments;  // every -p as given, for an op's schema
  std::map<std::string, int64_t> shape;
  std::string emit = "cpp";
  std::string output;
  int iterations = 20;
  uint64_t seed = 1;
  bool noCache = false;
  bool help = false;
};

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
    if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else if (arg == "--target") {
      TJ_ASSIGN_OR_RETURN(options.target, value());
    } else if (arg == "-p" || arg == "--param") {
      TJ_ASSIGN_OR_RETURN(std::string text, value());
      TJ_ASSIGN_OR_RETURN(auto pair, keyValue(text));
      options.params[pair.first] = pair.second;
      options.assignments.push_back(text);
    } else if (arg == "--shape") {
      TJ_ASSIGN_OR_RETURN(std::string text, value());
      TJ_ASSIGN_OR_RETURN(auto pair, keyValue(text));
      int64_t n;
      if (!absl::SimpleAtoi(pair.second, &n) || n < 0)
        return absl::InvalidArgumentError(absl::StrCat("--shape ", text, ": not a size"));
      options.shape[pair.first] = n;
    } else if (arg == "--emit") {
      TJ_ASSIGN_OR_RETURN(options.emit, value());
    } else if (arg == "-o") {
      TJ_ASSIGN_OR_RETURN(options.output, value());
    } else if (arg == "--iterations") {
      TJ_ASSIGN_OR_RETURN(std::string text, value());
      if (!absl::SimpleAtoi(text, &options.iterations) || options.iterations < 0)
        return absl::InvalidArgumentError("--iterations expects a count");
    } else if (arg == "--seed") {
      TJ_ASSIGN_OR_RETURN(std::string text, value());
      if (!absl::SimpleAtoi(text, &options.seed))
        return absl::InvalidArgumentError("--seed expects a number");
    } else if (arg == "--no-cache") {
      options.noCache = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg, "'"));
    } else {
      options.positional.push_back(arg);
    }
  }
  return options;
}

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
  std::printf("%-20s %-8s %-10s %9.2e %9.1f %9.2f %10.2f %9.1f  %s\n", name.c_str(),
              report.compiled.cacheHit ? "hit" : "miss", report.check.passed ? "pass" : "FAIL",
              report.check.error, jitMs, report.loadSeconds * 1e3, report.medianMs * 1e3,
              report.medianMs > 0 ? report.bytes / (report.medianMs * 1e-3) / 1e9 : 0.0,
              report.check.detail.c_str());
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
  std::string target = device->target();
  std::vector<std::string> names = options.positional;
  if (names.empty()) {
    names = shippedTemplateNames();
    for (const std::string& op : ops.names())
      if (std::find(names.begin(), names.end(), op) == names.end()) names.push_back(op);
    std::sort(names.begin(), names.end());
  }
  // Every op's parameters are parsed before anything runs: a bad one is an error naming it.
  std::vector<std::pair<std::string, absl::StatusOr<OpConfig>>> runs;
  for (const std::string& name : names) {
    std::string stem = name;
    if (size_t slash = stem.rfind('/'); slash != std::string::npos) stem = stem.substr(slash + 1);
    if (size_t dot = stem.rfind(".mlir"); dot != std::string::npos) stem = stem.substr(0, dot);
    const OpDefinition* op = ops.find(stem);
    const OpReference* reference = references.find(stem);
    if (!op || !reference) {
      absl::StatusOr<KernelSpec> spec = specFor(name, target, options.params);
      if (!spec.ok()) return fail(spec.status());
      runs.emplace_back(stem, absl::NotFoundError(""));
      continue;
    }
    absl::StatusOr<OpConfig> config = op->schema.parse(options.assignments, reference->defaults);
    if (!config.ok()) return fail(config.status());
    if (name != stem) config->templateOverrides[stem] = name;  // a template file for the op
    runs.emplace_back(stem, std::move(config));
  }

  std::printf("device: %s%s\n", device->name().c_str(),
              whyNotGpu.empty() ? "" : absl::StrCat(" (no GPU: ", whyNotGpu, ")").c_str());
  absl::StatusOr<std::unique_ptr<JitCompiler>> jit = makeCompiler(options);
  if (!jit.ok()) return fail(jit.status());
  bool allPassed = true;
  std::printf("%-20s %-8s %-10s %9s %9s %9s %10s %9s  %s\n", "template", "cache", "check",
              "error", "jit ms", "load ms", "kernel us", "GB/s", "detail");
  OpCheckOptions checkOptions;
  checkOptions.shape = options.shape;
  checkOptions.iterations = options.iterations;
  checkOptions.seed = options.seed;
  for (const auto& [name, config] : runs) {
    if (!config.ok()) {
      if (!ops.findByKernel(name))  // else it runs inside its op
        std::printf("%-20s skipped: no reference case for this template\n", name.c_str());
      continue;
    }
    absl::StatusOr<OpCheckReport> report =
        references.find(name)->check(**jit, *device, *ops.find(name), *config, checkOptions);
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

int targetsCommand() {
  std::printf("%-8s %-28s %-7s %5s %6s %10s\n", "target", "product", "backend", "warp", "SM/CU",
              "shared KB");
  for (const TargetDescription& target : allTargets())
    std::printf("%-8s %-28s %-7s %5lld %6lld %10lld\n", target.name.c_str(),
                target.product.c_str(), target.backend.c_str(), (long long)target.warpSize,
                (long long)target.multiprocessorCount,
                (long long)(target.sharedBytesPerProgram / 1024));
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
  if (command == "targets") return targetsCommand();
  if (command == "aot") return runAotCommand(args);
  absl::StatusOr<Options> options = parseOptions(args);
  if (!options.ok()) return fail(options.status());
  if (command == "compile") return compileCommand(*options);
  if (command == "run") return runCommand(*options);
  std::fprintf(stderr, "tilejit: unknown command '%s'\n\n%s", command.c_str(), kUsage);
  return 2;
}
