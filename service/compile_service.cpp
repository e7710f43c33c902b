#include "service/compile_service.h"

#include <future>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cache/entry_format.h"
#include "support/status.h"
#include "tools/aot/aot_manifest.h"
#include "tools/aot/aot_runner.h"

namespace tilejit::service {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

absl::StatusOr<KernelSpec> specFor(const CompileRequest& request) {
  ParameterMap parameters;
  for (const auto& [name, value] : request.parameters) {
    if (!parameters.emplace(name, ParameterValue(value)).second)
      return absl::InvalidArgumentError(
          absl::StrCat("compile request: parameter '", name, "' is given twice"));
  }
  if (request.kind == TemplateKind::kShippedName)
    return KernelSpec::shipped(request.templateRef, request.target, std::move(parameters));
  std::string sourceName = request.sourceName.empty() ? "<tilejitd request>" : request.sourceName;
  return KernelSpec{request.templateRef, std::move(sourceName), request.target,
                    std::move(parameters)};
}

ServedTier tierOf(CacheSource source) {
  switch (source) {
    case CacheSource::kMemory: return ServedTier::kMemory;
    case CacheSource::kDisk: return ServedTier::kDisk;
    case CacheSource::kFleet: return ServedTier::kFleet;
    case CacheSource::kComputed: return ServedTier::kCompiled;
  }
  return ServedTier::kCompiled;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CompileService>> CompileService::create(
    CompileServiceOptions options) {
  // The daemon never asks a daemon (itself), and its memory tier replaces the JIT's.
  options.jit.compileService = CompileServiceMode::kOff;
  options.jit.cache.memoryLayerMaxBytes = 0;
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<JitCompiler> jit, JitCompiler::create(options.jit));
  return std::unique_ptr<CompileService>(new CompileService(std::move(options), std::move(jit)));
}

CompileService::CompileService(CompileServiceOptions options, std::unique_ptr<JitCompiler> jit)
    : options_(std::move(options)),
      jit_(std::move(jit)),
      memory_(options_.memoryBytes),
      pool_(options_.jobs > 0 ? options_.jobs
                              : int(std::max(1u, std::thread::hardware_concurrency()))) {}

CompileService::~CompileService() {
  stopping_ = true;
  if (prewarm_.joinable()) prewarm_.join();
}

CompileService::Outcome CompileService::compileOnPool(const KernelSpec& spec,
                                                      const std::string& key) {
  std::promise<Outcome> done;
  std::future<Outcome> result = done.get_future();
  pool_.submit([&] {
    absl::StatusOr<CompiledKernel> compiled = jit_->compile(spec);
    if (!compiled.ok()) {
      done.set_value(compiled.status());
      return;
    }
    if (compiled->source == CacheSource::kComputed) metrics_.observeCompile(compiled->totalSeconds);
    CacheEntry entry{serializeMetadata(compiled->metadata), std::move(compiled->binary)};
    Served served{std::make_shared<const std::string>(
                      encodeEntry(key, TILEJIT_VERSION_STRING, entry)),
                  tierOf(compiled->source)};
    memory_.put(key, served.entry);
    done.set_value(std::move(served));
  });
  return result.get();
}

absl::StatusOr<CompileReply> CompileService::compile(const CompileRequest& request) {
  auto start = std::chrono::steady_clock::now();
  TJ_ASSIGN_OR_RETURN(KernelSpec spec, specFor(request));
  TJ_ASSIGN_OR_RETURN(std::string key, jit_->cacheKey(spec));
  CompileReply reply;
  reply.key = key;
  if (std::shared_ptr<const std::string> entry = memory_.get(key)) {
    reply.tier = ServedTier::kMemory;
    reply.entry = *entry;
  } else {
    Outcome outcome = flight_.run(key, [&] { return compileOnPool(spec, key); });
    if (!outcome.ok()) return outcome.status();
    reply.tier = outcome->tier;
    reply.entry = *outcome->entry;
  }
  metrics_.countServed(reply.tier);
  reply.serverSeconds = secondsSince(start);
  return reply;
}

absl::Status CompileService::startPrewarm(const std::string& manifestPath, FILE* log) {
  TJ_ASSIGN_OR_RETURN(AotManifest manifest, loadAotManifest(manifestPath));
  std::vector<AotSpecRequest> requests = expandAotManifest(manifest);
  prewarmTotal_ = int64_t(requests.size());
  prewarm_ = std::thread([this, requests = std::move(requests), log] {
    // One thread per worker, so that pre-warming uses the whole pool.
    std::atomic<size_t> next{0};
    std::vector<std::thread> feeders;
    for (int i = 0; i < pool_.workers(); ++i) {
      feeders.emplace_back([&] {
        for (size_t n; !stopping_ && (n = next.fetch_add(1)) < requests.size();) {
          absl::StatusOr<KernelSpec> spec = aotKernelSpec(requests[n]);
          absl::Status status = spec.status();
          if (spec.ok()) {
            absl::StatusOr<std::string> key = jit_->cacheKey(*spec);
            status = key.status();
            if (key.ok() && !memory_.get(*key))
              status = flight_.run(*key, [&] { return compileOnPool(*spec, *key); }).status();
          }
          if (status.ok()) {
            ++prewarmDone_;
            continue;
          }
          ++prewarmFailed_;
          metrics_.countError("prewarm");
          if (log)
            std::fprintf(log, "tilejitd: pre-warm of %s failed: %s\n",
                         requests[n].describe().c_str(), std::string(status.message()).c_str());
        }
      });
    }
    for (std::thread& feeder : feeders) feeder.join();
    if (log)
      std::fprintf(log, "tilejitd: pre-warmed %lld of %lld kernels (%lld failed)\n",
                   (long long)prewarmDone_.load(), (long long)prewarmTotal_.load(),
                   (long long)prewarmFailed_.load());
  });
  return absl::OkStatus();
}

std::string CompileService::healthText() const {
  return absl::StrFormat(
      "ok\nversion %s\nprotocol %d\nworkers %d\nqueue_depth %d\nprewarm %d/%d done, %d "
      "failed\nuptime_seconds %.3f\n",
      TILEJIT_VERSION_STRING, kProtocolVersion, pool_.workers(), pool_.queued(),
      prewarmDone_.load(), prewarmTotal_.load(), prewarmFailed_.load(), secondsSince(started_));
}

std::string CompileService::metricsText(int64_t connections) const {
  MetricGauges gauges;
  gauges.queueDepth = pool_.queued();
  gauges.compilesRunning = pool_.running();
  gauges.compilesPeakRunning = pool_.peakRunning();
  gauges.compileJobs = pool_.submitted();
  gauges.workers = pool_.workers();
  gauges.connections = connections;
  gauges.memoryEntries = memory_.entries();
  gauges.memoryBytes = memory_.bytes();
  gauges.uptimeSeconds = secondsSince(started_);
  return metrics_.prometheusText(gauges);
}

}  // namespace tilejit::service
