// The daemon's compile workers: a fixed number of threads taking jobs in arrival order.
// Queue depth and the peak of jobs running at once are what the metrics report.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tilejit::service {

class CompilePool {
 public:
  explicit CompilePool(int workers);
  ~CompilePool();  // finishes the queued jobs, then joins
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  void submit(std::function<void()> job);

  int workers() const { return int(threads_.size()); }
  int64_t queued() const;
  int64_t running() const;
  int64_t peakRunning() const;
  int64_t submitted() const;

 private:
  void work();

  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  int64_t running_ = 0;
  int64_t peakRunning_ = 0;
  int64_t submitted_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace tilejit::service
