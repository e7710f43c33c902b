#include "runtime/backends/hip/kernel_arguments.h"

#include <algorithm>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "support/status.h"

namespace tilejit {
namespace {

constexpr int64_t kSlotBytes = 8;

// What the runtime packs in each 8-byte slot, for errors: "argument 'q' extent 1".
std::vector<std::string> packedSlots(const KernelMetadata& metadata) {
  std::vector<std::string> slots;
  for (const ArgSpec& spec : metadata.args) {
    const std::string name = absl::StrCat("argument '", spec.name, "'");
    if (spec.kind == ArgSpec::Kind::kScalar) {
      slots.push_back(absl::StrCat(name, " (a scalar)"));
      continue;
    }
    slots.push_back(absl::StrCat(name, " data pointer"));
    for (const char* part : {" extent ", " stride "})
      for (size_t d = 0; d < spec.dims.size(); ++d) slots.push_back(absl::StrCat(name, part, d));
  }
  return slots;
}

std::string describeArgument(const AmdKernelArgument& argument, size_t index) {
  return absl::StrCat("argument #", index + 1, argument.name.empty() ? "" : " '", argument.name,
                      argument.name.empty() ? "" : "'", " (", argument.valueKind, ", ",
                      argument.size, " bytes at offset ", argument.offset, ")");
}

std::string processorOf(std::string_view target) {
  // "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" -> "gfx942"
  const size_t dashes = target.rfind("--");
  std::string_view processor =
      dashes == std::string_view::npos ? target : target.substr(dashes + 2);
  return std::string(processor.substr(0, processor.find(':')));
}

}  // namespace

absl::Status checkHipKernelArguments(const KernelMetadata& metadata,
                                     const AmdKernelDescriptor& kernel) {
  const std::vector<std::string> slots = packedSlots(metadata);
  const int64_t packedBytes = kSlotBytes * static_cast<int64_t>(slots.size());
  const std::string where =
      absl::StrCat("kernel '", kernel.name, "' (template '", metadata.templateName, "')");
  std::vector<const AmdKernelArgument*> explicitArguments;
  for (const AmdKernelArgument& argument : kernel.arguments)
    if (!absl::StartsWith(argument.valueKind, "hidden_")) explicitArguments.push_back(&argument);
  int64_t end = 0;
  for (size_t i = 0; i < explicitArguments.size(); ++i) {
    const AmdKernelArgument& argument = *explicitArguments[i];
    // Each argument starts the slot after the previous one ends; one wider than a slot covers
    // whole slots (the kernel ABI struct, or a 16-byte by-value piece of it).
    const int64_t expected = (end + kSlotBytes - 1) / kSlotBytes * kSlotBytes;
    const int64_t slot = argument.offset / kSlotBytes;
    const std::string packedThere =
        slot < static_cast<int64_t>(slots.size())
            ? absl::StrCat("where the runtime packs ", slots[slot])
            : absl::StrCat("past the ", packedBytes, " bytes the runtime packs");
    if (argument.offset != expected)
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": its code object's ", describeArgument(argument, i), " lies ",
                       packedThere, "; it should start at byte ", expected,
                       argument.offset % kSlotBytes ? " (arguments start 8-byte slots)" : ""));
    // A pointer argument takes a view's data pointer, never an extent, stride or scalar.
    if (argument.valueKind == "global_buffer" && slot < static_cast<int64_t>(slots.size()) &&
        !absl::EndsWith(slots[slot], " data pointer"))
      return absl::InvalidArgumentError(absl::StrCat(where, ": its code object's ",
                                                     describeArgument(argument, i),
                                                     " is a pointer ", packedThere));
    if (argument.size > kSlotBytes && argument.size % kSlotBytes != 0)
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": its code object's ", describeArgument(argument, i),
                       " ends inside an 8-byte slot (", packedThere, ")"));
    end = argument.offset + argument.size;
  }
  const int64_t explicitBytes = (end + kSlotBytes - 1) / kSlotBytes * kSlotBytes;
  if (explicitBytes != packedBytes) {
    std::vector<std::string> arguments;
    for (size_t i = 0; i < explicitArguments.size(); ++i)
      arguments.push_back(describeArgument(*explicitArguments[i], i));
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": its code object takes ", explicitBytes, " bytes of arguments [",
                     absl::StrJoin(arguments, "; "), "] but the runtime packs ", packedBytes,
                     " bytes (", slots.size(), " slots) for its signature"));
  }
  if (kernel.kernargSegmentSize < packedBytes)
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": its kernarg segment is ", kernel.kernargSegmentSize,
                     " bytes, less than the ", packedBytes, " bytes the runtime packs"));
  return absl::OkStatus();
}

absl::Status checkHipTargetFeatures(std::string_view codeObjectTarget,
                                    std::string_view deviceArchName) {
  const std::string_view processor =
      codeObjectTarget.substr(std::min(codeObjectTarget.size(), codeObjectTarget.rfind("--") + 2));
  for (absl::string_view feature : absl::StrSplit(asAbsl(processor), ':', absl::SkipEmpty())) {
    if (feature.empty() || (feature.back() != '+' && feature.back() != '-')) continue;
    const absl::string_view name = feature.substr(0, feature.size() - 1);
    const std::string other = absl::StrCat(":", name, feature.back() == '+' ? "-" : "+");
    if (absl::StrContains(asAbsl(deviceArchName), other))
      return absl::InvalidArgumentError(absl::StrCat(
          "the code object is for ", asAbsl(codeObjectTarget), " (", name, " ",
          feature.back() == '+' ? "on" : "off", ") but the device is ", asAbsl(deviceArchName),
          "; compile for ", asAbsl(deviceArchName.substr(0, deviceArchName.find(':'))),
          " without the feature, or with its setting"));
  }
  return absl::OkStatus();
}

absl::StatusOr<AmdKernelDescriptor> checkHipCodeObject(const KernelMetadata& metadata,
                                                       std::string_view codeObject,
                                                       std::string_view deviceArchName) {
  absl::StatusOr<AmdCodeObject> object = readAmdCodeObject(codeObject);
  if (!object.ok())
    return absl::InvalidArgumentError(
        absl::StrCat("kernel '", metadata.templateName, "': ", object.status().message()));
  const std::string processor = processorOf(object->target);
  if (processor != metadata.target)
    return absl::InvalidArgumentError(
        absl::StrCat("kernel '", metadata.templateName, "': its code object is for ",
                     object->target, " but its metadata says target ", metadata.target));
  if (!deviceArchName.empty()) {
    absl::Status features = checkHipTargetFeatures(object->target, deviceArchName);
    if (!features.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("kernel '", metadata.templateName, "': ", features.message()));
  }
  std::vector<std::string> names;
  for (const AmdKernelDescriptor& kernel : object->kernels) {
    if (kernel.name != metadata.entry) {
      names.push_back(kernel.name);
      continue;
    }
    TJ_RETURN_IF_ERROR(checkHipKernelArguments(metadata, kernel));
    if (metadata.threadsPerProgram > kernel.maxFlatWorkgroupSize)
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", kernel.name, "' (template '", metadata.templateName, "') runs ",
          metadata.threadsPerProgram, " threads per program; its code object allows at most ",
          kernel.maxFlatWorkgroupSize));
    return kernel;
  }
  return absl::NotFoundError(absl::StrCat("kernel '", metadata.templateName, "': its code object (",
                                          object->target, ") has no kernel '", metadata.entry,
                                          "'; it has [", absl::StrJoin(names, ", "), "]"));
}

}  // namespace tilejit
