// Helpers shared by the cache tests: scratch directories, deterministic keys and entries.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cache/cache_key.h"
#include "cache/disk_cache.h"

namespace tilejit::testing {

// A fresh directory under the test temp dir, removed with its contents on destruction.
class ScratchDirectory {
 public:
  explicit ScratchDirectory(const std::string& name) {
    std::string pattern = std::filesystem::temp_directory_path().string() + "/tj_" + name + "_XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    path_ = ::mkdtemp(buffer.data());
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& child) const { return path_ + "/" + child; }

 private:
  std::string path_;
};

inline std::string testKey(int i) {
  return CacheKeyBuilder().addField("test-key", std::to_string(i)).finish();
}

// Content depends only on the key, so any process can check what it got.
inline CacheEntry testEntry(const std::string& key, size_t binaryBytes) {
  CacheEntry entry;
  entry.metadataJson = "{\"templateName\": \"tmpl_" + key.substr(0, 8) + "\", \"entry\": \"k\"}";
  std::mt19937_64 random(std::hash<std::string>()(key));
  entry.binary.resize(binaryBytes);
  for (size_t i = 0; i < binaryBytes; i += 8) {
    uint64_t word = random();
    for (size_t j = 0; j < 8 && i + j < binaryBytes; ++j) entry.binary[i + j] = char(word >> (8 * j));
  }
  return entry;
}

inline std::string readFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream content;
  content << file.rdbuf();
  return content.str();
}

inline void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

inline bool fileExists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

inline int countLines(const std::string& path) {
  std::string text = readFile(path);
  return int(std::count(text.begin(), text.end(), '\n'));
}

inline void appendLine(const std::string& path, const std::string& line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  std::string text = line + "\n";
  (void)!::write(fd, text.data(), text.size());
  ::close(fd);
}

// Collects warnings from a DiskCache (thread-safe: the sink may be called concurrently).
struct WarningLog {
  std::mutex mutex;
  std::vector<std::string> messages;
  std::function<void(const std::string&)> sink() {
    return [this](const std::string& message) {
      std::lock_guard<std::mutex> guard(mutex);
      messages.push_back(message);
    };
  }
};

// Entry files under a cache root (the v1 layout), sorted.
inline std::vector<std::string> entryFiles(const std::string& root) {
  std::vector<std::string> files;
  std::error_code ignored;
  for (const auto& item : std::filesystem::recursive_directory_iterator(root + "/v1", ignored)) {
    if (item.is_regular_file()) files.push_back(item.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

inline DiskCacheOptions testOptions(const std::string& directory, WarningLog* warnings = nullptr) {
  DiskCacheOptions options;
  options.directory = directory;
  options.memoryLayerMaxBytes = 0;  // most tests are about the disk
  if (warnings) options.warningSink = warnings->sink();
  return options;
}

}  // namespace tilejit::testing
