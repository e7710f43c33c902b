// `tilejit signature` lists a specialization's arguments in call order with kinds, dtypes,
// shapes (symbols bound at launch, numbers fixed by the specialization) and direction, as a
// table or JSON, without running a toolchain; `targets` says what compiles and runs here.
// RUN: tilejit signature merge_attn_states -p head_size=64 | FileCheck %s
// RUN: tilejit signature reshape_and_cache --target sm_90 --json | FileCheck %s --check-prefix=JSON
// RUN: not tilejit signature merge_attn_states --emit cpp 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: tilejit targets | FileCheck %s --check-prefix=TARGETS
// RUN: tilejit targets --json | FileCheck %s --check-prefix=TARGETS-JSON
// CHECK: merge_attn_states for host:
// CHECK-NEXT: 0 output tensor bf16 [num_tokens, num_heads, 64] written
// CHECK-NEXT: 1 output_lse tensor f32 [num_heads, num_tokens] written
// CHECK-NEXT: 2 prefix_output tensor bf16 [num_tokens, num_heads, 64] read
// JSON: "template": "reshape_and_cache",
// JSON: "target": "sm_90",
// JSON: "arguments": [
// JSON: "name": "key",
// JSON-NEXT: "kind": "tensor",
// FLAG: error: signature does not take --emit
// TARGETS: target {{ *}}product{{.*}}compiles runs here
// TARGETS: host {{.*}} yes {{ *}}yes
// TARGETS-JSON: "target": "host",
// TARGETS-JSON: "compiles": true,
// TARGETS-JSON: "runs": true
