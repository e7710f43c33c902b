// Nothing on the command line is silently ignored: flags a command does not take, repeated
// flags and parameters, out-of-range numbers and problems too large for memory are errors that
// name them (exit 2; a problem that does not fit fails its check, exit 1), before anything runs.
// RUN: not tilejit run merge_attn_states --emit cpp 2>&1 | FileCheck %s --check-prefix=RUN-EMIT
// RUN: not tilejit compile merge_attn_states --shape num_tokens=4 2>&1 | FileCheck %s --check-prefix=COMPILE-SHAPE
// RUN: not tilejit run merge_attn_states -p head_size=64 -p head_size=128 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not tilejit run merge_attn_states --shape num_tokens=4 --shape num_tokens=8 2>&1 | FileCheck %s --check-prefix=SHAPE-TWICE
// RUN: not tilejit run merge_attn_states --target host --target sm_90 2>&1 | FileCheck %s --check-prefix=TARGET-TWICE
// RUN: not tilejit run merge_attn_states --shape num_tokens=10000000000 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not tilejit run merge_attn_states --iterations -1 2>&1 | FileCheck %s --check-prefix=ITERATIONS
// RUN: not tilejit targets --jsn 2>&1 | FileCheck %s --check-prefix=TARGETS
// RUN: rm -rf %t.cache && not env TILEJIT_CACHE_DIR=%t.cache tilejit run merge_attn_states --target host --iterations 0 --shape num_tokens=2147483647 2>&1 | FileCheck %s --check-prefix=MEMORY
// RUN-EMIT: error: run does not take --emit
// COMPILE-SHAPE: error: compile does not take --shape
// TWICE: error: parameter 'head_size' given twice (-p head_size=64 and -p head_size=128)
// SHAPE-TWICE: error: shape symbol 'num_tokens' given twice
// TARGET-TWICE: error: option --target given twice
// RANGE: error: --shape num_tokens=10000000000: not a size from 0 to 2147483647
// ITERATIONS: error: --iterations expects a count from 0 to 1000000, got '-1'
// TARGETS: error: targets does not take '--jsn' (it takes --json)
// MEMORY: merge_attn_states FAILED: the problem's host tensors do not fit in this machine's memory
