"""tilejit.PagedDecode through the C ABI on the CPU device, without torch: tensors are ctypes
buffers behind a minimal tensor-like class. Two sequences (5 and 77 tokens: one and two
64-token partitions) behind a shuffled block table, NaN in every block a sequence does not
own and past each sequence's end, compared with a float64 reference, with the merge kernel
and with the merge in the split-K kernel (twice each). Then the errors."""
import math
import random
import sys

import tilejit
from host_buffer import Buffer


rng = random.Random(7)
HEAD, BLOCK, KV_HEADS, RATIO = 64, 16, 2, 2
Q_HEADS = KV_HEADS * RATIO
lens = [5, 77]
tables = [[6, 0, 0, 0, 0], [0, 5, 2, 7, 1]]  # blocks 3 and 4 belong to nobody
NUM_BLOCKS = 8
owner = {6: (0, 0), 0: (1, 0), 5: (1, 1), 2: (1, 2), 7: (1, 3), 1: (1, 4)}  # block -> (sequence, logical)
nan = float("nan")


def cache_values():
    values = []
    for b in range(NUM_BLOCKS):
        for slot in range(BLOCK):
            for _ in range(KV_HEADS * HEAD):
                seq, logical = owner.get(b, (None, 0))
                token = logical * BLOCK + slot
                values.append(rng.gauss(0, 1) if seq is not None and token < lens[seq] else nan)
    return values


k_cache = Buffer("bfloat16", (NUM_BLOCKS, BLOCK, KV_HEADS, HEAD), cache_values())
v_cache = Buffer("bfloat16", (NUM_BLOCKS, BLOCK, KV_HEADS, HEAD), cache_values())
query = Buffer("bfloat16", (2, Q_HEADS, HEAD), [rng.gauss(0, 1) for _ in range(2 * Q_HEADS * HEAD)])
output = Buffer("bfloat16", (2, Q_HEADS, HEAD), [nan] * (2 * Q_HEADS * HEAD))
block_tables = Buffer("int32", (2, 5), [b for row in tables for b in row])
seq_lens = Buffer("int32", (2,), lens)
slopes = Buffer("float32", (Q_HEADS,), [0.0] * Q_HEADS)

jit = tilejit.Jit(cpu=True)
scale = 1 / math.sqrt(HEAD)


def worst_error():
    worst = 0.0
    for s, length in enumerate(lens):
        for h in range(Q_HEADS):
            kv = h // RATIO
            keys = [(tables[s][t // BLOCK], t % BLOCK) for t in range(length)]
            logits = [scale * sum(query.value((s, h, d)) * k_cache.value((b, slot, kv, d))
                                  for d in range(HEAD)) for b, slot in keys]
            top = max(logits)
            weights = [math.exp(x - top) for x in logits]
            total = sum(weights)
            expected = [sum(w * v_cache.value((b, slot, kv, d)) for w, (b, slot) in zip(weights, keys))
                        / total for d in range(HEAD)]
            got = [output.value((s, h, d)) for d in range(HEAD)]
            scale_ref = max(abs(x) for x in expected)
            worst = max([worst] + [abs(g - e) / scale_ref if g == g else float("inf")
                                   for g, e in zip(got, expected)])
    return worst


# Two kernels (split-K, then the merge), then one that merges itself (merge_in_kernel=1:
# the last partition of each (sequence, kv head) merges and leaves the counters at 0). Each
# op runs twice, outputs and partials poisoned before each run, the second time with the
# longer sequence cut to 70 tokens (still two partitions).
ops = {}
for tuning in (dict(), dict(merge_in_kernel=1)):
    op = tilejit.PagedDecode(jit, head_size=HEAD, gqa_ratio=RATIO, block_size=BLOCK,
                             partition_size=64, block_n=16, **tuning)
    ops[bool(tuning)] = op
    parts = op.max_partitions(max(lens))
    print("partition_size", op.partition_size, "max_partitions", parts, tuning)
    arrivals = Buffer("int32", (2, KV_HEADS), [0] * (2 * KV_HEADS))
    for run, length in enumerate((77, 70)):
        lens[1] = length
        seq_lens = Buffer("int32", (2,), lens)
        output = Buffer("bfloat16", (2, Q_HEADS, HEAD), [nan] * (2 * Q_HEADS * HEAD))
        partial_out = Buffer("float32", (2, parts, Q_HEADS, HEAD), [nan] * (2 * parts * Q_HEADS * HEAD))
        partial_lse = Buffer("float32", (2, parts, Q_HEADS), [nan] * (2 * parts * Q_HEADS))
        op(output, query, k_cache, v_cache, block_tables, seq_lens, partial_out, partial_lse, scale,
           alibi_slopes=slopes, arrivals=arrivals)
        worst = worst_error()
        print("run", run, "length", length, "rel L-inf", "ok" if worst < 2e-2 else f"FAILED {worst}",
              "arrivals", [arrivals.value((s, k)) for s in range(2) for k in range(KV_HEADS)])
lens[1] = 77
seq_lens = Buffer("int32", (2,), lens)

# A workspace of one partition for a sequence of two: both paths cut the context at the
# first partition alike, and the counters still end at 0.
cut = {}
for merge_here, op in ops.items():
    output = Buffer("bfloat16", (2, Q_HEADS, HEAD), [nan] * (2 * Q_HEADS * HEAD))
    partial_out = Buffer("float32", (2, 1, Q_HEADS, HEAD), [nan] * (2 * Q_HEADS * HEAD))
    partial_lse = Buffer("float32", (2, 1, Q_HEADS), [nan] * (2 * Q_HEADS))
    arrivals = Buffer("int32", (2, KV_HEADS), [0] * (2 * KV_HEADS))
    op(output, query, k_cache, v_cache, block_tables, seq_lens, partial_out, partial_lse, scale,
       alibi_slopes=slopes, arrivals=arrivals)
    cut[merge_here] = [output.value((s, h, d)) for s in range(2) for h in range(Q_HEADS) for d in range(HEAD)]
    print("one-partition workspace, merge_in_kernel", int(merge_here), "arrivals",
          [arrivals.value((s, k)) for s in range(2) for k in range(KV_HEADS)])
print("one-partition workspace, paths agree:", cut[False] == cut[True] and all(v == v for v in cut[True]))

for bad, kwargs in (("dtype", dict(dtype="f32")), ("head", dict(head_size=100))):
    try:
        tilejit.PagedDecode(jit, **dict(dict(head_size=HEAD, gqa_ratio=RATIO), **kwargs))
        print("error", bad, "MISSING")
    except tilejit.TilejitError as e:
        print("error", bad, str(e).splitlines()[0])
wrong_query = Buffer("bfloat16", (2, Q_HEADS, 32))
try:
    op(output, wrong_query, k_cache, v_cache, block_tables, seq_lens, partial_out, partial_lse,
       scale, alibi_slopes=slopes, arrivals=arrivals)
    print("error shape MISSING")
except tilejit.TilejitError as e:
    print("error shape", str(e).splitlines()[0])
sys.exit(0)
