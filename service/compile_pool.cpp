#include "service/compile_pool.h"

#include <algorithm>

namespace tilejit::service {

CompilePool::CompilePool(int workers) {
  for (int i = 0; i < std::max(1, workers); ++i) threads_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void CompilePool::submit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
    ++submitted_;
  }
  ready_.notify_one();
}

void CompilePool::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, and nothing left to do
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    peakRunning_ = std::max(peakRunning_, ++running_);
    lock.unlock();
    job();
    lock.lock();
    --running_;
  }
}

int64_t CompilePool::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return int64_t(jobs_.size());
}
int64_t CompilePool::running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_;
}
int64_t CompilePool::peakRunning() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return peakRunning_;
}
int64_t CompilePool::submitted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return submitted_;
}

}  // namespace tilejit::service
