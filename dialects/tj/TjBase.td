#ifndef TILEJIT_TJ_BASE
#define TILEJIT_TJ_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tj_Dialect : Dialect {
  let name = "tj";
  let cppNamespace = "::mlir::tj";
  let summary = "Tile-level templates of attention kernels";
  let description = [{
    A `tj.template` holds the parameters of a kernel family (with their domains and the
    constraints between them), its launch contract and one `tj.kernel` that describes what
    one program (thread block / work group) does, on tiles. Tiles are builtin tensors;
    elementwise math is `arith`/`math` on tensors, control flow is `scf`.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::math::MathDialect"];
}

class Tj_Op<string mnemonic, list<Trait> traits = []> : Op<Tj_Dialect, mnemonic, traits>;
class Tj_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tj_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tj_ParamKind : I32EnumAttr<"ParamKind", "kind of a template parameter", [
    I32EnumAttrCase<"Int", 0, "int">,
    I32EnumAttrCase<"Type", 1, "type">,
    I32EnumAttrCase<"String", 2, "string">]> {
  let cppNamespace = "::mlir::tj";
}

def Tj_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">]> {
  let cppNamespace = "::mlir::tj";
}

#endif
