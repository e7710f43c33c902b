// The daemon's counters, rendered in the Prometheus text format (version 0.0.4): requests by
// kind, served entries by tier, a compile-time histogram, errors by kind; the gauges (queue
// depth, compiles running, connections) are read from their owners when rendered.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "service/protocol.h"

namespace tilejit::service {

struct MetricGauges {
  int64_t queueDepth = 0;
  int64_t compilesRunning = 0;
  int64_t compilesPeakRunning = 0;
  int64_t compileJobs = 0;  // jobs the pool was given (one per key that missed every cache)
  int64_t workers = 0;
  int64_t connections = 0;
  int64_t memoryEntries = 0;
  int64_t memoryBytes = 0;
  double uptimeSeconds = 0;
};

class ServiceMetrics {
 public:
  // Upper bounds of the compile-time histogram's buckets, in seconds (+Inf implied).
  static constexpr std::array<double, 11> kCompileBuckets = {0.01, 0.05, 0.1, 0.25, 0.5, 1,
                                                             2.5,  5,    10,  30,   120};

  void countRequest(const std::string& kind);  // "compile", "health", "metrics"
  void countServed(ServedTier tier);
  void countError(const std::string& kind);    // "malformed", "version", "oversize", ...
  void observeCompile(double seconds);         // toolchain compiles (tier "compile") only
  std::string prometheusText(const MetricGauges& gauges) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int64_t> requests_;
  std::map<std::string, int64_t> errors_;
  std::array<int64_t, 4> served_ = {};  // by ServedTier
  std::array<int64_t, kCompileBuckets.size()> bucketCounts_ = {};  // non-cumulative
  int64_t compileCount_ = 0;
  double compileSecondsSum_ = 0;
};

}  // namespace tilejit::service
