#include "compiler/targets/target_description.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tilejit {
namespace {

std::vector<TargetDescription> buildTargets() {
  const MatrixInstruction mmaF16{"mma.sync.m16n8k16", 16, 8, 16, "f16"};
  const MatrixInstruction mmaBF16{"mma.sync.m16n8k16", 16, 8, 16, "bf16"};
  const MatrixInstruction mfma16{"mfma_f32_16x16x16bf16_1k", 16, 16, 16, "bf16"};
  const MatrixInstruction mfma32{"mfma_f32_32x32x8bf16_1k", 32, 32, 8, "bf16"};
  const MatrixInstruction mfma16k32{"mfma_f32_16x16x32_bf16", 16, 16, 32, "bf16"};
  const MatrixInstruction wmma{"wmma_f32_16x16x16_bf16", 16, 16, 16, "bf16"};

  std::vector<TargetDescription> targets;
  targets.push_back({"sm_80", "A100", Vendor::kNvidia, "cuda", 32, 108, 1024, 163 * 1024,
                     65536, 255, {mmaF16, mmaBF16}});
  targets.push_back({"sm_90", "H100/H200", Vendor::kNvidia, "cuda", 32, 132, 1024, 227 * 1024,
                     65536, 255, {mmaF16, mmaBF16}});
  targets.back().maxClusterPrograms = 8;  // sm_90: 8 portable (16 with an opt-in)
  targets.push_back({"gfx90a", "MI210/MI250X", Vendor::kAmd, "hip", 64, 104, 1024, 64 * 1024,
                     131072, 512, {mfma16, mfma32}});
  targets.push_back({"gfx942", "MI300X/MI325X", Vendor::kAmd, "hip", 64, 304, 1024, 64 * 1024,
                     131072, 512, {mfma16, mfma32}});
  targets.push_back({"gfx950", "MI355X", Vendor::kAmd, "hip", 64, 256, 1024, 160 * 1024,
                     131072, 512, {mfma16k32, mfma16, mfma32}});
  targets.push_back({"gfx1100", "RX 7900 XTX (RDNA3)", Vendor::kAmd, "hip", 32, 96, 1024,
                     64 * 1024, 98304, 256, {wmma}});
  targets.push_back({"gfx1201", "RX 9070 XT (RDNA4)", Vendor::kAmd, "hip", 32, 64, 1024,
                     64 * 1024, 98304, 256, {wmma}});
  targets.push_back({"host", "CPU (one host thread per program)", Vendor::kHost, "cpu", 1,
                     static_cast<int64_t>(std::thread::hardware_concurrency()), 1024,
                     1 << 30, 0, 0, {}});
  return targets;
}

}  // namespace

const std::vector<TargetDescription>& allTargets() {
  static const std::vector<TargetDescription> targets = buildTargets();
  return targets;
}

absl::StatusOr<const TargetDescription*> lookupTarget(std::string_view name) {
  std::vector<std::string> names;
  for (const TargetDescription& target : allTargets()) {
    if (target.name == name) return &target;
    names.push_back(target.name);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown target '", std::string(name),
                                                 "'; known targets: ", absl::StrJoin(names, ", ")));
}

}  // namespace tilejit
