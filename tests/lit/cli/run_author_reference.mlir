// An author's reference (`tilejit run ... --reference PATH`), C++ or Python, judges the op's
// outputs on the op's own problem, with the metric and tolerance printed: a correct one passes,
// one scaled by 1.01 fails with exit 1, and one that crashes, throws, returns nonzero or the
// wrong shape, does not compile or defines no entry point is an error naming the file.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TILEJIT_CACHE_DIR=%t/cache tilejit run merge_attn_states --target host --iterations 0 --reference %S/Inputs/reference/merge.cpp | FileCheck %s --check-prefix=PASS
// RUN: env TILEJIT_CACHE_DIR=%t/cache tilejit run merge_attn_states --target host --iterations 0 --reference %S/Inputs/reference/merge.py | FileCheck %s --check-prefix=PASS
// RUN: cp %templates/merge_attn_states.mlir %t/m0.mlir
// RUN: env TILEJIT_CACHE_DIR=%t/cache tilejit run %t/m0.mlir --target host --iterations 0 --reference %S/Inputs/reference/merge.py | FileCheck %s --check-prefix=PASS
// RUN: sed 's|= 1.0;  // MUTANT: scale|= 1.01;|' %S/Inputs/reference/merge.cpp > %t/scaled.cpp
// RUN: not env TILEJIT_CACHE_DIR=%t/cache tilejit run merge_attn_states --target host --iterations 0 --reference %t/scaled.cpp | FileCheck %s --check-prefix=SCALED
// RUN: not env MERGE_REFERENCE_MUTANT=scale TILEJIT_CACHE_DIR=%t/cache tilejit run merge_attn_states --target host --iterations 0 --reference %S/Inputs/reference/merge.py | FileCheck %s --check-prefix=SCALED
// RUN: sed 's|  const double scale = 1.0;  // MUTANT: scale|  *(volatile int*)nullptr = 1; const double scale = 1.0;|' %S/Inputs/reference/merge.cpp > %t/crash.cpp
// RUN: not env TILEJIT_CACHE_DIR=%t/cache tilejit run merge_attn_states --target host --iterations 0 --reference %t/crash.cpp | FileCheck %s --check-prefix=CRASH
// RUN: sed 's|  const double scale = 1.0;  // MUTANT: scale|  if (n_in > 0) throw std::runtime_error("no merging today"); const double scale = 1.0;|' %S/Inputs/reference/merge.cpp > %t/throw.cpp
// RUN: not env TILEJIT_CACHE_DIR=%t/cache tilejit run merge_attn_states --target host --iterations 0 --reference %t/throw.cpp | FileCheck %s --check-prefix=THROW
// RUN: sed 's|return 0;  // MUTANT: return|return 7;|' %S/Inputs/reference/merge.cpp > %t/returns.cpp
// RUN: not env TILEJIT_CACHE_DIR=%t/cache tilejit run merge_attn_states --target host --iterations 0 --reference %t/returns.cpp | FileCheck %s --check-prefix=RETURNS
// RUN: echo 'int unrelated() { return 0; }' > %t/none.cpp
// RUN: not env TILEJIT_CACHE_DIR=%t/cache tilejit run merge_attn_states --target host --iterations 0 --reference %t/none.cpp | FileCheck %s --check-prefix=NONE
// RUN: echo 'int x = ;' > %t/broken.cpp
// RUN: not env TILEJIT_CACHE_DIR=%t/cache tilejit run merge_attn_states --target host --iterations 0 --reference %t/broken.cpp | FileCheck %s --check-prefix=BROKEN
// RUN: not env MERGE_REFERENCE_MUTANT=raise TILEJIT_CACHE_DIR=%t/cache tilejit run merge_attn_states --target host --iterations 0 --reference %S/Inputs/reference/merge.py | FileCheck %s --check-prefix=RAISE
// RUN: not env MERGE_REFERENCE_MUTANT=shape TILEJIT_CACHE_DIR=%t/cache tilejit run merge_attn_states --target host --iterations 0 --reference %S/Inputs/reference/merge.py | FileCheck %s --check-prefix=SHAPE
// RUN: not env MERGE_REFERENCE_MUTANT=missing TILEJIT_CACHE_DIR=%t/cache tilejit run merge_attn_states --target host --iterations 0 --reference %S/Inputs/reference/merge.py | FileCheck %s --check-prefix=MISSING
// RUN: not tilejit run --target host --reference %S/Inputs/reference/merge.py 2>&1 | FileCheck %s --check-prefix=ONE-OP
// RUN: not tilejit run merge_attn_states --target host --reference %S/Inputs/reference/merge.txt 2>&1 | FileCheck %s --check-prefix=KIND
// A template naming its reference: a file beside it, or an op whose shipped check it takes.
// RUN: cp %S/Inputs/reference/merge.py %t/merge.py
// RUN: sed 's/^tj.template @merge_attn_states {/tj.template @merge_attn_states attributes {tj.reference = "merge.py"} {/' %templates/merge_attn_states.mlir > %t/declares.mlir
// RUN: env TILEJIT_CACHE_DIR=%t/cache tilejit run %t/declares.mlir --target host --iterations 0 | FileCheck %s --check-prefixes=DECLARED,PASS
// RUN: not env MERGE_REFERENCE_MUTANT=scale TILEJIT_CACHE_DIR=%t/cache tilejit run %t/declares.mlir --target host --iterations 0 | FileCheck %s --check-prefix=SCALED
// RUN: sed 's/^tj.template @merge_attn_states {/tj.template @my_merge attributes {tj.reference = "merge_attn_states"} {/' %templates/merge_attn_states.mlir > %t/names_op.mlir
// RUN: env TILEJIT_CACHE_DIR=%t/cache tilejit run %t/names_op.mlir --target host --iterations 0 -p heads_per_program=4 -p num_warps=4 2>&1 | FileCheck %s --check-prefix=NAMES-OP
// RUN: sed 's/^tj.template @merge_attn_states {/tj.template @merge_attn_states attributes {tj.reference = 3} {/' %templates/merge_attn_states.mlir > %t/not_string.mlir
// RUN: not tilejit run %t/not_string.mlir --target host 2>&1 | FileCheck %s --check-prefix=NOT-STRING
// DECLARED: merge_attn_states: checked against {{.*}}merge.py
// NAMES-OP: merge_attn_states: @merge_attn_states from {{.*}}names_op.mlir
// NAMES-OP: merge_attn_states {{ *}}miss {{ *}}pass
// NOT-STRING: error: '{{.*}}not_string.mlir': tj.reference must be a string naming an op or a reference file
// PASS: merge_attn_states {{ *}}{{hit|miss}} {{ *}}pass {{ *}}{{[0-9.e+-]+}} {{ *}}1.0e-02 {{.*}} vs {{.*}}merge.{{cpp|py}}: rel L-inf {{.*}} (tolerance 1e-02) over 2113536 elements, 0 NaN in one only; worst at output{{.*}}(the op's own check: pass)
// SCALED: merge_attn_states {{ *}}{{hit|miss}} {{ *}}FAIL {{ *}}1.0{{[0-9]}}e-02 {{ *}}1.0e-02 {{.*}} rel L-inf 1.0{{[0-9]+}}e-02 (tolerance 1e-02)
// CRASH: FAILED: reference '{{.*}}crash.cpp' crashed (signal 11, Segmentation fault)
// THROW: FAILED: reference '{{.*}}throw.cpp' returned -1: threw no merging today
// RETURNS: FAILED: reference '{{.*}}returns.cpp' returned 7
// NONE: FAILED: reference '{{.*}}none.cpp' does not load: {{.*}}undefined symbol: tilejit_reference
// BROKEN: FAILED: reference '{{.*}}broken.cpp' does not compile: {{.*}}
// BROKEN-NEXT: broken.cpp:1:9: error:
// RAISE: FAILED: reference '{{.*}}merge.py' failed
// RAISE: merge.py", line {{[0-9]+}}, in reference
// RAISE: ValueError: this reference refuses
// SHAPE: FAILED: reference '{{.*}}merge.py' failed
// SHAPE-NEXT: reference() returned 'output' of shape (512, 32, 127); the op's 'output' is (512, 32, 128)
// MISSING: reference() returned no 'output_lse' (the op's outputs: ['output', 'output_lse'])
// ONE-OP: error: --reference {{.*}}merge.py checks one op; this run has {{[0-9]+}}: name the op or the template file
// KIND: FAILED: --reference {{.*}}merge.txt: not a reference file
