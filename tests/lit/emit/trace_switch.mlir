// TJ_TRACE (templates/device/cuda/tj/trace.h) is a measurement switch: with -DTJ_TRACE=1 a
// clustered decode kernel reads %globaltimer at its trace points (entry, sequence length,
// first table entry, the tile waits, epilogue, the merge's three steps, exit) and prints one
// line per program; without it, nothing of the trace is in the PTX.
// RUN: env TILEJIT_NVRTC_OPTIONS=-DTJ_TRACE=1 tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p block_n=64 -p partition_size=2048 -p cluster_size=2 --emit asm --no-cache | FileCheck %s
// CHECK: .extern .func {{.*}}vprintf
// CHECK-COUNT-10: %globaltimer
// CHECK: call.uni
// CHECK-NEXT: vprintf,
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p block_n=64 -p partition_size=2048 -p cluster_size=2 --emit asm --no-cache | FileCheck %s --check-prefix=OFF
// OFF-NOT: globaltimer
// OFF-NOT: vprintf
