#ifndef TILEJIT_TJ_TYPES
#define TILEJIT_TJ_TYPES

include "TjBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Tj_DTypeParam : Tj_Type<"DTypeParam", "dtype",
    [DeclareTypeInterfaceMethods<FloatTypeInterface, ["getFloatSemantics"]>]> {
  let summary = "float element type bound by a `type` parameter at specialization";
  let description = [{
    `!tj.dtype<"dtype">` stands for the value of parameter `@dtype` (f16 or bf16). It is a
    float type of width 16, so `arith.extf`/`truncf` on it verify before specialization.
  }];
  let parameters = (ins StringRefParameter<"parameter name">:$param);
  let assemblyFormat = "`<` $param `>`";
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
    lists the extents in the standard order [blocks, block_size, kv_heads, head_size]. `layout`
    is "standard", "shuffled" (CONTEXT.md section 5: K as [blocks, heads, head/X, block, X],
    V as [blocks, heads, block/X, head, X], X = 16 bytes / element) or the name of a string
    parameter that selects one of those.
  }];
  let parameters = (ins "::mlir::StringAttr":$role, "::mlir::ArrayAttr":$dims,
                        "::mlir::Type":$elementType, "::mlir::StringAttr":$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isKey() const { return getRole().getValue() == "k"; }
    bool isShuffled() const { return getLayout().getValue() == "shuffled"; }
    bool isLayoutBound() const {
      return getLayout().getValue() == "standard" || isShuffled();
    }
  }];
}

#endif
