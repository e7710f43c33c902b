"""tilejit.Bundle through the C ABI on the CPU device: lists a bundle written by `tilejit aot`,
loads merge_attn_states from it without compiling and runs it (equal LSEs: the outputs are
the inputs' mean), then asks for an entry it does not hold."""
import math
import sys

import tilejit
from host_buffer import Buffer

jit = tilejit.Jit(use_disk_cache=False, cpu=True)
bundle = tilejit.Bundle(sys.argv[1], jit)
for entry in bundle.entries():
    print("entry", entry["template"], entry["target"], "head_size=" + entry["parameters"]["head_size"])
merge = bundle.load("merge_attn_states", head_size=64)
TOKENS, HEADS, DIM = 2, 1, 64
n = TOKENS * HEADS * DIM
bufs = [Buffer("bfloat16", (TOKENS, HEADS, DIM), [math.nan] * n),
        Buffer("float32", (HEADS, TOKENS), [math.nan] * (HEADS * TOKENS)),
        Buffer("bfloat16", (TOKENS, HEADS, DIM), [1.0] * n), Buffer("float32", (HEADS, TOKENS), [0.5] * 2),
        Buffer("bfloat16", (TOKENS, HEADS, DIM), [2.0] * n), Buffer("float32", (HEADS, TOKENS), [0.5] * 2)]
merge(*bufs)
print("merge", sorted(set(bufs[0].values())))
try:
    bundle.load("merge_attn_states", head_size=256)
except tilejit.TilejitError as error:
    print("error", error)
