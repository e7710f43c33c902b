#include "service/metrics.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tilejit::service {
namespace {

void family(std::string& out, const char* name, const char* type, const char* help) {
  absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

}  // namespace

void ServiceMetrics::countRequest(const std::string& kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[kind];
}

void ServiceMetrics::countServed(ServedTier tier) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++served_[size_t(tier)];
}

void ServiceMetrics::countError(const std::string& kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++errors_[kind];
}

void ServiceMetrics::observeCompile(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++compileCount_;
  compileSecondsSum_ += seconds;
  for (size_t i = 0; i < kCompileBuckets.size(); ++i) {
    if (seconds <= kCompileBuckets[i]) {
      ++bucketCounts_[i];
      break;
    }
  }
}

std::string ServiceMetrics::prometheusText(const MetricGauges& gauges) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  family(out, "tilejitd_requests_total", "counter", "Requests received, by kind.");
  for (const char* kind : {"compile", "health", "metrics"}) {
    auto it = requests_.find(kind);
    absl::StrAppend(&out, "tilejitd_requests_total{kind=\"", kind, "\"} ",
                    it == requests_.end() ? 0 : it->second, "\n");
  }
  family(out, "tilejitd_served_total", "counter",
         "Compile requests answered with an entry, by the tier it came from.");
  for (ServedTier tier : {ServedTier::kMemory, ServedTier::kDisk, ServedTier::kFleet,
                          ServedTier::kCompiled}) {
    absl::StrAppend(&out, "tilejitd_served_total{tier=\"", servedTierName(tier), "\"} ",
                    served_[size_t(tier)], "\n");
  }
  family(out, "tilejitd_compile_seconds", "histogram",
         "Wall time of compiles that ran the toolchain.");
  int64_t cumulative = 0;
  for (size_t i = 0; i < kCompileBuckets.size(); ++i) {
    cumulative += bucketCounts_[i];
    absl::StrAppend(&out, "tilejitd_compile_seconds_bucket{le=\"", kCompileBuckets[i], "\"} ",
                    cumulative, "\n");
  }
  absl::StrAppend(&out, "tilejitd_compile_seconds_bucket{le=\"+Inf\"} ", compileCount_, "\n",
                  "tilejitd_compile_seconds_sum ", absl::StrFormat("%.6f", compileSecondsSum_),
                  "\n", "tilejitd_compile_seconds_count ", compileCount_, "\n");
  family(out, "tilejitd_compiles_total", "counter", "Compiles that ran the toolchain.");
  absl::StrAppend(&out, "tilejitd_compiles_total ", compileCount_, "\n");
  family(out, "tilejitd_errors_total", "counter", "Requests answered with an error, by kind.");
  for (const auto& [kind, count] : errors_)
    absl::StrAppend(&out, "tilejitd_errors_total{kind=\"", kind, "\"} ", count, "\n");
  if (errors_.empty()) absl::StrAppend(&out, "tilejitd_errors_total{kind=\"none\"} 0\n");
  auto gauge = [&](const char* name, const char* type, const char* help, auto value) {
    family(out, name, type, help);
    absl::StrAppend(&out, name, " ", value, "\n");
  };
  gauge("tilejitd_queue_depth", "gauge", "Compile jobs waiting for a worker.", gauges.queueDepth);
  gauge("tilejitd_compiles_running", "gauge", "Compile jobs running now.", gauges.compilesRunning);
  gauge("tilejitd_compiles_running_peak", "gauge", "Most compile jobs that ran at once.",
        gauges.compilesPeakRunning);
  gauge("tilejitd_compile_jobs_total", "counter",
        "Jobs given to the compile pool: one per key that missed memory, however many asked.",
        gauges.compileJobs);
  gauge("tilejitd_compile_workers", "gauge", "Threads of the compile pool (--jobs).",
        gauges.workers);
  gauge("tilejitd_connections", "gauge", "Client connections open now.", gauges.connections);
  gauge("tilejitd_memory_entries", "gauge", "Entries held in the daemon's memory tier.",
        gauges.memoryEntries);
  gauge("tilejitd_memory_bytes", "gauge", "Bytes held in the daemon's memory tier.",
        gauges.memoryBytes);
  gauge("tilejitd_uptime_seconds", "gauge", "Seconds since the daemon started.",
        absl::StrFormat("%.3f", gauges.uptimeSeconds));
  return out;
}

}  // namespace tilejit::service
