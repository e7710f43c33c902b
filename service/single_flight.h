// One computation per key at a time: the first caller for a key runs it, callers that arrive
// while it runs wait for its result instead of starting their own. This is what makes "one
// compile per key per node" hold inside the daemon however many ranks ask at once (across
// processes the disk cache's flock does the same for in-process JITs).
#pragma once

#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <unordered_map>

namespace tilejit::service {

template <typename Value>
class SingleFlight {
 public:
  // Runs `work` unless a call for `key` is in flight, then returns that call's result.
  // `leader` (may be null) says whether this call ran `work`.
  Value run(const std::string& key, const std::function<Value()>& work, bool* leader = nullptr) {
    std::shared_future<Value> pending;
    std::promise<Value> promise;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = inFlight_.find(key);
      if (it != inFlight_.end()) pending = it->second;
      else inFlight_.emplace(key, promise.get_future().share());
    }
    if (leader) *leader = !pending.valid();
    if (pending.valid()) return pending.get();
    Value value = work();
    {
      // Erased before the result is published: a caller arriving now starts afresh and finds
      // the result in the caller's own cache rather than a stale in-flight record.
      std::lock_guard<std::mutex> lock(mutex_);
      inFlight_.erase(key);
    }
    promise.set_value(value);
    return value;
  }

  size_t inFlight() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return inFlight_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_future<Value>> inFlight_;
};

}  // namespace tilejit::service
