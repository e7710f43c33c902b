#include "compiler/toolchains/library_version_memo.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>

#include "absl/strings/str_cat.h"

namespace tilejit {
namespace {

// "size:mtime_ns:inode" of a file, or "" when it cannot be stat'ed.
std::string fileFingerprint(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) return "";
  return absl::StrCat(info.st_size, ":",
                      static_cast<long long>(info.st_mtim.tv_sec) * 1000000000LL +
                          info.st_mtim.tv_nsec,
                      ":", info.st_ino);
}

}  // namespace

std::string librarySearchFingerprint(const std::string& candidates) {
  const char* searchPath = std::getenv("LD_LIBRARY_PATH");
  // The binary whose code calls dlopen: its RUNPATH ($ORIGIN) is searched too.
  Dl_info self;
  std::string loader = dladdr(reinterpret_cast<void*>(&librarySearchFingerprint), &self) &&
                               self.dli_fname
                           ? self.dli_fname
                           : "";
  return absl::StrCat("candidates=", candidates, " loader=", loader, " LD_LIBRARY_PATH=",
                      searchPath ? searchPath : "", " ld.so.cache=",
                      fileFingerprint("/etc/ld.so.cache"));
}

std::string memoPathFor(const std::string& directory, const std::string& library,
                        const std::string& search) {
  return absl::StrCat(directory, "/toolchains/", library, "-",
                      absl::Hex(std::hash<std::string>()(search), absl::kZeroPad16));
}

std::optional<std::string> recallLibraryVersion(const std::string& memoPath,
                                                const std::string& search) {
  std::ifstream in(memoPath);
  std::string recordedSearch, libraryPath, recordedFile, version;
  if (!std::getline(in, recordedSearch) || !std::getline(in, libraryPath) ||
      !std::getline(in, recordedFile) || !std::getline(in, version) || version.empty())
    return std::nullopt;
  if (recordedSearch != search || recordedFile.empty() ||
      recordedFile != fileFingerprint(libraryPath))
    return std::nullopt;
  return version;
}

void rememberLibraryVersion(const std::string& memoPath, const std::string& search,
                            const std::string& libraryPath, const std::string& version) {
  std::string file = fileFingerprint(libraryPath);
  if (file.empty() || search.find('\n') != std::string::npos ||
      libraryPath.find('\n') != std::string::npos)
    return;
  std::string directory = memoPath.substr(0, memoPath.rfind('/'));
  mkdir(directory.c_str(), 0777);  // its parent is the cache root, which exists
  std::string temporary = absl::StrCat(memoPath, ".tmp.", getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << search << "\n" << libraryPath << "\n" << file << "\n" << version << "\n";
    if (!out.flush()) {
      std::remove(temporary.c_str());
      return;
    }
  }
  if (std::rename(temporary.c_str(), memoPath.c_str()) != 0) std::remove(temporary.c_str());
}

}  // namespace tilejit
