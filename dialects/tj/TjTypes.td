#ifndef TILEJIT_TJ_TYPES
#define TILEJIT_TJ_TYPES

include "TjBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "TjAttrs.td"

def Tj_DTypeParam : Tj_Type<"DTypeParam", "dtype",
    [DeclareTypeInterfaceMethods<FloatTypeInterface, ["getFloatSemantics"]>]> {
  let summary = "float element type bound by a `type` parameter at specialization";
  let description = [{
    `!tj.dtype<"dtype">` stands for the value of parameter `@dtype`, a float type of 16 bits
    (f16 or bf16); `!tj.dtype<"kv_dtype", 8>` for one of 8 bits (f8E4M3FN, f8E5M2) and
    `!tj.dtype<"p", 32>` for f32. Every value in the parameter's domain must have that width
    (tj.template checks it), so `arith.extf`/`truncf` on it verify before specialization.
    (Storage types.) `!tj.dtype<"kv_dtype", 0>` may be bound to any float of 8 or 16 bits of
    its domain (a cache of bf16 or of fp8): until bound it reads as 8 bits, so it only widens
    (`arith.extf` to f32; truncf(extf(x)) to x's own type folds away after binding).
  }];
  let parameters = (ins StringRefParameter<"parameter name">:$param,
                        DefaultValuedParameter<"unsigned", "16">:$width);
  let assemblyFormat = "`<` $param (`,` $width^)? `>`";
  let genVerifyDecl = 1;
}

def Tj_ViewType : Tj_Type<"View", "view"> {
  let summary = "a view of global memory";
  let description = [{
    `!tj.view<[num_tokens, num_heads, head_size], bf16>`: row-major, innermost extent last.
    Each extent is an integer, the name of an integer parameter (bound at specialization) or
    a shape symbol (bound at launch from the argument's shape; every use of one symbol must
    agree). Strides come from the argument; the innermost one must be 1.
  }];
  let parameters = (ins "::mlir::ArrayAttr":$dims, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getDims().size(); }
  }];
}

def Tj_KvCacheType : Tj_Type<"KvCache", "kv_cache"> {
  let summary = "a paged K or V cache whose memory layout is a parameter";
  let description = [{
    `!tj.kv_cache<k, [num_blocks, block_size, num_kv_heads, head_size], bf16, layout = kv_layout>`
    lists the extents of a cache of rank >= 2: [blocks, block_size, ...], the token's values
    after the first two axes. K and V caches (roles `k`, `v`) are usually
    [blocks, block_size, kv_heads, head_size]; a `latent` cache (MLA:
    `[num_blocks, block_size, 576]`) is read as both K and V. `layout` is "standard",
    "shuffled" (rank 4 K or V only; CONTEXT.md section 5: K as [blocks, heads, head/X, block, X],
    V as [blocks, heads, block/X, head, X], X = 16 bytes / element) or the name of a string
    parameter that selects one of those. A cache of 8-bit elements (f8E4M3FN, f8E5M2, i8 or an
    8-bit `!tj.dtype`) may say how it is scaled: `, scale = per_tensor`, `per_head` or
    `per_token_group<128>` (`#tj.kv_scale`).
  }];
  let parameters = (ins "::mlir::StringAttr":$role, "::mlir::ArrayAttr":$dims,
                        "::mlir::Type":$elementType, "::mlir::StringAttr":$layout,
                        OptionalParameter<"KvScaleAttr">:$scale);
  let builders = [
    TypeBuilder<(ins "::mlir::StringAttr":$role, "::mlir::ArrayAttr":$dims,
                     "::mlir::Type":$elementType, "::mlir::StringAttr":$layout), [{
      return $_get($_ctxt, role, dims, elementType, layout, KvScaleAttr());
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getDims().size(); }
    bool isKey() const { return getRole().getValue() == "k"; }
    bool isLatent() const { return getRole().getValue() == "latent"; }
    bool isShuffled() const { return getLayout().getValue() == "shuffled"; }
    bool isLayoutBound() const {
      return getLayout().getValue() == "standard" || isShuffled();
    }
    // [blocks, block_size, kv_heads, head_size]: the shape the paged ops read and write.
    bool hasHeadAxis() const { return getRank() == 4; }
  }];
}

#endif
