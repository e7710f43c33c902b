#ifndef TILEJIT_TJ_ATTRS
#define TILEJIT_TJ_ATTRS

include "TjBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/TensorEncoding.td"

// Tile layouts. A tile without an encoding has the device library's canonical distribution
// (a function of its element count only). The encodings below name the distributions of a
// tensor-core dot's accumulator; tj-assign-mma-layouts puts them on tile types (GPU targets)
// so that the values around a dot stay in the registers the dot uses.
class Tj_Encoding<string name, string attrMnemonic>
    : AttrDef<Tj_Dialect, name, [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = attrMnemonic;
}

// Which lane and which element of its fragment hold each element of one operand tile of a
// matrix instruction, as linear bases (Triton's LinearLayout, restricted to one wave): bit b of
// the element index within a lane's fragment adds `reg[b]` = (row, col) to the element's
// coordinates, bit b of the lane id adds `lane[b]`; the contributions combine by XOR (every
// basis here is one power of two, so XOR is a sum). A zero basis declares replication: the
// lanes (or elements) that differ in that bit hold the same element.
def Tj_FragmentLayoutAttr : AttrDef<Tj_Dialect, "FragmentLayout"> {
  let mnemonic = "fragment";
  let summary = "lane and register ownership of a matrix instruction operand, as linear bases";
  let description = [{
    `#tj.fragment<reg = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]>`
    is mma.sync m16n8k16's accumulator: lane l, element r hold C[row, col] with
    row = 8 * (r / 2) + l / 4, col = 2 * (l % 4) + r % 2.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t", "(row, col) pairs">:$registerBases,
                        ArrayRefParameter<"int64_t", "(row, col) pairs">:$laneBases);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    int64_t getRegisterBits() const { return getRegisterBases().size() / 2; }
    int64_t getLaneBits() const { return getLaneBases().size() / 2; }
    // The (row, col) lane `lane`'s element `element` holds.
    std::array<int64_t, 2> elementAt(int64_t lane, int64_t element) const;
    // Why the bases do not cover a rows x cols tile exactly once (up to the replication their
    // zero bases declare), or an empty string when they do.
    std::string coverageProblem(int64_t rows, int64_t cols) const;
  }];
}

def Tj_MatrixInstrAttr : AttrDef<Tj_Dialect, "MatrixInstr"> {
  let mnemonic = "matrix_instr";
  let summary = "a matrix instruction: its M x N x K, the lanes of its wave and who holds what";
  let description = [{
    `#tj.matrix_instr<"mma.sync.m16n8k16", m = 16, n = 8, k = 16, lanes = 32, a = <...>,
    b = <...>, acc = <...>>`: one instruction computes C[M, N] += A[M, K] B[K, N] over `lanes`
    lanes (a warp, a wave64, a wave32, a warpgroup of 128); `a`, `b` and `acc` are
    `#tj.fragment`s of the A [M, K], B [K, N] and C [M, N] tiles. `a` or `b` may be left out
    where the instruction reads that operand from shared memory (wgmma's B). The target
    descriptions (compiler/targets) hold every instruction tilejit knows.
  }];
  let parameters = (ins StringRefParameter<"instruction name">:$name, "int64_t":$m,
                        "int64_t":$n, "int64_t":$k, "int64_t":$lanes,
                        OptionalParameter<"FragmentLayoutAttr">:$a,
                        OptionalParameter<"FragmentLayoutAttr">:$b,
                        "FragmentLayoutAttr":$acc);
  let assemblyFormat = "`<` $name `,` struct($m, $n, $k, $lanes, $a, $b, $acc) `>`";
  let genVerifyDecl = 1;
}

def Tj_MmaEncodingAttr : Tj_Encoding<"MmaEncoding", "mma"> {
  let summary = "the accumulator fragments of a tensor-core dot";
  let description = [{
    `tensor<16x32xf32, #tj.mma<#tj.matrix_instr<"mma.sync.m16n8k16", ...>>>`: an [M, N] tile
    (M a multiple of the instruction's M, N of its N) held as the instruction's accumulator
    fragments, the M x N units spread over the program's warps as the dot computes them. Any
    element type (the fragments of a cast or compare of an accumulator sit in the same places).
    A bare `#tj.mma` names no instruction: it is what an author might write, and the
    specializer rejects authored layouts; the compiler always names the instruction.
  }];
  let parameters = (ins OptionalParameter<"MatrixInstrAttr">:$instr);
  let assemblyFormat = "(`<` $instr^ `>`)?";
}

def Tj_MmaRowsEncodingAttr : Tj_Encoding<"MmaRowsEncoding", "mma_rows"> {
  let summary = "one value per row of an mma tile, where that row's fragments are";
  let description = [{
    `tensor<16xf32, #tj.mma_rows<#instr>>` or `tensor<16x1xf32, #tj.mma_rows<#instr>>`: the
    result of reducing an `#tj.mma<#instr>` tile along its last axis, held by every thread that
    holds fragments of the row (replicated over warps), so broadcasting it back over the row
    costs nothing.
  }];
  let parameters = (ins OptionalParameter<"MatrixInstrAttr">:$instr);
  let assemblyFormat = "(`<` $instr^ `>`)?";
}

// How an 8-bit cache's values are scaled back to real numbers (value = code * scale). The
// scales are not in the type: a per-tensor scale is an f32 kernel argument, the others an f32
// view beside the cache (its strides come from the argument, so scales packed into the
// cache's own blocks, as DeepSeek's indexer K cache keeps them, are a view too).
def Tj_KvScaleAttr : AttrDef<Tj_Dialect, "KvScale"> {
  let mnemonic = "kv_scale";
  let summary = "the scale granularity of an 8-bit cache";
  let description = [{
    `per_tensor` (one f32 for the whole cache), `per_head` (one per kv head: the cache needs a
    head axis) or `per_token_group<G>` (one per token and G consecutive elements of the last
    axis, e.g. `per_token_group<128>` for the DSA indexer's fp8 K cache).
  }];
  let parameters = (ins StringRefParameter<"granularity">:$granularity,
                        DefaultValuedParameter<"int64_t", "0">:$group);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isPerTokenGroup() const { return getGranularity() == "per_token_group"; }
  }];
}

#endif
