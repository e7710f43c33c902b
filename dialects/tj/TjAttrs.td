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

def Tj_MmaEncodingAttr : Tj_Encoding<"MmaEncoding", "mma"> {
  let summary = "the accumulator fragments of a tensor-core dot";
  let description = [{
    `tensor<16x32xf32, #tj.mma>`: an [M, N] tile (M a multiple of 16, N of 8) held as the
    m16n8 accumulator fragments of mma.sync, the 16x8 units spread over the program's warps
    as the dot computes them. Any element type (the fragments of a cast or compare of an
    accumulator sit in the same places).
  }];
}

def Tj_MmaRowsEncodingAttr : Tj_Encoding<"MmaRowsEncoding", "mma_rows"> {
  let summary = "one value per row of an mma tile, where that row's fragments are";
  let description = [{
    `tensor<16xf32, #tj.mma_rows>` or `tensor<16x1xf32, #tj.mma_rows>`: the result of reducing
    an `#tj.mma` tile along its last axis, held by every thread that holds fragments of the
    row (replicated over warps), so broadcasting it back over the row costs nothing.
  }];
}

#endif
