"""tilejit.Op("paged_decode") by name on the CPU device, without torch, over the arguments the
served models add: sinks (one logit per q head) and an fp8 e4m3fn cache with scales per kv
head (codes written as bytes), one sequence of 37 tokens, against a float64 reference."""
import ctypes
import math
import random

import tilejit
from host_buffer import Buffer

HEAD, BLOCK, KV_HEADS, RATIO, LEN = 64, 16, 2, 3, 37
Q_HEADS, BLOCKS = KV_HEADS * RATIO, 3
rng = random.Random(3)


def e4m3(code):
    """The value of an e4m3fn code (no NaN codes are drawn)."""
    sign, exponent, mantissa = -1.0 if code & 0x80 else 1.0, (code >> 3) & 15, code & 7
    return sign * (math.ldexp(mantissa, -9) if exponent == 0 else math.ldexp(8 + mantissa, exponent - 10))


class Codes(Buffer):
    """An fp8 e4m3fn buffer: one byte a code."""

    def __init__(self, shape, codes):
        self.dtype, self.shape = "float8_e4m3fn", tuple(shape)
        self.storage = (ctypes.c_uint8 * len(codes))(*codes)
        self._strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]


count = BLOCKS * BLOCK * KV_HEADS * HEAD
finite = [c for c in range(256) if c & 0x7f != 0x7f]  # every code but NaN
k_codes = [rng.choice(finite) for _ in range(count)]
v_codes = [rng.choice(finite) for _ in range(count)]
k_scales, v_scales = [0.01, 0.003], [0.02, 0.005]
q = [rng.gauss(0, 1) for _ in range(Q_HEADS * HEAD)]
sinks = [rng.uniform(-2, 4) for _ in range(Q_HEADS)]
table = [2, 0, 1]
jit = tilejit.Jit(cpu=True)
op = tilejit.Op(jit, "paged_decode", head_size=HEAD, gqa_ratio=RATIO, block_size=BLOCK, sinks=1,
                kv_cache_dtype="fp8_e4m3", kv_scale="per_head", partition_size=32, block_n=32)
query = Buffer("bfloat16", (1, Q_HEADS, HEAD), q)
named = dict(output=Buffer("bfloat16", (1, Q_HEADS, HEAD), [float("nan")] * (Q_HEADS * HEAD)), query=query,
             key_cache=Codes((BLOCKS, BLOCK, KV_HEADS, HEAD), k_codes),
             value_cache=Codes((BLOCKS, BLOCK, KV_HEADS, HEAD), v_codes),
             block_tables=Buffer("int32", (1, BLOCKS), table), seq_lens=Buffer("int32", (1,), [LEN]),
             alibi_slopes=Buffer("float32", (Q_HEADS,), [0.0] * Q_HEADS),
             sinks=Buffer("float32", (Q_HEADS,), sinks), k_scales=Buffer("float32", (KV_HEADS,), k_scales),
             v_scales=Buffer("float32", (KV_HEADS,), v_scales), scale=1 / math.sqrt(HEAD), soft_cap_value=0.0,
             sliding_window=0)
for name, w in op.workspaces(num_seqs=1, num_kv_heads=KV_HEADS, max_model_len=LEN).items():
    named[name] = Buffer(w["dtype"], w["shape"], [0] * math.prod(w["shape"]))
op(*(named[a] for a in op.arguments))


def cached(codes, scales, t, h, d):
    return e4m3(codes[((table[t // BLOCK] * BLOCK + t % BLOCK) * KV_HEADS + h) * HEAD + d]) * scales[h]


out = named["output"].values()
scale_of_output = max(abs(x) for x in out)
worst = 0.0
for qh in range(Q_HEADS):
    h, qv = qh // RATIO, query.values()[qh * HEAD:(qh + 1) * HEAD]
    logits = [sum(qv[d] * cached(k_codes, k_scales, t, h, d) for d in range(HEAD)) / math.sqrt(HEAD) for t in range(LEN)]
    top = max(logits + [sinks[qh]])
    weights = [math.exp(x - top) for x in logits]
    total = sum(weights) + math.exp(sinks[qh] - top)
    for d in range(HEAD):
        want = sum(w * cached(v_codes, v_scales, t, h, d) for t, w in enumerate(weights)) / total
        worst = max(worst, abs(out[qh * HEAD + d] - want) / scale_of_output)
print("decode_models", "ok" if worst < 2e-2 else f"error {worst}")
