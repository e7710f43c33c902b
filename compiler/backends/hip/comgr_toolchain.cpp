// comgr's compile sequence for HIP without the ROCm headers (the device library is
// self-contained): COMPILE_SOURCE_TO_BC -> [ADD_DEVICE_LIBRARIES, 2.x only] -> LINK_BC_TO_BC ->
// CODEGEN_BC_TO_RELOCATABLE -> LINK_RELOCATABLE_TO_EXECUTABLE, plus CODEGEN_BC_TO_ASSEMBLY for
// the assembly listing. libamd_comgr is loaded with dlopen; its action enum is picked by version.
#include "compiler/backends/hip/comgr_toolchain.h"

#include <chrono>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/backends/hip/amd_compile.h"
#include "support/dynamic_library.h"
#include "support/status.h"

namespace tilejit {
namespace {

using ComgrStatus = int;
struct ComgrData { uint64_t handle; };
struct ComgrDataSet { uint64_t handle; };
struct ComgrActionInfo { uint64_t handle; };
constexpr ComgrStatus kComgrSuccess = 0;
// Data kinds and the HIP language are the same in comgr 2.x and 3.x.
enum ComgrDataKind : int { kSource = 1, kInclude = 2, kLog = 5, kBitcode = 6, kRelocatable = 7,
                           kExecutable = 8 };
constexpr int kLanguageHip = 4;
constexpr char kIsaPrefix[] = "amdgcn-amd-amdhsa--";

// Action kinds: amd_comgr.h of comgr 2.x (ROCm 5/6) and 3.x (ROCm 7), which renumbered them
// and dropped ADD_DEVICE_LIBRARIES (-1: not in this version).
struct ComgrActions {
  int compileSourceToBitcode;
  int addDeviceLibraries;
  int linkBitcode;
  int codegenToRelocatable;
  int codegenToAssembly;
  int linkRelocatableToExecutable;
};
constexpr ComgrActions kComgr2Actions{0x2, 0x3, 0x4, 0x6, 0x7, 0x9};
constexpr ComgrActions kComgr3Actions{0x2, -1, 0x3, 0x4, 0x5, 0x7};

struct ComgrApi {
  DynamicLibrary library;
  size_t major = 0;
  size_t minor = 0;
  std::optional<ComgrActions> actions;  // none: a version this build has no table for
  std::vector<std::string> isas;
  void (*getVersion)(size_t*, size_t*);
  ComgrStatus (*statusString)(ComgrStatus, const char**);
  ComgrStatus (*getIsaCount)(size_t*);
  ComgrStatus (*getIsaName)(size_t, const char**);
  ComgrStatus (*createData)(int, ComgrData*);
  ComgrStatus (*releaseData)(ComgrData);
  ComgrStatus (*setData)(ComgrData, size_t, const char*);
  ComgrStatus (*setDataName)(ComgrData, const char*);
  ComgrStatus (*getData)(ComgrData, size_t*, char*);
  ComgrStatus (*createDataSet)(ComgrDataSet*);
  ComgrStatus (*destroyDataSet)(ComgrDataSet);
  ComgrStatus (*dataSetAdd)(ComgrDataSet, ComgrData);
  ComgrStatus (*actionDataCount)(ComgrDataSet, int, size_t*);
  ComgrStatus (*actionDataGetData)(ComgrDataSet, int, size_t, ComgrData*);
  ComgrStatus (*createActionInfo)(ComgrActionInfo*);
  ComgrStatus (*destroyActionInfo)(ComgrActionInfo);
  ComgrStatus (*setIsaName)(ComgrActionInfo, const char*);
  ComgrStatus (*setLanguage)(ComgrActionInfo, int);
  ComgrStatus (*setOptionList)(ComgrActionInfo, const char**, size_t);
  ComgrStatus (*setLogging)(ComgrActionInfo, bool);
  ComgrStatus (*doAction)(int, ComgrActionInfo, ComgrDataSet, ComgrDataSet);

  absl::Status check(ComgrStatus status, const char* call) const {
    if (status == kComgrSuccess) return absl::OkStatus();
    const char* text = nullptr;
    if (statusString(status, &text) != kComgrSuccess || !text) text = "unknown status";
    return absl::InternalError(absl::StrCat(call, " failed: ", text, " (", status, ")"));
  }
  std::string version() const { return absl::StrCat(major, ".", minor); }
};

absl::StatusOr<std::unique_ptr<ComgrApi>> loadComgr(const std::vector<std::string>& candidates) {
  auto api = std::make_unique<ComgrApi>();
  TJ_ASSIGN_OR_RETURN(api->library, openVendorLibrary("comgr", candidates));
  const DynamicLibrary& lib = api->library;
#define TJ_COMGR_SYMBOL(field, name) \
  TJ_ASSIGN_OR_RETURN(api->field, lib.symbol<decltype(api->field)>(name))
  TJ_COMGR_SYMBOL(getVersion, "amd_comgr_get_version");
  TJ_COMGR_SYMBOL(statusString, "amd_comgr_status_string");
  TJ_COMGR_SYMBOL(getIsaCount, "amd_comgr_get_isa_count");
  TJ_COMGR_SYMBOL(getIsaName, "amd_comgr_get_isa_name");
  TJ_COMGR_SYMBOL(createData, "amd_comgr_create_data");
  TJ_COMGR_SYMBOL(releaseData, "amd_comgr_release_data");
  TJ_COMGR_SYMBOL(setData, "amd_comgr_set_data");
  TJ_COMGR_SYMBOL(setDataName, "amd_comgr_set_data_name");
  TJ_COMGR_SYMBOL(getData, "amd_comgr_get_data");
  TJ_COMGR_SYMBOL(createDataSet, "amd_comgr_create_data_set");
  TJ_COMGR_SYMBOL(destroyDataSet, "amd_comgr_destroy_data_set");
  TJ_COMGR_SYMBOL(dataSetAdd, "amd_comgr_data_set_add");
  TJ_COMGR_SYMBOL(actionDataCount, "amd_comgr_action_data_count");
  TJ_COMGR_SYMBOL(actionDataGetData, "amd_comgr_action_data_get_data");
  TJ_COMGR_SYMBOL(createActionInfo, "amd_comgr_create_action_info");
  TJ_COMGR_SYMBOL(destroyActionInfo, "amd_comgr_destroy_action_info");
  TJ_COMGR_SYMBOL(setIsaName, "amd_comgr_action_info_set_isa_name");
  TJ_COMGR_SYMBOL(setLanguage, "amd_comgr_action_info_set_language");
  TJ_COMGR_SYMBOL(setOptionList, "amd_comgr_action_info_set_option_list");
  TJ_COMGR_SYMBOL(setLogging, "amd_comgr_action_info_set_logging");
  TJ_COMGR_SYMBOL(doAction, "amd_comgr_do_action");
#undef TJ_COMGR_SYMBOL
  api->getVersion(&api->major, &api->minor);
  // Another major version keeps the ISA list (which vouches for hiprtc) but compiles nothing.
  if (api->major == 2) api->actions = kComgr2Actions;
  if (api->major == 3) api->actions = kComgr3Actions;
  size_t count = 0;
  TJ_RETURN_IF_ERROR(api->check(api->getIsaCount(&count), "amd_comgr_get_isa_count"));
  for (size_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    TJ_RETURN_IF_ERROR(api->check(api->getIsaName(i, &name), "amd_comgr_get_isa_name"));
    api->isas.emplace_back(name);
  }
  return api;
}

absl::StatusOr<const ComgrApi*> comgr(const std::vector<std::string>& candidates) {
  return loadOnce<ComgrApi>(candidates, loadComgr);
}

absl::Status checkIsaListed(const ComgrApi& api, const std::string& target) {
  for (const std::string& isa : api.isas)
    if (isa == kIsaPrefix + target) return absl::OkStatus();
  std::vector<std::string> gfx;
  for (const std::string& isa : api.isas)
    if (absl::StartsWith(isa, kIsaPrefix)) gfx.push_back(isa.substr(sizeof(kIsaPrefix) - 1));
  return absl::NotFoundError(absl::StrCat("comgr ", api.version(), " (", api.library.path(),
                                          ") does not know ", target, "; it lists ",
                                          absl::StrJoin(gfx, " ")));
}

// One comgr object, destroyed with the owner when its creation succeeded.
template <typename Handle>
class ComgrObject {
 public:
  ComgrObject(const ComgrApi& api, ComgrStatus (*create)(Handle*), ComgrStatus (*destroy)(Handle),
              const char* call)
      : api_(api), destroy_(destroy) {
    status_ = api.check(create(&handle_), call);
  }
  ComgrObject(const ComgrObject&) = delete;
  ComgrObject& operator=(const ComgrObject&) = delete;
  ~ComgrObject() {
    if (status_.ok()) destroy_(handle_);
  }
  const absl::Status& status() const { return status_; }
  Handle get() const { return handle_; }

 protected:
  const ComgrApi& api_;
  ComgrStatus (*destroy_)(Handle);
  Handle handle_{0};
  absl::Status status_;
};

class DataSet : public ComgrObject<ComgrDataSet> {
 public:
  explicit DataSet(const ComgrApi& api)
      : ComgrObject(api, api.createDataSet, api.destroyDataSet, "amd_comgr_create_data_set") {}

  absl::Status add(int kind, const std::string& name, const std::string& bytes) {
    ComgrData raw;
    TJ_RETURN_IF_ERROR(api_.check(api_.createData(kind, &raw), "amd_comgr_create_data"));
    VendorHandle data(raw, api_.releaseData);  // the set keeps its own reference
    TJ_RETURN_IF_ERROR(
        api_.check(api_.setData(raw, bytes.size(), bytes.data()), "amd_comgr_set_data"));
    TJ_RETURN_IF_ERROR(api_.check(api_.setDataName(raw, name.c_str()), "amd_comgr_set_data_name"));
    return api_.check(api_.dataSetAdd(handle_, raw), "amd_comgr_data_set_add");
  }

  // The bytes of every data object of `kind`, concatenated (one for the outputs used here).
  std::string bytesOf(int kind) const {
    std::string all;
    size_t count = 0;
    if (api_.actionDataCount(handle_, kind, &count) != kComgrSuccess) return all;
    for (size_t i = 0; i < count; ++i) {
      ComgrData raw;
      if (api_.actionDataGetData(handle_, kind, i, &raw) != kComgrSuccess) continue;
      VendorHandle data(raw, api_.releaseData);
      size_t size = 0;
      if (api_.getData(raw, &size, nullptr) != kComgrSuccess) continue;
      std::string bytes(size, '\0');
      if (api_.getData(raw, &size, bytes.data()) == kComgrSuccess) all += bytes;
    }
    return all;
  }
};

class ActionInfo : public ComgrObject<ComgrActionInfo> {
 public:
  explicit ActionInfo(const ComgrApi& api)
      : ComgrObject(api, api.createActionInfo, api.destroyActionInfo,
                    "amd_comgr_create_action_info") {}

  // An action info for `isa` in HIP with logging; `options` may be empty (ADD_DEVICE_LIBRARIES
  // in comgr 2.x refuses clang options).
  absl::Status configure(const std::string& isa, const std::vector<std::string>& options) {
    TJ_RETURN_IF_ERROR(status_);
    TJ_RETURN_IF_ERROR(
        api_.check(api_.setIsaName(handle_, isa.c_str()), "amd_comgr_action_info_set_isa_name"));
    TJ_RETURN_IF_ERROR(
        api_.check(api_.setLanguage(handle_, kLanguageHip), "amd_comgr_action_info_set_language"));
    TJ_RETURN_IF_ERROR(
        api_.check(api_.setLogging(handle_, true), "amd_comgr_action_info_set_logging"));
    std::vector<const char*> list;
    for (const std::string& option : options) list.push_back(option.c_str());
    return api_.check(api_.setOptionList(handle_, list.data(), list.size()),
                      "amd_comgr_action_info_set_option_list");
  }
};

class ComgrToolchain : public Toolchain {
 public:
  ComgrToolchain(const ComgrApi& api, const TargetDescription& target)
      : api_(api), actions_(*api.actions), target_(target.name) {
    options_ = amdCompileOptions();
    options_.insert(options_.end(), {"-nogpuinc", "-std=c++17"});
  }

  std::string identity() const override {
    return absl::StrCat("comgr ", api_.version(), " ", absl::StrJoin(options_, " "));
  }

  absl::StatusOr<CompileResult> compile(const CompileRequest& request) const override {
    TJ_RETURN_IF_ERROR(checkIsaListed(api_, target_));
    auto start = std::chrono::steady_clock::now();
    const std::string isa = kIsaPrefix + target_;
    ActionInfo info(api_);
    TJ_RETURN_IF_ERROR(info.configure(isa, options_));

    DataSet input(api_);
    TJ_RETURN_IF_ERROR(input.status());
    const std::string sourceName = request.sourceName.empty() ? "kernel.hip" : request.sourceName;
    TJ_RETURN_IF_ERROR(input.add(kSource, sourceName, request.source));
    for (const auto& [name, content] : request.headers)
      TJ_RETURN_IF_ERROR(input.add(kInclude, name, content));

    CompileResult result;
    DataSet bitcode(api_);
    TJ_RETURN_IF_ERROR(run(actions_.compileSourceToBitcode, info, input, bitcode,
                           "COMPILE_SOURCE_TO_BC", sourceName, result.log));
    DataSet withLibraries(api_);
    const DataSet* toLink = &bitcode;
    if (actions_.addDeviceLibraries >= 0) {
      ActionInfo bare(api_);
      TJ_RETURN_IF_ERROR(bare.configure(isa, {}));
      TJ_RETURN_IF_ERROR(run(actions_.addDeviceLibraries, bare, bitcode, withLibraries,
                             "ADD_DEVICE_LIBRARIES", sourceName, result.log));
      toLink = &withLibraries;
    }
    DataSet linked(api_);
    TJ_RETURN_IF_ERROR(run(actions_.linkBitcode, info, *toLink, linked, "LINK_BC_TO_BC",
                           sourceName, result.log));
    DataSet relocatable(api_);
    TJ_RETURN_IF_ERROR(run(actions_.codegenToRelocatable, info, linked, relocatable,
                           "CODEGEN_BC_TO_RELOCATABLE", sourceName, result.log));
    DataSet executable(api_);
    TJ_RETURN_IF_ERROR(run(actions_.linkRelocatableToExecutable, info, relocatable,
                           executable, "LINK_RELOCATABLE_TO_EXECUTABLE", sourceName, result.log));
    result.binary = executable.bytesOf(kExecutable);
    TJ_RETURN_IF_ERROR(takeAmdResources(result, request.entry));
    // The listing is a second codegen of the same bitcode: the same code, printed.
    DataSet assembly(api_);
    std::string ignoredLog;
    if (run(actions_.codegenToAssembly, info, linked, assembly, "CODEGEN_BC_TO_ASSEMBLY",
            sourceName, ignoredLog).ok())
      result.intermediate = assembly.bytesOf(kSource);
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

 private:
  absl::Status run(int action, const ActionInfo& info, const DataSet& input, DataSet& output,
                   const char* actionName, const std::string& sourceName,
                   std::string& log) const {
    TJ_RETURN_IF_ERROR(output.status());
    ComgrStatus status = api_.doAction(action, info.get(), input.get(), output.get());
    log += output.bytesOf(kLog);
    if (status == kComgrSuccess) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "comgr ", api_.version(), " failed to compile ", sourceName, " for ", target_, " (",
        actionName, ": ", api_.check(status, "amd_comgr_do_action").message(), "):\n", log));
  }

  const ComgrApi& api_;
  ComgrActions actions_;
  std::string target_;
  std::vector<std::string> options_;
};

}  // namespace

const std::vector<std::string>& comgrCandidates() {
  static const std::vector<std::string> candidates = {"libamd_comgr.so.3", "libamd_comgr.so.2",
                                                      "/opt/rocm/lib/libamd_comgr.so.3",
                                                      "/opt/rocm/lib/libamd_comgr.so.2"};
  return candidates;
}

absl::StatusOr<std::vector<std::string>> comgrIsaNames(const std::vector<std::string>& candidates) {
  TJ_ASSIGN_OR_RETURN(const ComgrApi* api, comgr(candidates));
  return api->isas;
}

absl::StatusOr<std::pair<size_t, size_t>> comgrVersion(const std::vector<std::string>& candidates) {
  TJ_ASSIGN_OR_RETURN(const ComgrApi* api, comgr(candidates));
  return std::make_pair(api->major, api->minor);
}

absl::Status checkComgrKnowsTarget(const std::string& target,
                                   const std::vector<std::string>& candidates) {
  TJ_ASSIGN_OR_RETURN(const ComgrApi* api, comgr(candidates));
  return checkIsaListed(*api, target);
}

absl::StatusOr<std::unique_ptr<Toolchain>> createComgrToolchain(
    const TargetDescription& target, const std::vector<std::string>& candidates) {
  TJ_ASSIGN_OR_RETURN(const ComgrApi* api, comgr(candidates));
  if (!api->actions)
    return absl::UnimplementedError(absl::StrCat(
        "comgr ", api->version(), " (", api->library.path(),
        ") has an action table this build does not know; comgr 2.x and 3.x are supported"));
  TJ_RETURN_IF_ERROR(checkIsaListed(*api, target.name));
  return std::unique_ptr<Toolchain>(std::make_unique<ComgrToolchain>(*api, target));
}

}  // namespace tilejit
