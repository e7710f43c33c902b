// NVIDIA: nvrtc compiles the emitted CUDA C++ to a CUBIN for the exact sm_XX, with the device
// library handed over in memory. libnvrtc is loaded with dlopen (DESIGN principle 6).
#include <dlfcn.h>
#include <limits.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/toolchains/library_version_memo.h"
#include "compiler/backends/cuda/nvrtc_toolchain.h"
#include "support/dynamic_library.h"
#include "support/status.h"

namespace tilejit {
namespace {

using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram*;
inline constexpr nvrtcResult NVRTC_SUCCESS = 0;

struct NvrtcApi {
  DynamicLibrary library;
  int major = 0;
  int minor = 0;
  const char* (*getErrorString)(nvrtcResult);
  nvrtcResult (*version)(int*, int*);
  nvrtcResult (*createProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*);
  nvrtcResult (*destroyProgram)(nvrtcProgram*);
  nvrtcResult (*compileProgram)(nvrtcProgram, int, const char* const*);
  nvrtcResult (*getCubinSize)(nvrtcProgram, size_t*);
  nvrtcResult (*getCubin)(nvrtcProgram, char*);
  nvrtcResult (*getPtxSize)(nvrtcProgram, size_t*);
  nvrtcResult (*getPtx)(nvrtcProgram, char*);
  nvrtcResult (*getProgramLogSize)(nvrtcProgram, size_t*);
  nvrtcResult (*getProgramLog)(nvrtcProgram, char*);

  absl::Status check(nvrtcResult result, const char* call) const {
    if (result == NVRTC_SUCCESS) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(call, " failed: ", getErrorString(result)));
  }
};

const std::vector<std::string>& nvrtcCandidates() {
  static const std::vector<std::string> candidates = {
      "libnvrtc.so.13", "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so.13",
      "/usr/local/cuda/lib/libnvrtc.so.13"};
  return candidates;
}

absl::StatusOr<std::unique_ptr<NvrtcApi>> loadNvrtc() {
  const std::vector<std::string>& candidates = nvrtcCandidates();
  absl::StatusOr<DynamicLibrary> library = DynamicLibrary::open(candidates);
  if (!library.ok())
    return absl::UnavailableError(absl::StrCat("NVRTC not found: tried ",
                                               absl::StrJoin(candidates, ", "), ": ",
                                               library.status().message()));
  auto api = std::make_unique<NvrtcApi>();
  api->library = *std::move(library);
  const DynamicLibrary& lib = api->library;
  TJ_ASSIGN_OR_RETURN(api->getErrorString,
                      lib.symbol<decltype(api->getErrorString)>("nvrtcGetErrorString"));
  TJ_ASSIGN_OR_RETURN(api->version, lib.symbol<decltype(api->version)>("nvrtcVersion"));
  TJ_ASSIGN_OR_RETURN(api->createProgram,
                      lib.symbol<decltype(api->createProgram)>("nvrtcCreateProgram"));
  TJ_ASSIGN_OR_RETURN(api->destroyProgram,
                      lib.symbol<decltype(api->destroyProgram)>("nvrtcDestroyProgram"));
  TJ_ASSIGN_OR_RETURN(api->compileProgram,
                      lib.symbol<decltype(api->compileProgram)>("nvrtcCompileProgram"));
  TJ_ASSIGN_OR_RETURN(api->getCubinSize,
                      lib.symbol<decltype(api->getCubinSize)>("nvrtcGetCUBINSize"));
  TJ_ASSIGN_OR_RETURN(api->getCubin, lib.symbol<decltype(api->getCubin)>("nvrtcGetCUBIN"));
  TJ_ASSIGN_OR_RETURN(api->getPtxSize, lib.symbol<decltype(api->getPtxSize)>("nvrtcGetPTXSize"));
  TJ_ASSIGN_OR_RETURN(api->getPtx, lib.symbol<decltype(api->getPtx)>("nvrtcGetPTX"));
  TJ_ASSIGN_OR_RETURN(api->getProgramLogSize,
                      lib.symbol<decltype(api->getProgramLogSize)>("nvrtcGetProgramLogSize"));
  TJ_ASSIGN_OR_RETURN(api->getProgramLog,
                      lib.symbol<decltype(api->getProgramLog)>("nvrtcGetProgramLog"));
  TJ_RETURN_IF_ERROR(api->check(api->version(&api->major, &api->minor), "nvrtcVersion"));
  return api;
}

// Loaded once per process and never unloaded: programs may be compiled from many threads.
absl::StatusOr<const NvrtcApi*> nvrtc() {
  static const absl::StatusOr<std::unique_ptr<NvrtcApi>>* loaded =
      new absl::StatusOr<std::unique_ptr<NvrtcApi>>(loadNvrtc());
  if (!loaded->ok()) return loaded->status();
  return loaded->value().get();
}

class Program {
 public:
  Program(const NvrtcApi& api, nvrtcProgram program) : api_(api), program_(program) {}
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program() { api_.destroyProgram(&program_); }
  nvrtcProgram get() const { return program_; }

 private:
  const NvrtcApi& api_;
  nvrtcProgram program_;
};

// The decimal number that ends right before `suffix` in `line`, if `suffix` occurs.
std::optional<int64_t> numberBefore(absl::string_view line, absl::string_view suffix) {
  size_t end = line.find(suffix);
  if (end == absl::string_view::npos) return std::nullopt;
  size_t begin = end;
  while (begin > 0 && absl::ascii_isdigit(line[begin - 1])) --begin;
  int64_t value = 0;
  if (begin == end || !absl::SimpleAtoi(line.substr(begin, end - begin), &value))
    return std::nullopt;
  return value;
}

}  // namespace

// Reads the counts ptxas -v prints for the entry function. The log holds one block per
// function, starting with "Compiling entry function 'name'" or "Function properties for name".
ResourceUsage parsePtxasLog(const std::string& log, const std::string& entry) {
  ResourceUsage usage;
  bool logNamesEntry = log.find(entry) != std::string::npos;
  std::string current;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    static constexpr absl::string_view kCompiling = "Compiling entry function '";
    static constexpr absl::string_view kProperties = "Function properties for ";
    if (size_t at = line.find(kCompiling); at != absl::string_view::npos) {
      absl::string_view rest = line.substr(at + kCompiling.size());
      current = std::string(rest.substr(0, rest.find('\'')));
    } else if (size_t at = line.find(kProperties); at != absl::string_view::npos) {
      absl::string_view rest = line.substr(at + kProperties.size());
      current = std::string(rest.substr(0, rest.find_first_of(" \t:")));
    }
    if (logNamesEntry && current != entry) continue;
    if (size_t at = line.find("Used "); at != absl::string_view::npos)
      if (auto value = numberBefore(line.substr(at), " registers")) usage.registers = *value;
    if (auto value = numberBefore(line, " bytes spill stores")) usage.spillStores = *value;
    if (auto value = numberBefore(line, " bytes spill loads")) usage.spillLoads = *value;
    if (auto value = numberBefore(line, " bytes smem")) usage.staticSharedBytes = *value;
    if (auto value = numberBefore(line, " bytes stack frame")) usage.localBytes = *value;
  }
  return usage;
}

namespace {
// Reads a little-endian integer of sizeof(T) bytes at `offset`, if it lies inside `bytes`.
template <typename T>
std::optional<T> readAt(const std::string& bytes, uint64_t offset) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

}  // namespace

// Registers, stack frame and static shared memory of `entry` from the CUBIN's .nv.info
// attributes and its shared-memory section. ptxas -v output
// is missing from the log when nvrtc serves the CUBIN from its compile cache, so the binary
// is the reliable source. Returns false when the ELF is not understood.
bool readCubinResources(const std::string& cubin, const std::string& entry, ResourceUsage& usage) {
  if (cubin.size() < 64 ||
      cubin.compare(0, 4,
                    "\x7f"
                    "ELF") != 0 ||
      cubin[4] != 2)
    return false;
  auto sectionHeaders = readAt<uint64_t>(cubin, 0x28);
  auto headerSize = readAt<uint16_t>(cubin, 0x3A);
  auto sectionCount = readAt<uint16_t>(cubin, 0x3C);
  auto namesIndex = readAt<uint16_t>(cubin, 0x3E);
  if (!sectionHeaders || !headerSize || !sectionCount || !namesIndex || *headerSize < 64)
    return false;
  struct Section {
    uint32_t name, type, link;
    uint64_t offset, size;
  };
  std::vector<Section> sections;
  for (uint16_t i = 0; i < *sectionCount; ++i) {
    uint64_t at = *sectionHeaders + uint64_t(i) * *headerSize;
    auto name = readAt<uint32_t>(cubin, at);
    auto type = readAt<uint32_t>(cubin, at + 4);
    auto offset = readAt<uint64_t>(cubin, at + 24);
    auto size = readAt<uint64_t>(cubin, at + 32);
    auto link = readAt<uint32_t>(cubin, at + 40);
    if (!name || !type || !offset || !size || !link) return false;
    // SHT_NOBITS sections (shared memory) occupy no bytes of the file.
    constexpr uint32_t kNoBits = 8;
    if (*type != kNoBits && (*offset > cubin.size() || cubin.size() - *offset < *size))
      return false;
    sections.push_back({*name, *type, *link, *offset, *size});
  }
  auto stringAt = [&](const Section& table, uint32_t index) -> std::string {
    if (index >= table.size) return "";
    const char* begin = cubin.data() + table.offset + index;
    return std::string(begin, strnlen(begin, table.size - index));
  };
  if (*namesIndex >= sections.size()) return false;
  const Section& names = sections[*namesIndex];
  const Section* symbols = nullptr;
  const Section* info = nullptr;
  // The entry's static shared memory is the size of its section ".nv.shared.<entry>" (no
  // section: none). Where the CUBIN also has a ".nv.shared.reserved.*" section (sm_90 on),
  // the entry's section starts with the 1 KB the driver reserves per program, which ptxas's
  // count (and CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) leave out: 12000 bytes of arrays make a
  // 13024-byte section on sm_90, a 12000-byte one on sm_80.
  constexpr int64_t kReservedPerProgram = 1024;
  int64_t entryShared = 0;
  bool reservedFirst = false;
  for (const Section& section : sections) {
    if (section.type == 2 /*SHT_SYMTAB*/) symbols = &section;
    const std::string sectionName = stringAt(names, section.name);
    if (sectionName == ".nv.info") info = &section;
    if (sectionName == ".nv.shared." + entry) entryShared = int64_t(section.size);
    if (absl::StartsWith(sectionName, ".nv.shared.reserved.")) reservedFirst = true;
  }
  usage.staticSharedBytes = reservedFirst && entryShared >= kReservedPerProgram
                                ? entryShared - kReservedPerProgram
                                : entryShared;
  if (!symbols || !info || symbols->link >= sections.size()) return false;
  const Section& symbolNames = sections[symbols->link];
  auto symbolName = [&](uint32_t index) -> std::string {
    auto name = readAt<uint32_t>(cubin, symbols->offset + uint64_t(index) * 24);
    if (uint64_t(index) * 24 >= symbols->size || !name) return "";
    return stringAt(symbolNames, *name);
  };
  // Records: format byte, attribute byte, then a 16-bit value, or (format 4, EIFMT_SVAL) a
  // 16-bit size and that many bytes.
  constexpr uint8_t kFormatSizedValue = 0x04;
  constexpr uint8_t kAttributeFrameSize = 0x11;
  constexpr uint8_t kAttributeRegisterCount = 0x2f;
  bool found = false;
  for (uint64_t at = info->offset; at + 4 <= info->offset + info->size;) {
    uint8_t format = uint8_t(cubin[at]);
    uint8_t attribute = uint8_t(cubin[at + 1]);
    uint16_t size = *readAt<uint16_t>(cubin, at + 2);
    uint64_t payload = at + 4;
    at = format == kFormatSizedValue ? payload + size : payload;
    if (format != kFormatSizedValue || size < 8 || at > info->offset + info->size) continue;
    if (attribute != kAttributeRegisterCount && attribute != kAttributeFrameSize) continue;
    if (symbolName(*readAt<uint32_t>(cubin, payload)) != entry) continue;
    uint32_t value = *readAt<uint32_t>(cubin, payload + 4);
    if (attribute == kAttributeRegisterCount) {
      usage.registers = value;
      found = true;
    } else {
      usage.localBytes = value;
    }
  }
  return found;
}

namespace {

bool isDirectory(const char* path) {
  struct stat info;
  return stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

class NvrtcToolchain : public Toolchain {
 public:
  // `version` is nvrtc's "major.minor"; the library itself is loaded by the first compile.
  // `memo` is where that version was recalled from ("" when it came from the library).
  NvrtcToolchain(std::string version, std::string memo, const TargetDescription& target)
      : version_(std::move(version)), memo_(std::move(memo)) {
    // --minimal leaves out the front end's texture, runtime-API and device-launch declarations,
    // which the emitted code never uses: cold decode compiles took a median 0.66 s against
    // 0.91 s, alternating, on one (noisy) H200 host (bench/results/2026-12-01/s11-jit).
    options_ = {absl::StrCat("--gpu-architecture=", target.name), "-std=c++17", "-default-device",
                "--minimal", "-Xptxas=-v"};
    // The device library is self-contained; the toolkit headers only help hand-written TUs.
    if (isDirectory("/usr/local/cuda/include"))
      options_.push_back("--include-path=/usr/local/cuda/include");
    // Extra options for kernel authors (space-separated); part of identity(), so of every key.
    if (const char* extra = std::getenv("TILEJIT_NVRTC_OPTIONS"))
      for (absl::string_view option : absl::StrSplit(extra, ' ', absl::SkipEmpty()))
        options_.emplace_back(option);
  }

  std::string identity() const override {
    return absl::StrCat("nvrtc ", version_, " ", absl::StrJoin(options_, " "));
  }

  absl::StatusOr<CompileResult> compile(const CompileRequest& request) const override {
    TJ_ASSIGN_OR_RETURN(const NvrtcApi* loaded, nvrtc());
    const NvrtcApi& api = *loaded;
    if (std::string actual = absl::StrCat(api.major, ".", api.minor); actual != version_) {
      std::remove(memo_.c_str());
      return absl::FailedPreconditionError(absl::StrCat(
          "libnvrtc ", actual, " was loaded, but this process keyed its cache entries for nvrtc ",
          version_, " as recorded in ", memo_,
          " (the library changed in a way the record could not see); the record is removed: "
          "run again"));
    }
    auto start = std::chrono::steady_clock::now();
    std::vector<const char*> headerContents;
    std::vector<const char*> headerNames;
    for (const auto& [name, content] : request.headers) {
      headerNames.push_back(name.c_str());
      headerContents.push_back(content.c_str());
    }
    nvrtcProgram raw = nullptr;
    std::string sourceName = request.sourceName.empty() ? "kernel.cu" : request.sourceName;
    TJ_RETURN_IF_ERROR(
        api.check(api.createProgram(&raw, request.source.c_str(), sourceName.c_str(),
                                      static_cast<int>(request.headers.size()),
                                      headerContents.data(), headerNames.data()),
                   "nvrtcCreateProgram"));
    Program program(api, raw);

    std::vector<const char*> options;
    for (const std::string& option : options_) options.push_back(option.c_str());
    nvrtcResult compiled =
        api.compileProgram(program.get(), static_cast<int>(options.size()), options.data());

    CompileResult result;
    size_t logSize = 0;
    TJ_RETURN_IF_ERROR(
        api.check(api.getProgramLogSize(program.get(), &logSize), "nvrtcGetProgramLogSize"));
    result.log.resize(logSize);
    if (logSize)
      TJ_RETURN_IF_ERROR(
          api.check(api.getProgramLog(program.get(), result.log.data()), "nvrtcGetProgramLog"));
    while (!result.log.empty() && result.log.back() == '\0') result.log.pop_back();
    if (compiled != NVRTC_SUCCESS)
      return absl::InvalidArgumentError(absl::StrCat("nvrtc failed to compile ", sourceName, " (",
                                                     api.getErrorString(compiled), "):\n",
                                                     result.log));

    size_t cubinSize = 0;
    TJ_RETURN_IF_ERROR(
        api.check(api.getCubinSize(program.get(), &cubinSize), "nvrtcGetCUBINSize"));
    result.binary.resize(cubinSize);
    TJ_RETURN_IF_ERROR(
        api.check(api.getCubin(program.get(), result.binary.data()), "nvrtcGetCUBIN"));
    size_t ptxSize = 0;
    if (api.getPtxSize(program.get(), &ptxSize) == NVRTC_SUCCESS && ptxSize > 0) {
      result.intermediate.resize(ptxSize);
      if (api.getPtx(program.get(), result.intermediate.data()) != NVRTC_SUCCESS)
        result.intermediate.clear();
      // nvrtcGetPTX counts the terminating NUL; ptxas and text tools do not want it.
      while (!result.intermediate.empty() && result.intermediate.back() == '\0')
        result.intermediate.pop_back();
    }
    result.resources = parsePtxasLog(result.log, request.entry);
    if (result.resources.registers < 0)
      readCubinResources(result.binary, request.entry, result.resources);
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

 private:
  std::string version_;
  std::string memo_;
  std::vector<std::string> options_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Toolchain>> createNvrtcToolchain(const TargetDescription& target,
                                                                const std::string& stateDirectory) {
  // A process that only hits the disk cache never needs libnvrtc itself, only its version.
  const std::string search = librarySearchFingerprint(absl::StrJoin(nvrtcCandidates(), ","));
  const std::string memo =
      stateDirectory.empty() ? "" : memoPathFor(stateDirectory, "nvrtc", search);
  if (!memo.empty())
    if (std::optional<std::string> version = recallLibraryVersion(memo, search))
      return std::unique_ptr<Toolchain>(std::make_unique<NvrtcToolchain>(*version, memo, target));
  TJ_ASSIGN_OR_RETURN(const NvrtcApi* api, nvrtc());
  std::string version = absl::StrCat(api->major, ".", api->minor);
  Dl_info where;
  char resolved[PATH_MAX];
  if (!memo.empty() && dladdr(reinterpret_cast<void*>(api->version), &where) && where.dli_fname &&
      realpath(where.dli_fname, resolved))
    rememberLibraryVersion(memo, search, resolved, version);
  return std::unique_ptr<Toolchain>(std::make_unique<NvrtcToolchain>(version, "", target));
}

}  // namespace tilejit
