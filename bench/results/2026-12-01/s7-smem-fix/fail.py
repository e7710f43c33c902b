# Which merge_in_kernel specializations fail to launch at GQA 4, and with what resources.
import os, sys, torch
sys.path.insert(0, "bench"); sys.path.insert(0, "bench/peers")
import tilejit
from decode_data import decode_inputs
jit = tilejit.Jit()
b, ctx, hkv, D = 1, 1024, 8, 128
data = decode_inputs(b, ctx, 32, hkv, D, 16, "cuda")
arrivals = torch.zeros(b, hkv, dtype=torch.int32, device="cuda")
for ratio in (4, 8):
  for p in (64, 128, 1024):
    for n in (32, 64):
      for m in (0, 1):
        hq = hkv * ratio
        q = torch.randn(b, hq, D, dtype=torch.bfloat16, device="cuda")
        out = torch.empty(b, hq, D, dtype=torch.bfloat16, device="cuda")
        slopes = torch.zeros(hq, dtype=torch.float32, device="cuda")
        parts = max(1, -(-ctx // p))
        k = jit.load("paged_decode", dtype="bf16", head_size=D, gqa_ratio=ratio, q_rows=16, partition_size=p,
                     block_size=16, block_n=n, num_warps=4, prefetch_depth=1, merge_in_kernel=m)
        po = torch.empty(b, parts, hq, D, dtype=torch.float32, device="cuda")
        pl = torch.empty(b, parts, hq, dtype=torch.float32, device="cuda")
        try:
            k(out, po, pl, q, data.k_cache, data.v_cache, data.table, data.lens, slopes, arrivals, 0.1, 0.0, 0)
            torch.cuda.synchronize(); res = "ok"
        except Exception as e:
            res = repr(e)[:120]
        print(f"ratio {ratio} p{p} n{n} m{m} hit={k.info.cache_hit} regs={k.info.registers}: {res}", flush=True)
