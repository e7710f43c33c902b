// The daemon's memory tier: encoded entries (cache/entry_format.h bytes, ready to send) by
// cache key, least recently used dropped first past a byte bound. A hit here costs a map
// lookup and a copy: no disk read, no checksum pass.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace tilejit::service {

class MemoryTier {
 public:
  explicit MemoryTier(int64_t maxBytes) : maxBytes_(maxBytes) {}

  std::shared_ptr<const std::string> get(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }

  void put(const std::string& key, std::shared_ptr<const std::string> entry) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (maxBytes_ <= 0 || int64_t(entry->size()) > maxBytes_) return;
    if (auto it = index_.find(key); it != index_.end()) {
      bytes_ -= int64_t(it->second->second->size());
      lru_.erase(it->second);
      index_.erase(it);
    }
    bytes_ += int64_t(entry->size());
    lru_.emplace_front(key, std::move(entry));
    index_[key] = lru_.begin();
    while (bytes_ > maxBytes_) {
      bytes_ -= int64_t(lru_.back().second->size());
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
  }

  int64_t entries() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return int64_t(index_.size());
  }
  int64_t bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_;
  }

 private:
  using Lru = std::list<std::pair<std::string, std::shared_ptr<const std::string>>>;
  mutable std::mutex mutex_;
  int64_t maxBytes_;
  int64_t bytes_ = 0;
  Lru lru_;  // most recently used first
  std::unordered_map<std::string, Lru::iterator> index_;
};

}  // namespace tilejit::service
