// A second process reuses the cache entry the first one wrote, without compiling.
// RUN: rm -rf %t.cache
// RUN: env TILEJIT_CACHE_DIR=%t.cache tilejit run merge_attn_states --target host --iterations 0 --shape num_tokens=16 --shape num_heads=8 | FileCheck %s --check-prefix=FIRST
// RUN: env TILEJIT_CACHE_DIR=%t.cache tilejit run merge_attn_states --target host --iterations 0 --shape num_tokens=16 --shape num_heads=8 | FileCheck %s --check-prefix=SECOND
// RUN: env TILEJIT_CACHE_DIR=%t.cache tilejit cache ls | FileCheck %s --check-prefix=LS
// FIRST: merge_attn_states miss pass
// SECOND: merge_attn_states hit pass
// LS: merge_attn_states
