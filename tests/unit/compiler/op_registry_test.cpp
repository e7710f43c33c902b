// The op layer: the registry finds ops by name, configs are parsed once by the op's schema
// (errors name the parameter, the value and the legal set), every registered op passes its
// reference check on the CPU, and a mutated op (dropped launch, short workspace) fails it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/op.h"
#include "compiler/ops/paged_decode.h"
#include "support/status.h"
#include "tools/harness/op_reference.h"

namespace tilejit {
namespace {

using ::testing::HasSubstr;

std::string messageOf(const absl::Status& status) { return std::string(status.message()); }

const OpSchema& decodeSchema() {
  return OpRegistry::shipped().find("paged_decode")->schema;
}

TEST(OpRegistry, RegistersEveryOpFolder) {
  const OpRegistry& ops = OpRegistry::shipped();
  ASSERT_TRUE(ops.status().ok()) << ops.status();
  EXPECT_THAT(ops.names(), ::testing::ElementsAre("candidate_mask", "extend", "gather_indexer_k_quant_cache",
                                                  "indexer_k_quant_and_cache", "merge_attn_states",
                                                  "mla_decode", "paged_decode", "prefill",
                                                  "reshape_and_cache"));
  EXPECT_EQ(ops.findByKernel("paged_decode_reduce"), ops.find("paged_decode"));
  ASSERT_TRUE(OpReferenceRegistry::shipped().status().ok());
}

TEST(OpRegistry, UnknownOpListsTheOps) {
  auto op = OpRegistry::shipped().lookup("flash_decode");
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(messageOf(op.status()), HasSubstr("unknown op 'flash_decode'; the ops are: "
                                                "candidate_mask, extend, gather_indexer_k_quant_cache"));
}

TEST(OpSchema, UnknownParameterNamesIt) {
  auto config = decodeSchema().parse({"gqa=4"});
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(messageOf(config.status()),
              HasSubstr("unknown parameter 'gqa' for op 'paged_decode'; its parameters are: dtype"));
}

TEST(OpSchema, DuplicateParameterIsAnError) {
  auto config = decodeSchema().parse({"gqa_ratio=2", "gqa_ratio=2"});
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(messageOf(config.status()), HasSubstr("parameter 'gqa_ratio' is given twice"));
  EXPECT_FALSE(decodeSchema().parse({"gqa_ratio"}).ok());
}

TEST(OpSchema, BadValuesNameParameterValueAndLegalSet) {
  struct Bad {
    const char* assignment;
    const char* message;
  };
  for (Bad bad : {Bad{"gqa_ratio=abc", "parameter 'gqa_ratio': 'abc' is not an integer; legal values: an integer"},
                  Bad{"kv_layout=diagonal", "parameter 'kv_layout': 'diagonal' is not one of its values; legal values: standard, shuffled"},
                  Bad{"soft_cap=2", "parameter 'soft_cap': '2' is not a boolean; legal values: 0, 1, true, false"},
                  Bad{"dtype=f33", "parameter 'dtype': 'f33' is not an element type it takes"},
                  Bad{"num_seqs=-1", "parameter 'num_seqs': '-1' is too small; legal values: an integer >= 0"},
                  Bad{"merge_in_kernel=yes", "parameter 'merge_in_kernel': 'yes' is not a boolean"}}) {
    auto config = decodeSchema().parse({bad.assignment});
    ASSERT_FALSE(config.ok()) << bad.assignment;
    EXPECT_THAT(messageOf(config.status()), HasSubstr(bad.message));
  }
}

TEST(OpSchema, ValuesAreTypedWithDefaults) {
  auto config = decodeSchema().parse({"gqa_ratio=8", "soft_cap=true", "kv_layout=shuffled"},
                                     {{"head_size", 64}});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->integer("gqa_ratio"), 8);
  EXPECT_TRUE(config->find("gqa_ratio")->isInteger());
  EXPECT_TRUE(config->flag("soft_cap"));
  EXPECT_EQ(config->text("kv_layout"), "shuffled");
  EXPECT_EQ(config->integer("head_size"), 64);
  EXPECT_EQ(config->text("dtype"), "bf16");
  EXPECT_EQ(config->find("dtype")->kind(), ParameterValue::Kind::kType);
  EXPECT_FALSE(config->has("partition_size"));  // unset: the target's tuning
}

TEST(ParameterValue, TypedAndTextValuesMakeTheSameKey) {
  auto jit = JitCompiler::create();
  ASSERT_TRUE(jit.ok());
  auto typed = KernelSpec::shipped("merge_attn_states", "host", {{"head_size", 64}});
  auto text = KernelSpec::shipped("merge_attn_states", "host", {{"head_size", "64"}});
  ASSERT_TRUE(typed.ok() && text.ok());
  EXPECT_TRUE(typed->parameters.at("head_size").isInteger());
  EXPECT_EQ(*(*jit)->cacheKey(*typed), *(*jit)->cacheKey(*text));
  auto wrong = (*jit)->dumpStage(*KernelSpec::shipped("merge_attn_states", "host", {{"dtype", 16}}),
                                 Stage::kSpecialized);
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(messageOf(wrong.status()), HasSubstr("parameter 'dtype': '16' is not a type"));
}

struct CheckEnvironment {
  std::unique_ptr<Device> device = createCpuDevice();
  std::unique_ptr<JitCompiler> jit = *JitCompiler::create();

  absl::StatusOr<OpCheckReport> check(const OpDefinition& definition) {
    const OpReference* reference = OpReferenceRegistry::shipped().find(definition.name);
    if (!reference) return absl::NotFoundError("no reference for " + definition.name);
    TJ_ASSIGN_OR_RETURN(OpConfig config, definition.schema.parse({}, reference->defaults));
    OpCheckOptions options;
    options.iterations = 0;
    options.shape = {{"num_tokens", 40}, {"num_heads", 6}, {"num_kv_heads", 3},
                     {"num_blocks", 32}, {"num_seqs", 5}, {"context", 300}};
    return reference->check(*jit, *device, definition, config, options);
  }
};

TEST(OpReference, EveryRegisteredOpPassesOnTheCpu) {
  CheckEnvironment env;
  for (const std::string& name : OpRegistry::shipped().names()) {
    auto report = env.check(*OpRegistry::shipped().find(name));
    ASSERT_TRUE(report.ok()) << name << ": " << report.status();
    EXPECT_TRUE(report->check.passed) << name << ": " << report->check.detail;
  }
}

// The real op with its last launch dropped or its partial workspaces one partition short.
class MutantOp final : public Op {
 public:
  MutantOp(Device& device, std::unique_ptr<Op> real, bool dropLaunch, bool shortWorkspace)
      : real_(std::move(real)) {
    device_ = &device;
    name_ = real_->name();
    config_ = real_->config();
    arguments_ = real_->arguments();
    workspaces_ = real_->workspaces();
    launches_ = real_->launches();
    if (dropLaunch) launches_.pop_back();
    if (shortWorkspace)
      for (OpWorkspace& workspace : workspaces_) {
        if (workspace.name == "arrivals") continue;
        auto shape = workspace.shape;
        workspace.shape = [shape](const ProblemSizes& sizes) {
          std::vector<int64_t> extents = shape(sizes);
          extents[1] = std::max<int64_t>(1, extents[1] - 1);
          return extents;
        };
      }
  }

 private:
  std::unique_ptr<Op> real_;
};

OpDefinition mutantOf(const OpDefinition& real, bool dropLaunch, bool shortWorkspace) {
  OpDefinition mutant = real;
  mutant.create = [real, dropLaunch, shortWorkspace](JitCompiler& jit, Device& device,
                                                     const OpConfig& config)
      -> absl::StatusOr<std::unique_ptr<Op>> {
    TJ_ASSIGN_OR_RETURN(std::unique_ptr<Op> op, real.create(jit, device, config));
    return std::unique_ptr<Op>(
        std::make_unique<MutantOp>(device, std::move(op), dropLaunch, shortWorkspace));
  };
  return mutant;
}

TEST(OpReference, CatchesMutatedOps) {
  CheckEnvironment env;
  const OpDefinition& decode = *OpRegistry::shipped().find("paged_decode");
  auto good = env.check(mutantOf(decode, false, false));
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_TRUE(good->check.passed) << good->check.detail;
  for (bool drop : {true, false}) {
    auto report = env.check(mutantOf(decode, drop, !drop));
    EXPECT_FALSE(report.ok() && report->check.passed)
        << (drop ? "dropped merge launch" : "short workspace") << " passed";
  }
  const OpDefinition& merge = *OpRegistry::shipped().find("merge_attn_states");
  auto dropped = env.check(mutantOf(merge, true, false));
  EXPECT_FALSE(dropped.ok() && dropped->check.passed);
}

TEST(Op, WorkspacesAndArgumentsByName) {
  CheckEnvironment env;
  auto op = OpRegistry::shipped().create(*env.jit, *env.device, "paged_decode",
                                         {"gqa_ratio=4", "partition_size=64", "block_n=32"});
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ((*op)->argumentIndex("partial_out"), 1);
  EXPECT_EQ((*op)->arguments().back().name, "sliding_window");
  auto partial = (*op)->workspaceShape("partial_out", {{"num_seqs", 3}, {"num_kv_heads", 2},
                                                       {"max_model_len", 130}});
  ASSERT_TRUE(partial.ok()) << partial.status();
  EXPECT_EQ(partial->shape, (std::vector<int64_t>{3, 3, 8, 128}));
  EXPECT_EQ(partial->bytes(), 3 * 3 * 8 * 128 * 4);
  auto missing = (*op)->workspaceShape("partial_out", {{"num_seqs", 3}});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(messageOf(missing.status()), HasSubstr("needs the problem size 'num_kv_heads'"));
  EXPECT_FALSE((*op)->workspaceShape("scratch", {}).ok());
  EXPECT_FALSE((*op)->run({}).ok());  // argument count checked, nothing launched
}

}  // namespace
}  // namespace tilejit
