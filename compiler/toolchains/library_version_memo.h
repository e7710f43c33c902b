// A vendor compiler library's version remembered across processes. Every cache key names the
// toolchain's version, and asking libnvrtc for it means loading it: ~7 ms of a 10 ms warm start
// on the H200 host (bench/results/2026-11-29/session4/jit-nvrtc-preload.jsonl), in a process
// that only loads CUBINs from the disk cache and never compiles. The memo answers instead while
// nothing that decides which file dlopen would pick, nor that file, has changed.
#pragma once

#include <optional>
#include <string>

namespace tilejit {

// What decides which file dlopen picks for `candidates`: the names tried, the binary that calls
// dlopen (its RUNPATH), LD_LIBRARY_PATH, the loader's cache /etc/ld.so.cache. Not seen: a
// library copied into a directory searched earlier than the one that served the last load,
// without ldconfig. The toolchain checks the loaded version when it compiles and, on a
// mismatch, fails that compile, naming and removing the memo.
std::string librarySearchFingerprint(const std::string& candidates);

// Where the memo of `library` ("nvrtc") for one search fingerprint lives under a cache root.
std::string memoPathFor(const std::string& directory, const std::string& library,
                        const std::string& search);

// The version recorded in `memoPath` for `search`, if the library file recorded there is still
// the same file (path, size, modification time, inode). Any mismatch or unreadable memo: none.
std::optional<std::string> recallLibraryVersion(const std::string& memoPath,
                                                const std::string& search);

// Records `version` of the library loaded from `libraryPath` (best effort: a read-only cache
// directory only costs the next process the load). Written to a temporary file and renamed,
// so a concurrent reader sees the old memo or the new one, never a mix.
void rememberLibraryVersion(const std::string& memoPath, const std::string& search,
                            const std::string& libraryPath, const std::string& version);

}  // namespace tilejit
