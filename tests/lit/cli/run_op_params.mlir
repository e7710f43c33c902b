// `tilejit run` parses -p by the op's schema: a bad value, an unknown or repeated name is an
// error naming it (exit 2), before anything compiles.
// RUN: not tilejit run paged_decode --target host -p gqa_ratio=abc 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not tilejit run paged_decode --target host -p gqa=4 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not tilejit run paged_decode --target host -p block_n=32 -p block_n=64 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: tilejit run paged_decode --target host -p gqa_ratio=abc; test $? -eq 2
// VALUE: tilejit: error: op 'paged_decode' parameter 'gqa_ratio': 'abc' is not an integer; legal values: an integer
// NAME: tilejit: error: unknown parameter 'gqa' for op 'paged_decode'; its parameters are: dtype, head_size
// TWICE: tilejit: error: parameter 'block_n' given twice (-p block_n=32 and -p block_n=64)
