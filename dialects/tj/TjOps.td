#ifndef TILEJIT_TJ_OPS
#define TILEJIT_TJ_OPS

include "TjBase.td"
include "TjTypes.td"
include "TjAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

def Tj_AnyView : AnyTypeOf<[Tj_ViewType, Tj_KvCacheType]>;
def Tj_Tile : RankedTensorOf<[AnyType]>;
// Tile extents: integers, or names of integer parameters (bound at specialization).
def Tj_TileShapeAttr : TypedArrayAttrBase<AnyAttr, "tile extents">;

//===----------------------------------------------------------------------===//
// Template structure
//===----------------------------------------------------------------------===//

def Tj_TemplateOp : Tj_Op<"template", [Symbol, SymbolTable, IsolatedFromAbove,
                                      NoTerminator, SingleBlock]> {
  let summary = "a kernel family: parameters, constraints, launch contract, kernel";
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    class KernelOp getKernel();
    class LaunchOp getLaunch();
    ParamOp lookupParam(::llvm::StringRef name);
    ::llvm::SmallVector<ParamOp> getParams();
  }];
}

def Tj_ParamOp : Tj_Op<"param", [Symbol, HasParent<"TemplateOp">]> {
  let summary = "a specialization parameter with its domain";
  let description = [{
    `tj.param @head_size : int values [64, 128] default 128`,
    `tj.param @block_n : int range [16, 256]`, `tj.param @dtype : type values [f16, bf16]`,
    `tj.param @kv_layout : string values ["standard", "shuffled"] default "standard"`.
    Without `default`, the value comes from the kernel spec or the target's tuning table.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Tj_ParamKind:$kind,
                       OptionalAttr<ArrayAttr>:$values,
                       OptionalAttr<DenseI64ArrayAttr>:$range,
                       OptionalAttr<AnyAttr>:$default_value);
  let assemblyFormat = [{
    $sym_name `:` $kind (`values` $values^)? (`range` $range^)? (`default` $default_value^)?
    attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    // Whether `value` lies in the domain; the attribute kind must match the parameter kind.
    bool admits(::mlir::Attribute value);
    // "64, 80, 96" or "16..256", for diagnostics.
    std::string describeDomain();
  }];
}

def Tj_ConstraintOp : Tj_Op<"constraint", [HasParent<"TemplateOp">, IsolatedFromAbove]> {
  let summary = "a condition on parameter values, evaluated at specialization";
  let description = [{
    The region computes an i1 from `tj.param_value` / `tj.target_value` and `arith`, and
    yields it; a specialization where it folds to false is rejected with `message`.
  }];
  let arguments = (ins StrAttr:$message);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$message $body attr-dict";
  let hasRegionVerifier = 1;
}

def Tj_LaunchOp : Tj_Op<"launch", [HasParent<"TemplateOp">, IsolatedFromAbove]> {
  let summary = "the launch contract: grid from shape symbols and parameters only";
  let description = [{
    `grid` yields three index values computed from `tj.shape_symbol`, `tj.param_value`,
    `tj.target_value` and `arith` (never from data, so launches can be captured in graphs);
    `threads` yields the threads per program from parameters and the target only.
  }];
  let regions = (region SizedRegion<1>:$grid, SizedRegion<1>:$threads);
  let assemblyFormat = "`grid` $grid `threads` $threads attr-dict";
  let hasRegionVerifier = 1;
}

def Tj_YieldOp : Tj_Op<"yield", [Pure, Terminator, ReturnLike,
                                ParentOneOf<["ConstraintOp", "LaunchOp"]>]> {
  let summary = "yields values out of a constraint or launch region";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Tj_KernelOp : Tj_Op<"kernel", [HasParent<"TemplateOp">, Symbol, IsolatedFromAbove,
    SingleBlock, NoTerminator,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "what one program does; the block arguments are the kernel signature";
  let description = [{
    `tj.kernel @name(%out: !tj.view<[...], f32>, %scale: f32) { ... }`. Arguments are views
    of global memory and scalars; their SSA names become the argument names of the ABI.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$arg_names);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Values of parameters, target, shape symbols and program coordinates
//===----------------------------------------------------------------------===//

def Tj_ParamValueOp : Tj_Op<"param_value", [Pure]> {
  let summary = "the value of an integer parameter (a constant after specialization)";
  let arguments = (ins FlatSymbolRefAttr:$param);
  let results = (outs AnyTypeOf<[AnySignlessInteger, Index]>:$result);
  let assemblyFormat = "$param attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tj_ParamEqualsOp : Tj_Op<"param_equals", [Pure]> {
  let summary = "whether a string or type parameter has the given value";
  let arguments = (ins FlatSymbolRefAttr:$param, AnyAttr:$value);
  let results = (outs I1:$result);
  let assemblyFormat = "$param `,` $value attr-dict";
  let hasVerifier = 1;
}

def Tj_TargetValueOp : Tj_Op<"target_value", [Pure]> {
  let summary = "a property of the target (warp_size, multiprocessor_count, shared_bytes)";
  let arguments = (ins StrAttr:$name);
  let results = (outs AnyTypeOf<[AnySignlessInteger, Index]>:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tj_ShapeSymbolOp : Tj_Op<"shape_symbol", [Pure]> {
  let summary = "the launch-time value of a shape symbol of the kernel signature";
  let arguments = (ins StrAttr:$symbol);
  let results = (outs Index:$result);
  let assemblyFormat = "$symbol attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tj_ProgramIdOp : Tj_Op<"program_id", [Pure, HasParent<"KernelOp">]> {
  let summary = "this program's coordinate along a grid axis";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

// Programmatic dependent launch. Two kernels launched one after the other (paged decode and its
// partition merge) spend the gap between them launching the second; with these ops the runtime
// may start the second kernel's programs while the first still runs. No-ops where kernels run
// strictly in stream order (CPU, AMD, NVIDIA before sm_90).
def Tj_WaitPreviousKernelOp : Tj_Op<"wait_previous_kernel", [HasParent<"KernelOp">]> {
  let summary = "waits until the kernel launched before this one has finished and its writes are visible";
  let description = [{
    Its presence lets the runtime launch this kernel before the previous kernel on the stream
    has ended (sm_90+: CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION). So that no read
    can see memory the previous kernel is still writing, it must precede every op that touches
    memory, except reads (`tj.load_scalar`, `tj.load`, `tj.prefetch`) of the views listed as
    `ready`: the template's promise that the previous kernel does not write them (sequence
    lengths a merge reads while the split-K kernel still runs). Kernels before the previous one
    have ended by then: the previous kernel began after them.
  }];
  let arguments = (ins Variadic<Tj_ViewType>:$ready);
  let assemblyFormat = "(`ready` `(` $ready^ `:` type($ready) `)`)? attr-dict";
  let hasVerifier = 1;
}

def Tj_StartNextKernelOp : Tj_Op<"start_next_kernel", [HasParent<"KernelOp">]> {
  let summary = "lets the next kernel's programs be placed before this kernel ends";
  let description = [{
    Only placement: the next kernel still waits in tj.wait_previous_kernel until every program of
    this one has finished. The next kernel is placed once every program of this one has passed
    this op, so programs of this kernel never wait for room behind it.
  }];
  let assemblyFormat = "attr-dict";
}

def Tj_NumProgramsOp : Tj_Op<"num_programs", [Pure, HasParent<"KernelOp">]> {
  let summary = "the grid's extent along an axis";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Tile creation and shape
//===----------------------------------------------------------------------===//

def Tj_RangeOp : Tj_Op<"range", [Pure]> {
  let summary = "a tile counting up from start along one axis";
  let description = [{
    Element (i_0, ..., i_{r-1}) is `start + i_axis`: a 1-D tile is [start, start + size); a
    2-D one with axis 1 holds every column's index in each row. Unlike a 1-D range expanded
    and broadcast, it can be produced in any layout (each thread computes its elements'
    coordinates), so a tile of column indices beside an mma accumulator needs no exchange.
  }];
  let arguments = (ins AnySignlessInteger:$start, Tj_TileShapeAttr:$tile,
                       DefaultValuedAttr<I32Attr, "0">:$axis);
  let results = (outs Tj_Tile:$result);
  let assemblyFormat = [{
    $start custom<TileShape>($tile) (`axis` $axis^)? attr-dict `:` type($start) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tj_FullOp : Tj_Op<"full", [Pure]> {
  let summary = "a tile with every element equal to a scalar";
  let arguments = (ins AnyType:$value, Tj_TileShapeAttr:$tile);
  let results = (outs Tj_Tile:$result);
  let assemblyFormat = "$value custom<TileShape>($tile) attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
}

def Tj_BroadcastOp : Tj_Op<"broadcast", [Pure]> {
  let summary = "repeats the extents of size 1 of a tile to a larger shape of the same rank";
  let arguments = (ins Tj_Tile:$source, Tj_TileShapeAttr:$tile);
  let results = (outs Tj_Tile:$result);
  let assemblyFormat = "$source custom<TileShape>($tile) attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tj_ExpandDimsOp : Tj_Op<"expand_dims", [Pure]> {
  let summary = "inserts an axis of extent 1";
  let arguments = (ins Tj_Tile:$source, I32Attr:$axis);
  let results = (outs Tj_Tile:$result);
  let assemblyFormat = "$source `axis` $axis attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tj_ReshapeOp : Tj_Op<"reshape", [Pure]> {
  let summary = "the same elements in row-major order under another shape";
  let arguments = (ins Tj_Tile:$source, Tj_TileShapeAttr:$tile);
  let results = (outs Tj_Tile:$result);
  let assemblyFormat = "$source custom<TileShape>($tile) attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tj_ConvertLayoutOp : Tj_Op<"convert_layout", [Pure]> {
  let summary = "moves a tile to another distribution over threads (a hint; same values)";
  let arguments = (ins Tj_Tile:$source, StrAttr:$layout);
  let results = (outs Tj_Tile:$result);
  let assemblyFormat = "$source `to` $layout attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tj_ReduceOp : Tj_Op<"reduce", [Pure]> {
  let summary = "sum, max or min of a tile along one axis";
  let description = [{ A 1-D tile reduces to a scalar. Max has identity -inf. }];
  let arguments = (ins Tj_Tile:$source, Tj_ReduceKind:$kind, I32Attr:$axis);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$kind $source `axis` $axis attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tj_DotOp : Tj_Op<"dot", [Pure]> {
  let summary = "acc + a @ b (b transposed when trans_b), accumulated in f32";
  let arguments = (ins Tj_Tile:$a, Tj_Tile:$b, Tj_Tile:$acc, UnitAttr:$trans_b);
  let results = (outs Tj_Tile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

def Tj_LoadOp : Tj_Op<"load", [AttrSizedOperandSegments,
                              DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "loads a tile from a view, masking elements outside [0, limit)";
  let description = [{
    The tile's axes map to the view's last axes; `offsets` has one index per view axis.
    Elements whose index is outside [0, limit) (limits default to the view's extents) are
    `other` (default 0) and are never read.

    `shared_buffer`/`shared_slots` are set by tj-place-dot-operands-in-shared-memory (GPU
    targets), never by templates: the tile then lives in shared memory buffer
    `shared_buffer`, filled asynchronously, in one of `shared_slots` (1 to 4) slots, used in turn.
  }];
  let arguments = (ins Tj_ViewType:$view, Variadic<Index>:$offsets, Variadic<Index>:$limits,
                       Optional<AnyType>:$other, Tj_TileShapeAttr:$tile,
                       OptionalAttr<I64Attr>:$shared_buffer, OptionalAttr<I64Attr>:$shared_slots);
  let results = (outs Tj_Tile:$result);
  let assemblyFormat = [{
    $view `[` $offsets `]` (`limits` `[` $limits^ `]`)? (`other` $other^ `:` type($other))?
    custom<TileShape>($tile) attr-dict `:` type($view) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tj_StoreOp : Tj_Op<"store", [AttrSizedOperandSegments,
                                DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "stores a tile into a view, skipping elements outside [0, limit)";
  let arguments = (ins Tj_Tile:$value, Tj_ViewType:$view, Variadic<Index>:$offsets,
                       Variadic<Index>:$limits);
  let assemblyFormat = [{
    $value `,` $view `[` $offsets `]` (`limits` `[` $limits^ `]`)? attr-dict
    `:` type($value) `,` type($view)
  }];
  let hasVerifier = 1;
}

def Tj_LoadScalarOp : Tj_Op<"load_scalar", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "reads one element of a view (sequence lengths, slot mappings, tables)";
  let arguments = (ins Tj_ViewType:$view, Variadic<Index>:$indices);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$view `[` $indices `]` attr-dict `:` type($view) `->` type($result)";
  let hasVerifier = 1;
}

// No memory effects declared (unknown, as memref.prefetch): an op that only reads and makes
// no value would be erased as dead.
def Tj_PrefetchOp : Tj_Op<"prefetch"> {
  let summary = "asks for elements of a view to be brought close (L2 on CUDA) ahead of their reads";
  let description = [{
    A hint with no effect on any value: elements `indices` .. `indices + count - 1` along the
    view's innermost axis, clipped to the view (a start outside it prefetches nothing). For
    addresses that a later, dependent read needs at once: a block table's entries can be on
    their way while the sequence length that decides which of them are read still is.
  }];
  let arguments = (ins Tj_ViewType:$view, Variadic<Index>:$indices, Index:$count);
  let assemblyFormat = "$view `[` $indices `]` `count` $count attr-dict `:` type($view)";
  let hasVerifier = 1;
}

def Tj_StoreScalarOp : Tj_Op<"store_scalar", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "writes one element of a view";
  let arguments = (ins AnyType:$value, Tj_ViewType:$view, Variadic<Index>:$indices);
  let assemblyFormat = "$value `,` $view `[` $indices `]` attr-dict `:` type($value) `,` type($view)";
  let hasVerifier = 1;
}

def Tj_ArriveOp : Tj_Op<"arrive", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "counts this program in at a counter; true in the program that arrives last";
  let description = [{
    Once per program, after every thread of it has issued its writes: adds one to the i32
    element of `view` at `indices`. The result is true, in every thread, in the program whose
    add brings the counter to `count`; that program also sets the counter back to 0 (so a
    replayed launch starts from 0 again) and sees every write the programs that arrived before
    it made before arriving. The programs meeting at one counter must all arrive, and `count`
    of them: a program that may be the last one reads what the others wrote (a merge of
    partial results in the kernel that made them).
  }];
  let arguments = (ins Tj_ViewType:$view, Variadic<Index>:$indices, Index:$count);
  let results = (outs I1:$last);
  let assemblyFormat = "$view `[` $indices `]` `count` $count attr-dict `:` type($view)";
  let hasVerifier = 1;
}

def Tj_ClusterMergeStoreOp : Tj_Op<"cluster_merge_store", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "merges the partial results of a thread-block cluster by their LSEs and stores them";
  let description = [{
    For kernels specialized with the reserved parameter `cluster_size` = C > 1 (targets with
    thread-block clusters): the programs run in clusters of C along grid axis 2, rank =
    program_id(2) mod C. Each program passes its partial result (`partial`, [rows, columns]
    f32, every row normalized) and `lse` ([rows] f32: the natural log of each row's softmax
    sum, -inf for a row that saw no token). The partials of ranks 0 .. count-1 are merged
    row by row with weights exp(lse - max lse) (a row whose LSEs are all -inf gets 0), and
    the merge is stored over the view's last two axes at `offsets`, converted to the view's
    element type, skipping elements outside [0, limit) - each program its share of the
    columns. Every program of a cluster must execute it, once, on the same path (it
    synchronizes the cluster), and none may have exited before.
  }];
  let arguments = (ins Tj_Tile:$partial, Tj_Tile:$lse, Index:$count, Tj_ViewType:$view,
                       Variadic<Index>:$offsets, Variadic<Index>:$limits);
  let assemblyFormat = [{
    $partial `,` $lse `count` $count `into` $view `[` $offsets `]` (`limits` `[` $limits^ `]`)?
    attr-dict `:` type($partial) `,` type($lse) `,` type($view)
  }];
  let hasVerifier = 1;
}

def Tj_PagedLoadOp : Tj_Op<"paged_load", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "gathers the rows of tokens [start, start + n) of a sequence through a block table";
  let description = [{
    Row i is token t = start + i: block = table[seq, t / block_size], slot = t % block_size.
    Rows with t >= limit are 0 and never read (the tail of a last block may hold NaN).
    `shared_buffer`/`shared_slots`: as for tj.load. `shared_transposed` (with them, for a
    shuffled V cache only, set by the same pass): the tile lives transposed in shared memory
    ([head_size, tokens]: the layout's 16-byte pieces are tokens of one dim), and a dot reading
    it as its b operand reads it that way.
  }];
  let arguments = (ins Tj_KvCacheType:$cache, Tj_ViewType:$table, Index:$seq, Index:$start,
                       Index:$limit, Index:$head, Tj_TileShapeAttr:$tile,
                       OptionalAttr<I64Attr>:$shared_buffer, OptionalAttr<I64Attr>:$shared_slots,
                       OptionalAttr<UnitAttr>:$shared_transposed);
  let results = (outs Tj_Tile:$result);
  let assemblyFormat = [{
    $cache `,` $table `[` $seq `]` `tokens` $start `limit` $limit `head` $head
    custom<TileShape>($tile) attr-dict `:` type($cache) `,` type($table) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tj_PagedStoreOp : Tj_Op<"paged_store", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "writes one token's [kv_heads, head_size] rows into a paged cache";
  let description = [{ Row h goes to kv head `head + h`; rows past the cache's heads are skipped. }];
  let arguments = (ins Tj_Tile:$value, Tj_KvCacheType:$cache, Index:$block, Index:$slot,
                       Index:$head);
  let assemblyFormat = [{
    $value `,` $cache `block` $block `slot` $slot `head` $head attr-dict
    `:` type($value) `,` type($cache)
  }];
  let hasVerifier = 1;
}

#endif
