// tilejit.Op("paged_decode") by name from Python over sinks and an fp8 cache with scales per
// kv head (Inputs/decode_models_op.py: codes as bytes, a float64 reference).
// RUN: rm -rf %t.cache
// RUN: env TILEJIT_CACHE_DIR=%t.cache TILEJIT_LIB=%tilejit_lib PYTHONPATH=%python:%S/Inputs python3 %S/Inputs/decode_models_op.py | FileCheck %s
// CHECK: decode_models ok
