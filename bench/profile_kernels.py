"""Launches each tuned kernel once on a benchmark shape, for Nsight Compute:
    ncu --kernel-name regex:tj_ --section SpeedOfLight --section Occupancy \
        --section WarpStateStats --section SchedulerStats --section LaunchStats \
        python3 bench/profile_kernels.py
"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import tilejit  # noqa: E402
from decode_data import decode_inputs  # noqa: E402

jit = tilejit.Jit()
H, D = 32, 128
N = 32768
p = torch.randn(N, H, D, device="cuda").to(torch.bfloat16)
s = torch.randn_like(p)
pl, sl = torch.randn(H, N, device="cuda"), torch.randn(H, N, device="cuda")
out, ol = torch.empty_like(p), torch.empty_like(pl)
merge = jit.load("merge_attn_states")
merge(out, ol, p, pl, s, sl)

NB, BS, HK = 16384, 16, 8
kc = torch.empty(NB, BS, HK, D, dtype=torch.bfloat16, device="cuda").normal_()
vc = torch.empty_like(kc).normal_()
key = torch.randn(N, HK, D, device="cuda").to(torch.bfloat16)
val = torch.randn_like(key)
slot = torch.randperm(NB * BS, device="cuda")[:N].contiguous()
cache = jit.load("reshape_and_cache")
cache(key, val, kc, vc, slot)

b, ctx, hq, hkv = 64, 4096, 32, 8
data = decode_inputs(b, ctx, hq, hkv, D, BS)
kc2, vc2, table, lens, q = data.k_cache, data.v_cache, data.table, data.lens, data.q
o = torch.empty_like(q)
# Extra paged_decode parameters for experiments, e.g. '{"min_blocks_per_sm": 4}'.
dec = jit.load("paged_decode", gqa_ratio=4, **json.loads(os.environ.get("DECODE_PARAMS", "{}")))
red = jit.load("paged_decode_reduce")
parts = math.ceil(ctx / 1024)
po = torch.empty(b, parts, hq, D, device="cuda")
plse = torch.empty(b, parts, hq, device="cuda")
dec(o, po, plse, q, kc2, vc2, table, lens, torch.zeros(hq, device="cuda"),
    torch.zeros(b, hkv, dtype=torch.int32, device="cuda"), 1 / math.sqrt(D), 0.0, 0)
red(o, po, plse, lens)
torch.cuda.synchronize()
print("launched merge, reshape_and_cache, paged_decode, paged_decode_reduce")
