"""Launches the split-K decode kernel and its merge once per cell, for Nsight Compute:
    CELLS="32/8:16:1024:256:32,64/8:256:16384:4096:32" \\
    ncu --kernel-name regex:tj_ --section SpeedOfLight --section WarpStateStats \\
        --section MemoryWorkloadAnalysis --section Occupancy python3 bench/ncu_decode_cells.py
Cells are heads:batch:context:partition_size:block_n[:prefetch_depth] (bf16, head 128,
block 16). KV_LAYOUT=shuffled reads shuffled copies of the caches. MERGE picks how the
partitions merge: 0 the merge kernel (default), 1 the split-K kernel's last program
(merge_in_kernel), c a thread-block cluster of the partitions (sm_90; no merge kernel).
PEER=1 also launches vLLM's decode_attention_fwd (4 splits; PEERS_DIR as for bench_decode.py) on the same data,
for `--kernel-name regex:"tj_|_fwd_"`.
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from decode_data import decode_inputs, merge_heads, merge_step, shuffled_caches  # noqa: E402

import tilejit  # noqa: E402

D, BS = 128, 16
PEER = os.environ.get("PEER") == "1"
KV_LAYOUT = os.environ.get("KV_LAYOUT", "standard")
MERGE = os.environ.get("MERGE", "0")
if MERGE not in ("0", "1", "c"):
    sys.exit(f"MERGE={MERGE!r}: want 0, 1 or c")
if PEER:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "peers"))
    import common  # noqa: F401,E402  (puts PEERS_DIR on the path)
    from vllm_triton_decode_attention import decode_attention_fwd  # noqa: E402
jit = tilejit.Jit()
for cell in os.environ.get("CELLS", "32/8:16:1024:256:32").split(","):
    heads, b, ctx, partition, block_n, *depth = cell.split(":")
    hq, hkv = (int(h) for h in heads.split("/"))
    b, ctx, partition, block_n = int(b), int(ctx), int(partition), int(block_n)
    depth = int(depth[0]) if depth else 1
    data = decode_inputs(b, ctx, hq, hkv, D, BS)
    parts = max(1, math.ceil(ctx / partition))
    dec = jit.load("paged_decode", dtype="bf16", head_size=D, block_size=BS, gqa_ratio=hq // hkv,
                   q_rows=16, partition_size=partition, block_n=block_n, num_warps=4,
                   prefetch_depth=depth, kv_layout=KV_LAYOUT,
                   merge_in_kernel=int(MERGE == "1"), cluster_size=parts if MERGE == "c" else 1)
    red = jit.load("paged_decode_reduce", dtype="bf16", head_size=D, partition_size=partition,
                   partitions_per_step=merge_step(parts), heads_per_program=merge_heads(b, hq, merge_step(parts)))
    out = torch.empty(b, hq, D, dtype=torch.bfloat16, device="cuda")
    p_out = torch.empty(b, parts, hq, D, dtype=torch.float32, device="cuda")
    p_lse = torch.empty(b, parts, hq, dtype=torch.float32, device="cuda")
    k, v = (shuffled_caches(data.k_cache, data.v_cache) if KV_LAYOUT == "shuffled"
            else (data.k_cache, data.v_cache))
    dec(out, p_out, p_lse, data.q, k, v, data.table, data.lens,
        torch.zeros(hq, device="cuda"), torch.zeros(b, hkv, dtype=torch.int32, device="cuda"),
        1 / math.sqrt(D), 0.0, 0)
    if MERGE == "0":
        red(out, p_out, p_lse, data.lens)
    if PEER:
        lse = torch.empty(b, hq, dtype=torch.float32, device="cuda")
        logits = torch.empty(b, hq, 4, D + 1, dtype=torch.float32, device="cuda")
        decode_attention_fwd(data.q, data.k_cache, data.v_cache, out, lse, data.table.to(torch.int64),
                             data.lens, logits, 4, 1 / math.sqrt(D), page_size=BS)
    torch.cuda.synchronize()
    print("launched", cell, flush=True)
    del data
    torch.cuda.empty_cache()
