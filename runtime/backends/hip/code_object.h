// Reads an AMDGPU code object (an ELF64 shared object, e_machine EM_AMDGPU) without LLVM or
// comgr: the NT_AMDGPU_METADATA note's MessagePack map, as AMDGPUUsage documents it for code
// object v4, v5 and v6. Used to check the kernel argument layout the runtime packs and to
// report resources (registers, LDS, scratch, spills) of a compiled kernel.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tilejit {

struct AmdKernelArgument {
  std::string name;  // empty where the compiler left it out (hidden arguments)
  int64_t offset = 0, size = 0;
  std::string valueKind;  // "by_value", "global_buffer", "hidden_block_count_x", ...
};

struct AmdKernelDescriptor {
  std::string name, symbol;  // "tj_paged_decode", "tj_paged_decode.kd"
  int64_t kernargSegmentSize = 0, kernargSegmentAlign = 0, groupSegmentFixedSize = 0 /*LDS*/,
          privateSegmentFixedSize = 0 /*scratch per lane*/, sgprCount = 0, vgprCount = 0,
          agprCount = 0, sgprSpillCount = 0, vgprSpillCount = 0, wavefrontSize = 0,
          maxFlatWorkgroupSize = 0;
  std::vector<AmdKernelArgument> arguments;
};

struct AmdCodeObject {
  std::string target;             // "amdgcn-amd-amdhsa--gfx942"
  int64_t codeObjectVersion = 0;  // 4, 5 or 6 (from the ELF header's EI_ABIVERSION 2, 3, 4)
  std::vector<AmdKernelDescriptor> kernels;
};

// Errors start with "AMDGPU code object: " and name what is malformed (the ELF header, a
// section or note out of bounds, the MessagePack byte at some offset, a missing or mistyped
// metadata field and its kernel). Never reads outside `elf`.
absl::StatusOr<AmdCodeObject> readAmdCodeObject(std::string_view elf);

}  // namespace tilejit
