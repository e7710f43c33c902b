#include "compiler/jit_compiler.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cache/cache_key.h"
#include "cache/fleet_tier.h"
#include "compiler/compile_service_route.h"
#include "compiler/backends/registry.h"
#include "compiler/embedded_files.h"
#include "compiler/emit/cpp_emitter.h"
#include "compiler/specialize/specializer.h"
#include "compiler/toolchains/toolchain.h"
#include "compiler/tuning/tuning_table.h"
#include "mlir/IR/MLIRContext.h"
#include "support/status.h"

namespace tilejit {

namespace {
double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

absl::StatusOr<KernelSpec> KernelSpec::shipped(std::string_view name, std::string_view target,
                                               ParameterMap parameters) {
  TJ_ASSIGN_OR_RETURN(std::string text, shippedTemplate(name));
  return KernelSpec{std::move(text), absl::StrCat("templates/", std::string(name), ".mlir"),
                    std::string(target), std::move(parameters)};
}

absl::StatusOr<KernelSpec> KernelSpec::fromFile(const std::string& path, std::string_view target,
                                                ParameterMap parameters) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read template file '", path, "'"));
  std::stringstream text;
  text << in.rdbuf();
  return KernelSpec{text.str(), path, std::string(target), std::move(parameters)};
}

absl::StatusOr<Stage> parseStage(std::string_view name) {
  if (name == "ir") return Stage::kIr;
  if (name == "specialized") return Stage::kSpecialized;
  if (name == "cpp") return Stage::kCpp;
  if (name == "asm") return Stage::kAsm;
  if (name == "binary") return Stage::kBinary;
  if (name == "resources") return Stage::kResources;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown stage '", std::string(name), "'; stages: ir, specialized, cpp, asm, binary, resources"));
}

std::string formatResources(const KernelMetadata& metadata) {
  const ResourceUsage& r = metadata.resources;
  return absl::StrFormat(
      "kernel %s (%s, %s)\n  threads per program: %d\n  registers per thread: %s\n"
      "  spill stores: %d bytes, spill loads: %d bytes\n  shared memory: %d bytes static, %d "
      "dynamic\n  local (stack) memory: %d bytes per thread\n",
      metadata.entry, metadata.target, metadata.backend, metadata.threadsPerProgram,
      r.registers < 0 ? std::string("n/a (CPU)") : std::to_string(r.registers), r.spillStores,
      r.spillLoads, r.staticSharedBytes, metadata.dynamicSharedBytes, r.localBytes);
}

struct JitCompiler::Impl {
  JitOptions options;
  std::mutex mutex;  // MLIR context, toolchains and the loaded-kernel map
  mlir::MLIRContext context{mlir::MLIRContext::Threading::DISABLED};
  std::unique_ptr<DiskCache> cache;
  std::unique_ptr<CompileServiceRoute> service;  // null: compile in-process only
  std::map<std::string, std::unique_ptr<Toolchain>> toolchains;  // by target name
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> headers;  // backend
  std::map<std::string, std::string> libraryDigests;                                 // backend
  std::unordered_map<std::string, std::string> keyMemo;  // target + parameters + text -> key
  std::map<std::pair<const Device*, std::string>, std::unique_ptr<LoadedKernel>> loaded;

  absl::StatusOr<const Toolchain*> toolchainFor(const TargetDescription& target) {
    auto it = toolchains.find(target.name);
    if (it == toolchains.end()) {
      TJ_ASSIGN_OR_RETURN(std::unique_ptr<Toolchain> toolchain,
                          createToolchain(target, cache ? cache->writableRoot() : ""));
      it = toolchains.emplace(target.name, std::move(toolchain)).first;
    }
    return it->second.get();
  }

  absl::StatusOr<const std::vector<std::pair<std::string, std::string>>*> headersFor(
      const std::string& backend) {
    auto it = headers.find(backend);
    if (it == headers.end()) {
      TJ_ASSIGN_OR_RETURN(const CompilerBackend* compilerBackend, lookupBackend(backend));
      TJ_ASSIGN_OR_RETURN(auto list, deviceLibraryHeaders(compilerBackend->deviceLibraryFolder()));
      it = headers.emplace(backend, std::move(list)).first;
    }
    return &it->second;
  }

  // The device library's content, hashed once per backend: the key must cover every byte of
  // it, but re-hashing ~100 KB of headers on every lookup would dominate the hot path.
  absl::StatusOr<const std::string*> libraryDigest(const std::string& backend) {
    auto it = libraryDigests.find(backend);
    if (it == libraryDigests.end()) {
      TJ_ASSIGN_OR_RETURN(auto* library, headersFor(backend));
      CacheKeyBuilder builder;
      for (const auto& [path, content] : *library) builder.addDeviceLibrary(path, content);
      it = libraryDigests.emplace(backend, builder.finish()).first;
    }
    return &it->second;
  }

  absl::StatusOr<std::string> key(const KernelSpec& spec, const TargetDescription& target) {
    // SHA-256 of the template text on every lookup would be the hot path's cost; the same
    // spec (compared in full, not by a hash) maps to the same key within a process.
    std::string memo = target.name;
    for (const auto& [name, value] : spec.parameters) {
      memo.push_back('\0');  // names and values cannot hold NUL: an unambiguous separator
      absl::StrAppend(&memo, name, "=", value.text());
    }
    memo.append(2, '\0');
    memo += spec.templateText;
    if (auto it = keyMemo.find(memo); it != keyMemo.end()) return it->second;
    TJ_ASSIGN_OR_RETURN(std::string computed, computeKey(spec, target));
    keyMemo.emplace(std::move(memo), computed);
    return computed;
  }

  // The bound parameter values are a pure function of the template text, the given values
  // and the template's own rows of the target's tuning, so the key hashes those and needs no
  // parse (the template's name is read off its text).
  absl::StatusOr<std::string> computeKey(const KernelSpec& spec, const TargetDescription& target) {
    TJ_ASSIGN_OR_RETURN(const Toolchain* toolchain, toolchainFor(target));
    TJ_ASSIGN_OR_RETURN(const std::string* library, libraryDigest(target.backend));
    CacheKeyBuilder builder;
    builder.addTemplateText(spec.templateText);
    for (const auto& [name, value] : spec.parameters) builder.addParameter(name, value.text());
    builder.addParameter("tuning",
                         canonicalTemplateTuning(target, declaredTemplateName(spec.templateText)));
    builder.addTarget(target.name);
    builder.addEmitterVersion(kEmitterVersion);
    builder.addDeviceLibrary("digest", *library);
    builder.addToolchainIdentity(toolchain->identity());
    return builder.finish();
  }

  absl::StatusOr<EmittedKernel> emit(const KernelSpec& spec, const TargetDescription& target) {
    TJ_ASSIGN_OR_RETURN(auto parsed, parseTemplate(context, spec.templateText, spec.sourceName));
    TJ_ASSIGN_OR_RETURN(SpecializedKernel specialized,
                        specializeTemplate(*parsed, target, spec.parameters));
    return emitKernel(specialized.templateOp, target);
  }

  // The toolchain's compile of an emitted kernel, with the device library of its backend. The
  // toolchain and headers come from the maps `mutex` guards; the compile itself needs no lock.
  struct ToolchainJob {
    const Toolchain* toolchain = nullptr;
    const std::vector<std::pair<std::string, std::string>>* headers = nullptr;
    absl::StatusOr<CompileResult> run(const EmittedKernel& kernel,
                                      const TargetDescription& target) const {
      CompileRequest request{kernel.source, kernel.sourceName, kernel.metadata.entry, &target,
                             *headers};
      absl::StatusOr<CompileResult> compiled = toolchain->compile(request);
      if (!compiled.ok())
        return absl::Status(compiled.status().code(),
                            absl::StrCat("compiling ", kernel.sourceName, " for ", target.name,
                                         " failed: ", compiled.status().message()));
      return compiled;
    }
  };
  // Caller holds `mutex`.
  absl::StatusOr<ToolchainJob> toolchainJob(const TargetDescription& target) {
    ToolchainJob job;
    TJ_ASSIGN_OR_RETURN(job.toolchain, toolchainFor(target));
    TJ_ASSIGN_OR_RETURN(job.headers, headersFor(target.backend));
    return job;
  }

  // With a compile service: this process's memory and disk first (a hit costs no round trip),
  // then the daemon. False: compile in-process. Never under the key's disk lock, which the
  // daemon, sharing the root, may need for the same key.
  absl::StatusOr<bool> serveFromService(const KernelSpec& spec, CompiledKernel& info,
                                        CacheEntry& entry) {
    if (cache) {
      TJ_ASSIGN_OR_RETURN(std::shared_ptr<const CacheEntry> local,
                          cache->lookupShared(info.key, &info.source));
      if (local) {
        entry = *local;
        info.cacheHit = true;
        return true;
      }
    }
    TJ_ASSIGN_OR_RETURN(std::optional<CacheEntry> served,
                        service->fetch(spec, info.key, &info.source));
    if (!served) return false;
    info.cacheHit = info.source != CacheSource::kComputed;
    info.fromService = true;
    // A process whose cache root is not the daemon's keeps its own copy, so it starts warm
    // without the daemon too; a failed copy only costs that.
    if (cache && !cache->writableRoot().empty() &&
        ::access(cache->entryPath(info.key).c_str(), F_OK) != 0)
      (void)cache->store(info.key, *served);
    entry = std::move(*served);
    return true;
  }

  // Emits under `mutex` (one MLIR context serves the process) and compiles without it, so
  // that threads asking for different kernels compile them in parallel.
  absl::StatusOr<CacheEntry> build(const KernelSpec& spec, const TargetDescription& target,
                                   CompiledKernel& info) {
    EmittedKernel emitted;
    ToolchainJob job;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto start = std::chrono::steady_clock::now();
      TJ_ASSIGN_OR_RETURN(emitted, emit(spec, target));
      info.specializeSeconds = secondsSince(start);
      TJ_ASSIGN_OR_RETURN(job, toolchainJob(target));
    }
    TJ_ASSIGN_OR_RETURN(CompileResult compiled, job.run(emitted, target));
    info.toolchainSeconds = compiled.seconds;
    info.toolchainLog = compiled.log;
    emitted.metadata.resources = compiled.resources;
    return CacheEntry{serializeMetadata(emitted.metadata), std::move(compiled.binary)};
  }
};

JitCompiler::JitCompiler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
JitCompiler::~JitCompiler() = default;

absl::StatusOr<std::unique_ptr<JitCompiler>> JitCompiler::create(JitOptions options) {
  auto impl = std::make_unique<Impl>();
  if (options.useDiskCache) {
    // The cache's configuration never stops the JIT: what cannot be used is said and skipped.
    std::vector<std::string> warnings;
    if (options.cache.directory.empty()) {
      DiskCacheOptions fromEnvironment = jitCacheOptionsFromEnvironment(&warnings);
      fromEnvironment.warningSink = options.cache.warningSink;
      options.cache = std::move(fromEnvironment);
    }
    if (!options.cache.fleetTier) {
      options.cache.fleetTier = FleetTier::fromEnvironment(options.cache.warningSink, &warnings);
    }
    impl->cache = DiskCache::openForJit(options.cache, warnings);
  }
  std::string serviceWarning;
  service::CompileServiceMode mode =
      options.compileService ? *options.compileService
                             : service::compileServiceModeFromEnvironment(&serviceWarning);
  if (!serviceWarning.empty()) {
    if (options.cache.warningSink) options.cache.warningSink(serviceWarning);
    else std::fprintf(stderr, "tilejit: %s\n", serviceWarning.c_str());
  }
  if (mode != service::CompileServiceMode::kOff) {
    std::string socket = options.serviceSocket;
    if (socket.empty()) socket = service::serviceSocketPathFromEnvironment().value_or("");
    impl->service = std::make_unique<CompileServiceRoute>(mode, std::move(socket),
                                                          options.cache.warningSink);
  }
  impl->options = std::move(options);
  return std::unique_ptr<JitCompiler>(new JitCompiler(std::move(impl)));
}

absl::StatusOr<std::string> JitCompiler::cacheKey(const KernelSpec& spec) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  TJ_ASSIGN_OR_RETURN(const TargetDescription* target, lookupTarget(spec.target));
  return impl_->key(spec, *target);
}

absl::StatusOr<std::vector<std::string>> JitCompiler::parameterNames(const KernelSpec& spec) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  TJ_ASSIGN_OR_RETURN(auto parsed, parseTemplate(impl_->context, spec.templateText, spec.sourceName));
  TJ_ASSIGN_OR_RETURN(mlir::tj::TemplateOp templ, findTemplate(*parsed));
  std::vector<std::string> names;
  for (mlir::tj::ParamOp param : templ.getParams()) names.push_back(param.getSymName().str());
  return names;
}

absl::StatusOr<CompiledKernel> JitCompiler::compile(const KernelSpec& spec) {
  auto start = std::chrono::steady_clock::now();
  TJ_ASSIGN_OR_RETURN(const TargetDescription* target, lookupTarget(spec.target));
  CompiledKernel info;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    TJ_ASSIGN_OR_RETURN(info.key, impl_->key(spec, *target));
  }
  // Unlocked: build() takes the lock for what needs it; the disk cache locks per key.
  CacheEntry entry;
  bool served = false;
  if (impl_->service) {
    TJ_ASSIGN_OR_RETURN(served, impl_->serveFromService(spec, info, entry));
  }
  if (!served && impl_->cache) {
    bool hit = false;
    TJ_ASSIGN_OR_RETURN(entry, impl_->cache->getOrCompute(
                                   info.key, [&] { return impl_->build(spec, *target, info); },
                                   &hit, &info.source));
    info.cacheHit = hit;
  } else if (!served) {
    TJ_ASSIGN_OR_RETURN(entry, impl_->build(spec, *target, info));
  }
  TJ_ASSIGN_OR_RETURN(info.metadata, parseMetadata(entry.metadataJson));
  info.binary = std::move(entry.binary);
  info.totalSeconds = secondsSince(start);
  return info;
}

absl::StatusOr<KernelMetadata> JitCompiler::signature(const KernelSpec& spec) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  TJ_ASSIGN_OR_RETURN(const TargetDescription* target, lookupTarget(spec.target));
  TJ_ASSIGN_OR_RETURN(EmittedKernel emitted, impl_->emit(spec, *target));
  return emitted.metadata;
}

absl::StatusOr<std::string> JitCompiler::dumpStage(const KernelSpec& spec, Stage stage) {
  if (stage == Stage::kBinary || stage == Stage::kResources) {
    TJ_ASSIGN_OR_RETURN(CompiledKernel compiled, compile(spec));
    if (stage == Stage::kBinary) return compiled.binary;
    TJ_ASSIGN_OR_RETURN(const CompilerBackend* backend, lookupBackend(compiled.metadata.backend));
    return formatResources(compiled.metadata) +
           backend->resourceReport(compiled.metadata, compiled.binary);
  }
  std::lock_guard<std::mutex> lock(impl_->mutex);
  TJ_ASSIGN_OR_RETURN(const TargetDescription* target, lookupTarget(spec.target));
  if (stage == Stage::kIr) {
    TJ_ASSIGN_OR_RETURN(auto parsed,
                        parseTemplate(impl_->context, spec.templateText, spec.sourceName));
    std::string text;
    llvm::raw_string_ostream(text) << *parsed;
    return text;
  }
  if (stage == Stage::kSpecialized) {
    TJ_ASSIGN_OR_RETURN(auto parsed,
                        parseTemplate(impl_->context, spec.templateText, spec.sourceName));
    TJ_ASSIGN_OR_RETURN(SpecializedKernel specialized,
                        specializeTemplate(*parsed, *target, spec.parameters));
    std::string text;
    llvm::raw_string_ostream os(text);
    specialized.module->print(os);  // from the top: with aliases (`#mma = #tj.mma<...>`)
    return text;
  }
  TJ_ASSIGN_OR_RETURN(EmittedKernel emitted, impl_->emit(spec, *target));
  if (stage == Stage::kCpp) return emitted.source;
  TJ_ASSIGN_OR_RETURN(Impl::ToolchainJob job, impl_->toolchainJob(*target));
  TJ_ASSIGN_OR_RETURN(CompileResult compiled, job.run(emitted, *target));
  if (compiled.intermediate.empty())
    return absl::UnimplementedError(absl::StrCat("the ", target->name,
                                                 " toolchain produces no assembly listing"));
  return compiled.intermediate;
}

absl::StatusOr<const LoadedKernel*> JitCompiler::load(Device& device, const KernelSpec& spec,
                                                      CompiledKernel* info) {
  if (device.target() != spec.target)
    return absl::InvalidArgumentError(absl::StrCat("a kernel for target ", spec.target,
                                                   " cannot run on ", device.name(), " (target ",
                                                   device.target(), ")"));
  // Hot path: a kernel this process already loaded on this device costs one key hash.
  {
    auto start = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(impl_->mutex);
    TJ_ASSIGN_OR_RETURN(const TargetDescription* target, lookupTarget(spec.target));
    TJ_ASSIGN_OR_RETURN(std::string key, impl_->key(spec, *target));
    auto it = impl_->loaded.find(std::make_pair(static_cast<const Device*>(&device), key));
    if (it != impl_->loaded.end()) {
      if (info) {
        *info = CompiledKernel{};
        info->key = std::move(key);
        info->metadata = it->second->metadata();
        info->cacheHit = true;
        info->totalSeconds = secondsSince(start);
      }
      return it->second.get();
    }
  }
  TJ_ASSIGN_OR_RETURN(CompiledKernel compiled, compile(spec));
  std::lock_guard<std::mutex> lock(impl_->mutex);
  auto slot = std::make_pair(static_cast<const Device*>(&device), compiled.key);
  auto it = impl_->loaded.find(slot);
  if (it == impl_->loaded.end()) {
    TJ_ASSIGN_OR_RETURN(std::unique_ptr<LoadedKernel> kernel,
                        device.load(compiled.metadata, compiled.binary));
    it = impl_->loaded.emplace(slot, std::move(kernel)).first;
  }
  if (info) *info = std::move(compiled);
  return it->second.get();
}

}  // namespace tilejit
