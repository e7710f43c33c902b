// The specializations both template suites (CPU in tilejit_compiler_tests, CUDA in
// tilejit_gpu_tests) run through the reference harness: every dtype, both cache layouts,
// block sizes including 1 and non-multiples of 16, partial head tiles.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tilejit::testing {

struct TemplateCase {
  std::string templateName;
  std::map<std::string, std::string> parameters;
  std::map<std::string, int64_t> shape;
};

inline std::vector<TemplateCase> templateCases() {
  std::vector<TemplateCase> cases;
  for (const char* dtype : {"bf16", "f16"})
    for (const char* headSize : {"64", "80", "128"})
      for (const char* heads : {"1", "8"})
        cases.push_back({"merge_attn_states",
                         {{"dtype", dtype}, {"head_size", headSize}, {"heads_per_program", heads}},
                         {{"num_tokens", 37}, {"num_heads", 12}}});
  for (const char* layout : {"standard", "shuffled"})
    for (const char* blockSize : {"1", "8", "16", "32", "256"}) {
      if (std::string(layout) == "shuffled" && std::string(blockSize) == "1") continue;
      for (const char* dtype : {"bf16", "f16"})
        cases.push_back({"reshape_and_cache",
                         {{"dtype", dtype}, {"kv_dtype", dtype}, {"block_size", blockSize},
                          {"kv_layout", layout}, {"head_size", "96"}, {"heads_per_tile", "4"}},
                         {{"num_tokens", 45}, {"num_kv_heads", 6}, {"num_blocks", 64}}});
    }
  // fp8 caches (standard layout): both formats, both scale kinds, 6 kv heads in tiles of 4
  // (the second tile's last two rows past the heads), block sizes 1 and 16.
  for (const char* kv : {"f8E4M3FN", "f8E5M2"})
    for (const char* scale : {"per_tensor", "per_head"})
      for (const char* blockSize : {"1", "16"})
        cases.push_back({"reshape_and_cache",
                         {{"dtype", "bf16"}, {"kv_dtype", kv}, {"kv_scale", scale},
                          {"block_size", blockSize}, {"head_size", "96"}, {"heads_per_tile", "4"}},
                         {{"num_tokens", 45}, {"num_kv_heads", 6}, {"num_blocks", 64},
                          {"num_kv_scales", 6}}});
  return cases;
}

inline std::string caseName(const TemplateCase& c) {
  std::string name = c.templateName;
  for (const auto& [key, value] : c.parameters) name += "_" + key + "_" + value;
  return name;
}

}  // namespace tilejit::testing
