"""tilejit.Op through the C ABI on the CPU device, without torch: merge_attn_states by name on
random states (a prefix that is empty for one token, its outputs NaN), outputs NaN-poisoned,
compared with a float64 reference; then a call with too few arguments."""
import math
import random

import tilejit
from host_buffer import Buffer


rng = random.Random(3)
TOKENS, HEADS, DIM = 5, 2, 64
jit = tilejit.Jit(cpu=True)
op = tilejit.Op(jit, "merge_attn_states", head_size=DIM)
print("arguments", op.arguments, "workspaces", op.workspaces())
n = TOKENS * HEADS * DIM
prefix = [rng.gauss(0, 1) for _ in range(n)]
suffix = [rng.gauss(0, 1) for _ in range(n)]
prefix_lse = [rng.gauss(0, 2) for _ in range(HEADS * TOKENS)]
suffix_lse = [rng.gauss(0, 2) for _ in range(HEADS * TOKENS)]
prefix_lse[1] = -math.inf  # head 0, token 1: the prefix is empty and its outputs NaN
for d in range(DIM):
    prefix[(1 * HEADS + 0) * DIM + d] = math.nan
bufs = [Buffer("bfloat16", (TOKENS, HEADS, DIM), [math.nan] * n),
        Buffer("float32", (HEADS, TOKENS), [math.nan] * (HEADS * TOKENS)),
        Buffer("bfloat16", (TOKENS, HEADS, DIM), prefix), Buffer("float32", (HEADS, TOKENS), prefix_lse),
        Buffer("bfloat16", (TOKENS, HEADS, DIM), suffix), Buffer("float32", (HEADS, TOKENS), suffix_lse)]
op(*bufs)
p, s = bufs[2].values(), bufs[4].values()
worst = 0.0
out, out_lse = bufs[0].values(), bufs[1].values()
for h in range(HEADS):
    for t in range(TOKENS):
        a, b = prefix_lse[h * TOKENS + t], suffix_lse[h * TOKENS + t]
        m = max(a, b)
        wa, wb = math.exp(a - m), math.exp(b - m)
        worst = max(worst, abs(out_lse[h * TOKENS + t] - (math.log(wa + wb) + m)))
        for d in range(DIM):
            i = (t * HEADS + h) * DIM + d
            ref = (wa * p[i] if wa > 0 else 0) / (wa + wb) + wb * s[i] / (wa + wb)
            worst = max(worst, abs(out[i] - ref) if out[i] == out[i] else math.inf)
print("merge", "ok" if worst < 2e-2 else f"error {worst}")
try:
    op(*bufs[:5])
except tilejit.TilejitError as error:
    print("error", error)
