"""A loaded kernel lists its arguments (names, dtypes, shapes, direction) and takes them by
name: merge_attn_states called with its arguments in a shuffled keyword order gives the same
result as in order; a missing or unknown name is an error listing the arguments."""
import math

import tilejit
from host_buffer import Buffer

jit = tilejit.Jit(use_disk_cache=False, cpu=True)
merge = jit.load("merge_attn_states", head_size=64)
for a in merge.arguments:
    print("arg", a["name"], a["dtype"], a["shape"], "writes" if a["writes"] else "reads")
TOKENS, HEADS, DIM = 2, 1, 64
n = TOKENS * HEADS * DIM
def buffers():
    return {"output": Buffer("bfloat16", (TOKENS, HEADS, DIM), [math.nan] * n),
            "output_lse": Buffer("float32", (HEADS, TOKENS), [math.nan] * 2),
            "prefix_output": Buffer("bfloat16", (TOKENS, HEADS, DIM), [1.0] * n),
            "prefix_lse": Buffer("float32", (HEADS, TOKENS), [0.5] * 2),
            "suffix_output": Buffer("bfloat16", (TOKENS, HEADS, DIM), [2.0] * n),
            "suffix_lse": Buffer("float32", (HEADS, TOKENS), [0.5, 0.5])}
named = buffers()
merge(**{k: named[k] for k in reversed(list(named))})
print("by name", sorted(set(named["output"].values())))
try:
    merge(output=named["output"])
except tilejit.TilejitError as error:
    print("error", error)
