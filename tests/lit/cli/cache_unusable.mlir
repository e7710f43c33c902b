// A cache location the JIT cannot use is one warning, and the kernels still compile and run:
// a file where the directory should be, a directory every user can write, an unparseable bound.
// RUN: rm -rf %t.file %t.open && echo data > %t.file && mkdir -p %t.open && chmod 0777 %t.open
// RUN: env TILEJIT_CACHE_DIR=%t.file tilejit run merge_attn_states --target host --iterations 0 --shape num_tokens=16 --shape num_heads=8 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: env TILEJIT_CACHE_DIR=%t.open tilejit run merge_attn_states --target host --iterations 0 --shape num_tokens=16 --shape num_heads=8 2>&1 | FileCheck %s --check-prefix=OPEN
// RUN: rm -rf %t.bound && env TILEJIT_CACHE_DIR=%t.bound TILEJIT_CACHE_MAX_BYTES=lots tilejit run merge_attn_states --target host --iterations 0 --shape num_tokens=16 --shape num_heads=8 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: cat %t.file | FileCheck %s --check-prefix=UNTOUCHED
// FILE: warning: cache directory not used: '{{.*}}.file' is not a directory; compiled kernels are kept in memory only
// FILE-NOT: warning
// FILE: merge_attn_states miss pass
// OPEN: warning: cache directory not used: '{{.*}}.open' is writable by every user (mode 0777)
// OPEN: merge_attn_states miss pass
// BOUND: warning: TILEJIT_CACHE_MAX_BYTES: byte count 'lots' is not valid
// BOUND: merge_attn_states miss pass
// UNTOUCHED: data
