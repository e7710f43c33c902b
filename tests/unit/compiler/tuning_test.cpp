// The embedded tuning files, tested like code: every row is a legal specialization of the
// template it tunes, every named shape picks the row its file says, malformed files are
// refused with the file, row and field, and a template's cache key covers its own rows only.
#include "compiler/tuning/tuning_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "compiler/embedded_files.h"
#include "compiler/jit_compiler.h"
#include "compiler/specialize/specializer.h"
#include "mlir/IR/MLIRContext.h"

namespace tilejit {
namespace {

using ::testing::HasSubstr;

// Specializes a shipped template with `values` on a target (no toolchain involved).
class Specializations {
 public:
  absl::StatusOr<mlir::ModuleOp> parsed(const std::string& name) {
    auto it = parsed_.find(name);
    if (it == parsed_.end()) {
      auto text = shippedTemplate(name);
      if (!text.ok()) return text.status();
      auto module = parseTemplate(context_, *text, name);
      if (!module.ok()) return module.status();
      it = parsed_.emplace(name, *std::move(module)).first;
    }
    return *it->second;
  }
  absl::Status specialize(const std::string& name, const TargetDescription& target,
                          const std::map<std::string, std::string>& values) {
    auto module = parsed(name);
    if (!module.ok()) return module.status();
    return specializeTemplate(*module, target, ParameterMap(values.begin(), values.end())).status();
  }
  mlir::tj::ParamOp param(const std::string& templateName, const std::string& name) {
    auto module = parsed(templateName);
    auto templ = module.ok() ? findTemplate(*module) : module.status();
    return templ.ok() ? templ->lookupParam(name) : mlir::tj::ParamOp();
  }

 private:
  mlir::MLIRContext context_{mlir::MLIRContext::Threading::DISABLED};
  std::map<std::string, mlir::OwningOpRef<mlir::ModuleOp>> parsed_;
};

std::map<std::string, std::string> asText(const std::map<std::string, int64_t>& values) {
  std::map<std::string, std::string> text;
  for (const auto& [name, value] : values) text[name] = std::to_string(value);
  return text;
}

std::vector<std::string> embeddedTuningTargetNames() {
  std::vector<std::string> names;
  for (std::string_view target : embeddedTuningTargets()) names.emplace_back(target);
  return names;
}

TEST(TuningFiles, EveryTargetHasOneFile) {
  std::set<std::string> covered;
  for (std::string_view name : embeddedTuningTargets()) {
    const TargetTuning* tuning = embeddedTargetTuning(name);
    ASSERT_NE(tuning, nullptr) << name;
    EXPECT_TRUE(covered.insert(tuning->target).second) << "two files for " << tuning->target;
  }
  for (const TargetDescription& target : allTargets())
    EXPECT_TRUE(covered.count(target.name)) << "no tuning file for " << target.name;
}

// One embedded tuning file (the parameter: its target), checked.
class TuningFileTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const TargetTuning* embedded = embeddedTargetTuning(GetParam());
    ASSERT_NE(embedded, nullptr) << GetParam();
    tuning_ = *embedded;
    auto target = lookupTarget(tuning_.target);
    ASSERT_TRUE(target.ok()) << GetParam() << ": " << target.status();
    target_ = *target;
  }
  TargetTuning tuning_;
  const TargetDescription* target_ = nullptr;
  Specializations specializations_;
};

TEST_P(TuningFileTest, IsNamedForItsTargetAndSaysWhereItsValuesComeFrom) {
  EXPECT_EQ(std::filesystem::path(tuning_.source).stem().string(), tuning_.target);
  EXPECT_FALSE(tuning_.provenance.empty());
}

TEST_P(TuningFileTest, EveryTemplateRowIsALegalSpecialization) {
  for (const auto& [name, rows] : tuning_.templates) {
    SCOPED_TRACE(absl::StrCat("template ", name));
    std::map<std::string, std::string> defaults;
    for (const auto& [param, value] : rows.defaults) {
      EXPECT_FALSE(value.evidence.empty()) << param;
      defaults[param] = std::to_string(value.value);
    }
    absl::Status status = specializations_.specialize(name, *target_, defaults);
    EXPECT_TRUE(status.ok()) << "defaults: " << status;
    for (const ConditionalTuning& row : rows.conditional) {
      std::map<std::string, std::string> values = defaults;
      for (const auto& [param, value] : row.when) values[param] = value;
      for (const auto& [param, value] : asText(row.set)) values[param] = value;
      status = specializations_.specialize(name, *target_, values);
      EXPECT_TRUE(status.ok()) << "conditional row " << row.name << ": " << status;
      EXPECT_FALSE(row.evidence.empty()) << row.name;
    }
  }
}

// The parameters PagedDecode gives its two kernels for a row at the corner of its class
// (its largest grid and context): the row's tiling, the cluster merge where the context
// splits into 2..maxClusterPrograms partitions, else the merge kernel's step and heads.
TEST_P(TuningFileTest, EveryDecodeTilingRowIsALegalDecodeAndMerge) {
  mlir::tj::ParamOp headParam = specializations_.param("paged_decode", "head_size");
  ASSERT_TRUE(headParam);
  const TargetDescription& target = *target_;
  for (const DecodeTiling& row : tuning_.decodeTilings) {
    EXPECT_FALSE(row.evidence.empty()) << row.name;
    int64_t partitions = row.maxContext == kNoTilingLimit
                             ? 0
                             : (row.maxContext + row.partitionSize - 1) / row.partitionSize;
    bool cluster = row.clusterMerge && partitions >= 2 && partitions <= target.maxClusterPrograms;
    EXPECT_TRUE(!row.clusterMerge || cluster) << row.name << ": no cluster fits its context";
    for (int64_t head = 1; head <= row.maxHeadSize; ++head) {
      if (!headParam.admits(mlir::IntegerAttr::get(
              mlir::IntegerType::get(headParam.getContext(), 64), head)))
        continue;
      SCOPED_TRACE(absl::StrCat("row ", row.name, ", head ", head));
      std::map<std::string, std::string> decode = {
          {"head_size", std::to_string(head)},
          {"partition_size", std::to_string(row.partitionSize)},
          {"block_n", std::to_string(row.blockN)},
          {"prefetch_depth", std::to_string(row.prefetchDepth)}};
      if (row.numWarps > 0) decode["num_warps"] = std::to_string(row.numWarps);
      if (cluster) decode["cluster_size"] = std::to_string(partitions);
      absl::Status status = specializations_.specialize("paged_decode", target, decode);
      EXPECT_TRUE(status.ok()) << status;
      if (cluster) continue;
      int64_t widest = tunedValue(target, "paged_decode_reduce.partitions_per_step").value_or(1);
      int64_t step = 1;
      while (step < widest && (partitions == 0 || step < partitions)) step *= 2;
      std::map<std::string, std::string> merge = {
          {"head_size", std::to_string(head)},
          {"partition_size", std::to_string(row.partitionSize)},
          {"partitions_per_step", std::to_string(step)}};
      if (auto heads = mergeHeadsPerProgram(target, row.maxPrograms, step))
        merge["heads_per_program"] = std::to_string(*heads);
      status = specializations_.specialize("paged_decode_reduce", target, merge);
      EXPECT_TRUE(status.ok()) << "merge: " << status;
    }
  }
}

TEST_P(TuningFileTest, NamedShapesPickTheirRows) {
  if (!tuning_.decodeTilings.empty()) EXPECT_FALSE(tuning_.decodeTilingChecks.empty());
  // Every row is picked at its own corner: none is shadowed by the rows before it.
  for (const DecodeTiling& row : tuning_.decodeTilings) {
    auto tiling = chooseDecodeTiling(*target_, row.maxPrograms, row.maxContext, row.maxHeadSize);
    ASSERT_TRUE(tiling.has_value()) << row.name;
    EXPECT_EQ(tiling->name, row.name) << "shadowed by " << tiling->name;
  }
  for (const DecodeTilingCheck& check : tuning_.decodeTilingChecks) {
    SCOPED_TRACE(absl::StrCat(check.numSeqs, " seqs x ", check.numKvHeads,
                              " kv heads, max_model_len ", check.maxModelLen, ", head ",
                              check.headSize));
    auto tiling = chooseDecodeTiling(*target_, check.numSeqs * check.numKvHeads,
                                     check.maxModelLen, check.headSize);
    EXPECT_EQ(tiling ? std::optional<std::string>(tiling->name) : std::nullopt, check.picks);
  }
}

INSTANTIATE_TEST_SUITE_P(Embedded, TuningFileTest,
                         ::testing::ValuesIn(embeddedTuningTargetNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

constexpr char kValidFile[] = R"({
  "target": "sm_90", "measured": false, "provenance": "test",
  "templates": {"paged_decode": {
    "defaults": {"block_n": {"value": 32, "evidence": "e"}},
    "conditional": [{"name": "c", "when": {"kv_layout": "shuffled"},
                     "set": {"min_blocks_per_sm": 0}, "evidence": "e"}]}},
  "ops": {"paged_decode": {
    "tilings": [
      {"name": "a", "max_programs": 8, "max_context": null, "max_head_size": 128,
       "partition_size": 512, "block_n": 64, "prefetch_depth": 1, "cluster_merge": false,
       "num_warps": 0, "evidence": "e"}],
    "merge": {"large_merge_pairs": {"value": 2048, "evidence": "e"}},
    "checks": [{"shape": {"num_seqs": 1, "num_kv_heads": 8, "max_model_len": 99,
                          "head_size": 128}, "picks": "a"}]}}
})";

// kValidFile with `from` replaced by `to` once.
std::string malformed(const std::string& from, const std::string& to) {
  std::string text = kValidFile;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(TuningLoader, ReadsAWellFormedFile) {
  auto tuning = parseTuningFile("test.json", kValidFile);
  ASSERT_TRUE(tuning.ok()) << tuning.status();
  ASSERT_EQ(tuning->decodeTilings.size(), 1u);
  EXPECT_EQ(tuning->decodeTilings[0].maxContext, kNoTilingLimit);
  EXPECT_EQ(tuning->templates.at("paged_decode").conditional[0].when.at("kv_layout"), "shuffled");
  EXPECT_EQ(tuning->decodeMerge.largeMergePairs->value, 2048);
  EXPECT_FALSE(tuning->decodeMerge.largeMergeTiles.has_value());
}

TEST(TuningLoader, NamesTheFileRowAndFieldOfWhatIsWrong) {
  struct Case {
    std::string from, to, message;
  };
  for (const Case& c : std::vector<Case>{
           {"\"block_n\": 64", "\"blockn\": 64",
            "test.json.ops.paged_decode.tilings[0] (a): unknown field 'blockn'; fields: name, "},
           {"\"block_n\": 64", "\"block_n\": \"64\"",
            "test.json.ops.paged_decode.tilings[0] (a).block_n: expected an integer, found string"},
           {"\"cluster_merge\": false", "\"cluster_merge\": 0",
            "tilings[0] (a).cluster_merge: expected true or false, found number"},
           {"\"num_warps\": 0, ", "", "tilings[0] (a): missing field 'num_warps'"},
           {"\"evidence\": \"e\"}],\n    \"merge\"",
            "\"evidence\": \"e\"}, {\"name\": \"a\"}],\n    \"merge\"",
            "test.json.ops.paged_decode.tilings[1] (a): duplicate row name 'a'"},
           {"{\"value\": 32, \"evidence\": \"e\"}", "{\"value\": 32}",
            "test.json.templates.paged_decode.defaults.block_n: missing field 'evidence'"},
           {"\"min_blocks_per_sm\": 0", "\"min_blocks_per_sm\": 0.5",
            "conditional[0] (c).set.min_blocks_per_sm: expected an integer, found number"},
           {"\"large_merge_pairs\"", "\"large_merges\"",
            "test.json.ops.paged_decode.merge: unknown field 'large_merges'"},
           {"\"picks\": \"a\"", "\"picks\": \"b\"", "checks[0].picks: names no tiling row: 'b'"},
           {"\"measured\": false", "\"measured\": \"no\"",
            "test.json.measured: expected true or false"},
           {"\"target\"", "\"targets\"", "test.json: unknown field 'targets'"},
           {"\"provenance\": \"test\",", "\"provenance\": \"test\",,", "test.json: not valid JSON"},
       }) {
    auto tuning = parseTuningFile("test.json", malformed(c.from, c.to));
    ASSERT_FALSE(tuning.ok()) << c.to;
    EXPECT_THAT(std::string(tuning.status().message()), HasSubstr(c.message));
  }
}

std::string keyOf(const std::string& name, const std::string& target) {
  auto jit = JitCompiler::create({.useDiskCache = false});
  EXPECT_TRUE(jit.ok()) << jit.status();
  auto spec = KernelSpec::shipped(name, target);
  EXPECT_TRUE(spec.ok()) << spec.status();
  auto key = (*jit)->cacheKey(*spec);
  EXPECT_TRUE(key.ok()) << key.status();
  return key.ok() ? *key : "";
}

TEST(TuningKeys, ATemplatesKeyCoversItsOwnRowsOnly) {
  const TargetDescription& h200 = **lookupTarget("sm_90");
  const std::string decode = keyOf("paged_decode", "sm_90");
  const std::string merge = keyOf("merge_attn_states", "sm_90");
  const std::string reduce = keyOf("paged_decode_reduce", "sm_90");
  auto retuned = [&](auto edit) {
    TargetTuning tuning = tuningFor(h200);
    edit(tuning);
    ScopedTuningOverride scoped(std::move(tuning));
    return std::make_tuple(keyOf("paged_decode", "sm_90"), keyOf("merge_attn_states", "sm_90"),
                           keyOf("paged_decode_reduce", "sm_90"));
  };
  // A default of paged_decode, then one of its conditional rows.
  for (auto keys : {retuned([](TargetTuning& t) {
                      t.templates["paged_decode"].defaults["block_n"].value = 64;
                    }),
                    retuned([](TargetTuning& t) {
                      t.templates["paged_decode"].conditional.at(0).set["min_blocks_per_sm"] = 2;
                    })}) {
    EXPECT_NE(std::get<0>(keys), decode);
    EXPECT_EQ(std::get<1>(keys), merge);
    EXPECT_EQ(std::get<2>(keys), reduce);
  }
  // The decode tilings and merge rules reach the kernels as given parameters, not through keys.
  auto keys = retuned([](TargetTuning& t) {
    t.decodeTilings.at(0).blockN = 32;
    t.decodeMerge.largeMergeTiles->value = 16;
  });
  EXPECT_EQ(std::get<0>(keys), decode);
  EXPECT_EQ(std::get<2>(keys), reduce);
  // Evidence is not part of any key.
  keys = retuned([](TargetTuning& t) {
    t.templates["paged_decode"].defaults["block_n"].evidence = "x";
  });
  EXPECT_EQ(std::get<0>(keys), decode);
  EXPECT_EQ(keyOf("paged_decode", "sm_90"), decode);  // the override ended with its scope
}

}  // namespace
}  // namespace tilejit
