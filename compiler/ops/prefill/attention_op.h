// The op of one varlen attention kernel (prefill, extend): the kernel's own arguments, launched
// as they are, after the checks its signature cannot state: the q heads are gqa_ratio times the
// kv heads, cu_seqlens_q holds at least the first start, and a per-sequence array (extend's
// seq_lens) has one element per sequence of cu_seqlens_q.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/ops/op.h"

namespace tilejit::ops {

struct AttentionOpShape {
  std::string kernel;       // the template, also the op's name
  std::string kvArgument;   // the argument whose dim `kvHeadDim` counts the kv heads
  int kvHeadDim = 0;
  std::string startsArgument;  // an int32 [num_seqs + 1] array of starts (cu_seqlens_q)
  std::string perSequenceArgument;  // empty, or an array of num_seqs elements
};

// The parameters both ops share: dtype, head sizes, GQA, masks, tiles (tiles unset: tuning).
std::vector<OpParameter> attentionParameters();

absl::StatusOr<std::unique_ptr<Op>> createAttentionOp(JitCompiler& jit, Device& device,
                                                      const AttentionOpShape& shape,
                                                      const OpConfig& config);

}  // namespace tilejit::ops
