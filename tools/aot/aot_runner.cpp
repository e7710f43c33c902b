#include "tools/aot/aot_runner.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/bundle.h"
#include "tools/aot/aot_preflight.h"
#include "support/status.h"

namespace tilejit {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Append-only list of finished cache keys, one per line. Each line is one write() on an
// O_APPEND descriptor, so a killed run leaves at worst a torn last line (ignored on reading).
class Journal {
 public:
  explicit Journal(std::string path) : path_(std::move(path)) {
    std::ifstream in(path_);
    std::string line;
    while (std::getline(in, line))
      if (line.size() == 64) previous_.insert(line);
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }
  ~Journal() {
    if (fd_ >= 0) ::close(fd_);
  }
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  size_t previousCount() const { return previous_.size(); }
  bool finishedBefore(const std::string& key) const { return previous_.count(key) != 0; }
  // Best effort: the journal only feeds a report, losing it costs nothing but the count.
  void record(const std::string& key) {
    if (fd_ < 0) return;
    std::string line = key + "\n";
    ssize_t ignored = ::write(fd_, line.data(), line.size());
    (void)ignored;
  }
  void remove() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    ::unlink(path_.c_str());
  }

 private:
  std::string path_;
  std::set<std::string> previous_;
  int fd_ = -1;
};

struct Result {
  enum class Kind { kPending, kCompiled, kCacheHit, kSkipped, kFailed };
  Kind kind = Kind::kPending;
  std::string reason;
  CompiledKernel kernel;
};

// On a terminal, the `\r[done/total] ...` line redrawn at most every 100 ms (a fast run of
// cache hits must not spend its time drawing); elsewhere (a log, a pipe) one plain line per
// tenth of the run, since carriage returns turn a log into one unreadable line.
class ProgressLine {
 public:
  ProgressLine(FILE* out, size_t total)
      : out_(out), total_(total), start_(Clock::now()), terminal_(out && ::isatty(::fileno(out))) {}
  void update(size_t done, size_t failures, size_t skipped, bool force) {
    if (!out_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    auto now = Clock::now();
    if (terminal_) {
      if (!force && now - lastDraw_ < std::chrono::milliseconds(100)) return;
    } else {
      size_t tenth = total_ ? done * 10 / total_ : 10;
      if (tenth == lastTenth_ && !(force && done != lastDone_)) return;
      lastTenth_ = tenth;
    }
    lastDraw_ = now;
    lastDone_ = done;
    double elapsed = secondsSince(start_);
    double rate = elapsed > 0 ? done / elapsed : 0;
    std::string eta = rate > 0 ? absl::StrFormat("%.0fs", (total_ - done) / rate) : "?";
    std::fprintf(out_, "%s[%zu/%zu] %.2f/s ETA %s failures %zu skipped %zu%s",
                 terminal_ ? "\r" : "", done, total_, rate, eta.c_str(), failures, skipped,
                 terminal_ ? "   " : "\n");
    std::fflush(out_);
  }
  void finish() {
    if (out_ && terminal_) std::fprintf(out_, "\n");
  }

 private:
  FILE* out_;
  size_t total_;
  Clock::time_point start_;
  bool terminal_;
  Clock::time_point lastDraw_{};
  size_t lastTenth_ = 0;
  size_t lastDone_ = 0;
  std::mutex mutex_;
};

}  // namespace

bool isRejectedSpecialization(const absl::Status& status) {
  if (status.code() != absl::StatusCode::kInvalidArgument) return false;
  std::string message(status.message());
  return message.find("rejects this specialization") != std::string::npos ||
         message.find("is not allowed") != std::string::npos;
}

absl::StatusOr<AotReport> runAot(const std::vector<AotSpecRequest>& requests,
                                 const AotOptions& options) {
  if (options.bundlePath.empty())
    return absl::InvalidArgumentError("no bundle path: name one in the manifest or with -o");
  TJ_RETURN_IF_ERROR(checkAotSize(requests.size(), options.maxSpecs));
  TJ_RETURN_IF_ERROR(checkBundleOutput(options.bundlePath));
  {
    TJ_ASSIGN_OR_RETURN(std::unique_ptr<JitCompiler> checker, JitCompiler::create(options.jit));
    TJ_RETURN_IF_ERROR(checkAotRequests(requests, *checker));
  }
  AotReport report;
  report.total = requests.size();
  report.bundlePath = options.bundlePath;
  int hardware = static_cast<int>(std::thread::hardware_concurrency());
  report.jobs = options.jobs > 0 ? options.jobs : std::max(1, hardware);
  report.jobs = static_cast<int>(std::min<size_t>(report.jobs, std::max<size_t>(1, requests.size())));

  Journal journal(options.bundlePath + ".progress");
  if (journal.previousCount() > 0 && options.progress)
    std::fprintf(options.progress, "resuming: an earlier run finished %zu specs (%s.progress)\n",
                 journal.previousCount(), options.bundlePath.c_str());

  // Workers take the next request from a shared counter; results go to their own slot, so
  // the bundle's order is the manifest's whatever order the compiles finished in.
  std::vector<Result> results(requests.size());
  std::atomic<size_t> next{0}, done{0}, failures{0}, skipped{0};
  std::mutex journalMutex;
  std::mutex createMutex;
  absl::Status createStatus;
  ProgressLine progress(options.progress, requests.size());
  auto start = Clock::now();

  auto worker = [&]() {
    // One compiler per worker: JitCompiler serializes its callers internally, so sharing one
    // would run the workers one at a time.
    absl::StatusOr<std::unique_ptr<JitCompiler>> jit = JitCompiler::create(options.jit);
    if (!jit.ok()) {
      std::lock_guard<std::mutex> lock(createMutex);
      createStatus = jit.status();
      return;
    }
    for (size_t i = next++; i < requests.size(); i = next++) {
      Result& result = results[i];
      absl::StatusOr<KernelSpec> spec = aotKernelSpec(requests[i]);
      absl::StatusOr<CompiledKernel> kernel =
          spec.ok() ? (*jit)->compile(*spec) : absl::StatusOr<CompiledKernel>(spec.status());
      if (kernel.ok()) {
        result.kind = kernel->cacheHit ? Result::Kind::kCacheHit : Result::Kind::kCompiled;
        result.kernel = *std::move(kernel);
        std::lock_guard<std::mutex> lock(journalMutex);
        journal.record(result.kernel.key);
      } else if (isRejectedSpecialization(kernel.status()) && requests[i].skipRejected) {
        result.kind = Result::Kind::kSkipped;
        result.reason = std::string(kernel.status().message());
        ++skipped;
      } else if (isRejectedSpecialization(kernel.status())) {
        result.kind = Result::Kind::kFailed;
        result.reason = absl::StrCat(kernel.status().message(),
                                     " (to skip such specializations, give the job "
                                     "\"skip_rejected\": true)");
        ++failures;
      } else {
        result.kind = Result::Kind::kFailed;
        result.reason = kernel.status().ToString();
        ++failures;
      }
      progress.update(++done, failures, skipped, /*force=*/false);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < report.jobs; ++t) threads.emplace_back(worker);
  for (std::thread& thread : threads) thread.join();
  progress.update(done, failures, skipped, /*force=*/true);
  progress.finish();
  if (!createStatus.ok() && done < requests.size())
    return absl::Status(createStatus.code(),
                        absl::StrCat("cannot create the JIT compiler: ",
                                     std::string(createStatus.message())));

  BundleWriter writer;
  for (size_t i = 0; i < requests.size(); ++i) {
    Result& result = results[i];
    switch (result.kind) {
      case Result::Kind::kSkipped:
        report.skipped.push_back({requests[i], result.reason});
        continue;
      case Result::Kind::kFailed:
      case Result::Kind::kPending:
        report.failures.push_back({requests[i], result.kind == Result::Kind::kPending
                                                    ? "not compiled (worker failed to start)"
                                                    : result.reason});
        continue;
      case Result::Kind::kCompiled:
        ++report.compiled;
        break;
      case Result::Kind::kCacheHit:
        ++report.cacheHits;
        break;
    }
    const CompiledKernel& kernel = result.kernel;
    report.specializeSeconds += kernel.specializeSeconds;
    report.toolchainSeconds += kernel.toolchainSeconds;
    if (journal.finishedBefore(kernel.key)) ++report.resumed;
    // Two requests can specialize identically (a parameter given its default value in one
    // job and left unset in another): one entry serves both.
    if (writer.contains(kernel.key)) {
      ++report.duplicates;
      continue;
    }
    BundleEntry entry;
    entry.key = kernel.key;
    entry.templateName = kernel.metadata.templateName;
    entry.target = kernel.metadata.target;
    for (const auto& [name, value] : kernel.metadata.parameters) entry.parameters[name] = value;
    entry.metadataJson = serializeMetadata(kernel.metadata);
    entry.binary = kernel.binary;
    absl::Status added = writer.add(std::move(entry));
    if (!added.ok()) report.failures.push_back({requests[i], added.ToString()});
  }
  report.seconds = secondsSince(start);
  // The journal stays with a failed run: a rerun after the fix resumes from the cache.
  if (!report.failures.empty()) return report;
  TJ_RETURN_IF_ERROR(writer.write(options.bundlePath));
  journal.remove();
  report.bundleWritten = true;
  report.bundleEntries = writer.size();
  return report;
}

std::string formatAotReport(const AotReport& report) {
  std::string text = absl::StrFormat(
      "%zu specs in %.1fs with %d jobs (%.2f specs/s): %zu compiled, %zu cache hits "
      "(%zu resumed from an interrupted run), %zu skipped, %zu failed\n",
      report.total, report.seconds, report.jobs,
      report.seconds > 0 ? report.total / report.seconds : 0.0, report.compiled, report.cacheHits,
      report.resumed, report.skipped.size(), report.failures.size());
  // Summed stage times against wall time show how well the workers overlapped.
  if (report.compiled > 0)
    absl::StrAppend(&text, absl::StrFormat("compile time summed over specs: specialize %.1fs, "
                                           "toolchain %.1fs\n",
                                           report.specializeSeconds, report.toolchainSeconds));
  if (report.bundleWritten) {
    absl::StrAppend(&text, "bundle: ", report.bundlePath, " (", report.bundleEntries, " kernels",
                    report.duplicates ? absl::StrCat(", ", report.duplicates, " duplicate specs")
                                      : std::string(),
                    ")\n");
  } else {
    absl::StrAppend(&text, "bundle: not written (", report.failures.size(),
                    " specs failed; compiled kernels are in the cache, so a rerun after the fix "
                    "resumes)\n");
  }
  for (const AotOutcome& outcome : report.skipped)
    absl::StrAppend(&text, "skipped: ", outcome.request.describe(), ": ", outcome.reason, "\n");
  for (const AotOutcome& outcome : report.failures)
    absl::StrAppend(&text, "FAILED: ", outcome.request.describe(), ": ", outcome.reason, "\n");
  return text;
}

absl::StatusOr<KernelSpec> aotKernelSpec(const AotSpecRequest& request) {
  if (isTemplatePath(request.templateRef))
    return KernelSpec::fromFile(request.templateRef, request.target, request.parameters);
  return KernelSpec::shipped(request.templateRef, request.target, request.parameters);
}

}  // namespace tilejit
