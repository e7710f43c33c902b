// tj-assign-mma-layouts (CUDA targets): the accumulator of a tensor-core dot and what is
// computed from it elementwise keep #tj.mma; row reductions of it and their broadcasts back
// are #tj.mma_rows; converts appear only where a producer or consumer cannot follow.
// RUN: tj-opt %s --tj-assign-mma-layouts | FileCheck %s
// RUN: tj-opt %s --tj-assign-mma-layouts | tj-opt | FileCheck %s --check-prefix=ROUNDTRIP
// ROUNDTRIP: tj.kernel @softmax_dot
// The layouts name the target's instruction (the pass's default target is sm_90: mma.sync
// m16n8k16), its fragments spelled out once, behind aliases.
// CHECK-DAG: #mma_sync_m16n8k16 = #tj.matrix_instr<"mma.sync.m16n8k16", m = 16, n = 8, k = 16, lanes = 32, a = <reg = {{\[\[}}0, 1], [8, 0], [0, 8{{\]\]}}, lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0{{\]\]}}>, b = <reg = {{\[\[}}1, 0], [8, 0{{\]\]}}, lane = {{\[\[}}2, 0], [4, 0], [0, 1], [0, 2], [0, 4{{\]\]}}>, acc = <reg = {{\[\[}}0, 1], [8, 0{{\]\]}}, lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0{{\]\]}}>>
// CHECK-DAG: #mma = #tj.mma<#mma_sync_m16n8k16>
// CHECK-DAG: #mma_rows = #tj.mma_rows<#mma_sync_m16n8k16>
// The same IR names MFMA on gfx942 (wave64) and WMMA on gfx1100 (wave32).
// RUN: tj-opt %s --tj-assign-mma-layouts=target=gfx942 | FileCheck %s --check-prefix=GFX942
// GFX942: #mfma_f32_16x16x16bf16_1k = #tj.matrix_instr<"mfma_f32_16x16x16bf16_1k", m = 16, n = 16, k = 16, lanes = 64,
// GFX942: #mma = #tj.mma<#mfma_f32_16x16x16bf16_1k>
// GFX942: tj.dot %{{.*}} {trans_b} : tensor<16x64xbf16>, tensor<32x64xbf16>, tensor<16x32xf32, #mma> -> tensor<16x32xf32, #mma>
// RUN: tj-opt %s --tj-assign-mma-layouts=target=gfx1100 | FileCheck %s --check-prefix=GFX1100
// GFX1100: #mma = #tj.mma<#wmma_f32_16x16x16_bf16>
// RUN: not tj-opt %s --tj-assign-mma-layouts=target=sm_99 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: unknown target 'sm_99'; known targets: sm_80, sm_90,
// The decode template on sm_90: the softmax state lives in fragments, and the column index
// tile is built in the logits' layout (a 2-D tj.range): no conversion at all. The host target
// has no layouts.
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 --emit cpp --no-cache | FileCheck %s --check-prefix=DECODE
// DECODE: #define TJ_ROW_EXCHANGE_ROWS 16
// DECODE: tj::RowExchange row_exchange;
// DECODE: tj::MmaRows<float, 16> m0 = tj::splat<tj::MmaRows<float, 16>>(
// DECODE-NOT: convert_layout
// DECODE: tj::MmaTile<int32_t, 16, 32> columns_2d = tj::range_along<1, tj::MmaTile<int32_t, 16, 32>>(
// DECODE-NOT: convert_layout
// DECODE: for (
// DECODE: tj::MmaTile<float, 16, 32> qk = tj::dot<true>(q, k,
// DECODE: tj::MmaRows<float, 16> tile_max = tj::reduce_max<1>(logits, row_exchange);
// DECODE: tj::MmaTile<float, 16, 128> alpha_2d = tj::broadcast<16, 128>(alpha_col);
// DECODE: tj::MmaTile<float, 16, 128> acc_new = tj::dot<false>(p_low, v, acc_scaled, async_copies.newerAtLeast(2));
// DECODE: tj::store(args.partial_out, {{.*}}, normalized);
// With ALiBi the slopes are loaded (blocked) and converted once, before the loop; in the loop
// they are expanded and broadcast in registers.
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p alibi=1 --emit specialized --no-cache | FileCheck %s --check-prefix=ALIBI
// ALIBI: tj.convert_layout %{{.*}} to "mma_rows" : tensor<16xf32> -> tensor<16xf32, #mma_rows>
// ALIBI: scf.for
// ALIBI-NOT: tj.convert_layout
// ALIBI: tj.broadcast %{{.*}} [16, 32] : tensor<16x1xf32, #mma_rows> -> tensor<16x32xf32, #mma>
// ALIBI-NOT: tj.convert_layout
// ALIBI: scf.yield
// RUN: tilejit compile %templates/paged_decode.mlir --target host -p gqa_ratio=4 --emit cpp --no-cache | FileCheck %s --check-prefix=HOST
// HOST-NOT: Mma

tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  // CHECK-LABEL: tj.kernel @softmax_dot
  tj.kernel @softmax_dot(%q: !tj.view<[16, 64], bf16>, %kv: !tj.view<[32, 64], bf16>,
                         %bias: !tj.view<[16], f32>, %out: !tj.view<[16, 64], f32>,
                         %lse: !tj.view<[16], f32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %c0_i32 = arith.constant 0 : i32
    // CHECK: %[[Q:.*]] = tj.load %{{.*}} -> tensor<16x64xbf16>
    %qt = tj.load %q[%c0, %c0] [16, 64] : !tj.view<[16, 64], bf16> -> tensor<16x64xbf16>
    // A load cannot produce mma_rows: it is converted once, outside the loop.
    // CHECK: %[[B:.*]] = tj.load %{{.*}} -> tensor<16xf32>
    // CHECK-NEXT: tj.convert_layout %[[B]] to "mma_rows" : tensor<16xf32> -> tensor<16xf32, #mma_rows>
    %b = tj.load %bias[%c0] [16] : !tj.view<[16], f32> -> tensor<16xf32>
    // One splat, two users in different classes (the dot's accumulator, a reshape): cloned,
    // one per layout.
    // CHECK-DAG: tj.full %{{.*}} [16, 32] : f32 -> tensor<16x32xf32, #mma>
    // CHECK-DAG: %[[Z:.*]] = tj.full %{{.*}} [16, 32] : f32 -> tensor<16x32xf32>{{$}}
    // CHECK-DAG: tj.reshape %[[Z]] [512]
    // CHECK-DAG: tj.full %{{.*}} [16, 64] : f32 -> tensor<16x64xf32, #mma>
    %z32 = tj.full %zero [16, 32] : f32 -> tensor<16x32xf32>
    %z_flat = tj.reshape %z32 [512] : tensor<16x32xf32> -> tensor<512xf32>
    %acc0 = tj.full %zero [16, 64] : f32 -> tensor<16x64xf32>
    %r = tj.range %c0_i32 [32] : i32 -> tensor<32xi32>
    %r2 = tj.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
    // CHECK: %[[COLS:.*]] = tj.broadcast %{{.*}} [16, 32] : tensor<1x32xi32> -> tensor<16x32xi32>
    // CHECK-NEXT: tj.convert_layout %[[COLS]] to "mma" : tensor<16x32xi32> -> tensor<16x32xi32, #mma>
    %cols = tj.broadcast %r2 [16, 32] : tensor<1x32xi32> -> tensor<16x32xi32>
    // A consumer that wants the producer's layout takes the value from before the conversion.
    // CHECK: tj.reshape %[[COLS]] [512]
    %cols_flat = tj.reshape %cols [512] : tensor<16x32xi32> -> tensor<512xi32>
    // CHECK: scf.for {{.*}} -> (tensor<16x64xf32, #mma>, tensor<16xf32, #mma_rows>)
    %acc, %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %acc0, %l_i = %b)
        -> (tensor<16x64xf32>, tensor<16xf32>) {
      %k = tj.load %kv[%c0, %c0] [32, 64] : !tj.view<[32, 64], bf16> -> tensor<32x64xbf16>
      // CHECK: tj.dot %[[Q]], %{{.*}} {trans_b} : tensor<16x64xbf16>, tensor<32x64xbf16>, tensor<16x32xf32, #mma> -> tensor<16x32xf32, #mma>
      %s = tj.dot %qt, %k, %z32 {trans_b} : tensor<16x64xbf16>, tensor<32x64xbf16>, tensor<16x32xf32> -> tensor<16x32xf32>
      %cols_f = arith.sitofp %cols : tensor<16x32xi32> to tensor<16x32xf32>
      // CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<16x32xf32, #mma>
      %sb = arith.addf %s, %cols_f : tensor<16x32xf32>
      // CHECK: tj.reduce max %{{.*}} axis 1 : tensor<16x32xf32, #mma> -> tensor<16xf32, #mma_rows>
      %m = tj.reduce max %sb axis 1 : tensor<16x32xf32> -> tensor<16xf32>
      // CHECK: tj.expand_dims %{{.*}} axis 1 : tensor<16xf32, #mma_rows> -> tensor<16x1xf32, #mma_rows>
      %m_col = tj.expand_dims %m axis 1 : tensor<16xf32> -> tensor<16x1xf32>
      // CHECK: tj.broadcast %{{.*}} [16, 32] : tensor<16x1xf32, #mma_rows> -> tensor<16x32xf32, #mma>
      %m_2d = tj.broadcast %m_col [16, 32] : tensor<16x1xf32> -> tensor<16x32xf32>
      %rel = arith.subf %sb, %m_2d : tensor<16x32xf32>
      %p = math.exp %rel : tensor<16x32xf32>
      %sum = tj.reduce sum %p axis 1 : tensor<16x32xf32> -> tensor<16xf32>
      %l_next = arith.addf %l_i, %sum : tensor<16xf32>
      // CHECK: arith.truncf %{{.*}} : tensor<16x32xf32, #mma> to tensor<16x32xbf16, #mma>
      %p_low = arith.truncf %p : tensor<16x32xf32> to tensor<16x32xbf16>
      // The probabilities feed the second dot as they are; its b operand stays blocked.
      // CHECK: tj.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xbf16, #mma>, tensor<32x64xbf16>, tensor<16x64xf32, #mma> -> tensor<16x64xf32, #mma>
      %acc_next = tj.dot %p_low, %k, %acc_i : tensor<16x32xbf16>, tensor<32x64xbf16>, tensor<16x64xf32> -> tensor<16x64xf32>
      scf.yield %acc_next, %l_next : tensor<16x64xf32>, tensor<16xf32>
    }
    // Stores take any layout; a reshape needs the blocked one, converted right after the loop.
    // CHECK: %[[BACK:.*]] = tj.convert_layout %{{.*}} to "blocked" : tensor<16x64xf32, #mma> -> tensor<16x64xf32>
    // CHECK: tj.store %{{.*}} : tensor<16x64xf32, #mma>
    tj.store %acc, %out[%c0, %c0] : tensor<16x64xf32>, !tj.view<[16, 64], f32>
    // CHECK: tj.store %{{.*}} : tensor<16xf32, #mma_rows>
    tj.store %l, %lse[%c0] : tensor<16xf32>, !tj.view<[16], f32>
    // CHECK: tj.reshape %[[BACK]]
    %flat = tj.reshape %acc [1024] : tensor<16x64xf32> -> tensor<1024xf32>
  }
}

// A range computes its elements from their coordinates: a 2-D one beside an accumulator is
// produced in #tj.mma, with no conversion (a 1-D one broadcast is converted, above).
tj.template @range_in_layout {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  // CHECK-LABEL: tj.kernel @columns
  // CHECK-NOT: tj.convert_layout
  // CHECK: tj.range %{{.*}} [16, 32] axis 1 : i32 -> tensor<16x32xi32, #mma>
  // CHECK-NOT: tj.convert_layout
  // CHECK: tj.store
  tj.kernel @columns(%q: !tj.view<[16, 64], bf16>, %kv: !tj.view<[32, 64], bf16>,
                     %out: !tj.view<[16, 32], f32>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %c0_i32 = arith.constant 0 : i32
    %qt = tj.load %q[%c0, %c0] [16, 64] : !tj.view<[16, 64], bf16> -> tensor<16x64xbf16>
    %k = tj.load %kv[%c0, %c0] [32, 64] : !tj.view<[32, 64], bf16> -> tensor<32x64xbf16>
    %z = tj.full %zero [16, 32] : f32 -> tensor<16x32xf32>
    %s = tj.dot %qt, %k, %z {trans_b} : tensor<16x64xbf16>, tensor<32x64xbf16>, tensor<16x32xf32> -> tensor<16x32xf32>
    %cols = tj.range %c0_i32 [16, 32] axis 1 : i32 -> tensor<16x32xi32>
    %cols_f = arith.sitofp %cols : tensor<16x32xi32> to tensor<16x32xf32>
    %sum = arith.addf %s, %cols_f : tensor<16x32xf32>
    tj.store %sum, %out[%c0, %c0] : tensor<16x32xf32>, !tj.view<[16, 32], f32>
  }
}

// Float operands take the FMA path: nothing changes.
tj.template @fma {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  // CHECK-LABEL: tj.kernel @fma_dot
  // CHECK-NOT: #mma
  // CHECK: tj.store
  tj.kernel @fma_dot(%a: !tj.view<[16, 16], f32>, %out: !tj.view<[16, 16], f32>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %x = tj.load %a[%c0, %c0] [16, 16] : !tj.view<[16, 16], f32> -> tensor<16x16xf32>
    %acc = tj.full %zero [16, 16] : f32 -> tensor<16x16xf32>
    %y = tj.dot %x, %x, %acc : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    tj.store %y, %out[%c0, %c0] : tensor<16x16xf32>, !tj.view<[16, 16], f32>
  }
}

// Consumers the mma layouts cannot feed get the blocked layout: a reduction along the columns
// and an FMA dot (f32 operands) taking a tensor-core dot's result as its accumulator; they
// share one conversion.
tj.template @boundaries {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  // CHECK-LABEL: tj.kernel @column_reduce_and_fma
  tj.kernel @column_reduce_and_fma(%x: !tj.view<[16, 16], bf16>, %y: !tj.view<[16, 16], f32>,
                                   %out: !tj.view<[16], f32>, %out2: !tj.view<[16, 16], f32>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %a = tj.load %x[%c0, %c0] [16, 16] : !tj.view<[16, 16], bf16> -> tensor<16x16xbf16>
    %f = tj.load %y[%c0, %c0] [16, 16] : !tj.view<[16, 16], f32> -> tensor<16x16xf32>
    %acc = tj.full %zero [16, 16] : f32 -> tensor<16x16xf32>
    // CHECK: %[[S:.*]] = tj.dot {{.*}} -> tensor<16x16xf32, #mma>
    %s = tj.dot %a, %a, %acc {trans_b} : tensor<16x16xbf16>, tensor<16x16xbf16>, tensor<16x16xf32> -> tensor<16x16xf32>
    // CHECK: %[[SB:.*]] = tj.convert_layout %[[S]] to "blocked" : tensor<16x16xf32, #mma> -> tensor<16x16xf32>
    // CHECK-NOT: tj.convert_layout
    // CHECK: tj.reduce sum %[[SB]] axis 0 : tensor<16x16xf32> -> tensor<16xf32>
    %col = tj.reduce sum %s axis 0 : tensor<16x16xf32> -> tensor<16xf32>
    tj.store %col, %out[%c0] : tensor<16xf32>, !tj.view<[16], f32>
    // CHECK: tj.dot %{{.*}}, %{{.*}}, %[[SB]] : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %g = tj.dot %f, %f, %s : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    tj.store %g, %out2[%c0, %c0] : tensor<16x16xf32>, !tj.view<[16, 16], f32>
  }
}
