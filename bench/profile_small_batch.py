"""Where the time of a small-batch decode goes: the split-K kernel alone, the partition merge
alone, and both back to back (the benchmark's figure), per partition size and block_n, timed
like bench_decode.py (bench/peers/common.py: events, median, L2 flushed). Cells from CELLS
(default: the batch-1 and batch-16 short-context cells, where the peers win).

    PYTHONPATH=python:bench/peers OUT=... python3 bench/profile_small_batch.py
"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "peers"))
from common import bench  # noqa: E402
from decode_data import decode_inputs, merge_heads, merge_step  # noqa: E402

import tilejit  # noqa: E402

OUT = os.environ.get("OUT", "/tmp/out")
D, BS = 128, 16
CELLS = os.environ.get("CELLS", "32/8:1:1024,32/32:1:1024,64/8:1:4096,32/8:16:1024,32/32:16:1024")
PARTITIONS = [int(p) for p in os.environ.get("PARTITIONS", "64,128,256,512").split(",")]
BLOCK_NS = [int(n) for n in os.environ.get("BLOCK_NS", "32,64").split(",")]
DECODE_PARAMS = json.loads(os.environ.get("DECODE_PARAMS", "{}"))
REDUCE_PARAMS = json.loads(os.environ.get("REDUCE_PARAMS", "{}"))
jit = tilejit.Jit()


def main():
    log = open(os.path.join(OUT, "small_batch.jsonl"), "a")
    for cell in CELLS.split(","):
        heads, b, ctx = cell.split(":")
        hq, hkv = (int(h) for h in heads.split("/"))
        b, ctx = int(b), int(ctx)
        data = decode_inputs(b, ctx, hq, hkv, D, BS)
        slopes = torch.zeros(hq, dtype=torch.float32, device="cuda")
        arrivals = torch.zeros(b, hkv, dtype=torch.int32, device="cuda")
        out = torch.empty(b, hq, D, dtype=torch.bfloat16, device="cuda")
        for partition in PARTITIONS:
            for block_n in BLOCK_NS:
                if partition % block_n:
                    continue
                common = dict(dtype="bf16", head_size=D, gqa_ratio=hq // hkv, q_rows=16,
                              partition_size=partition)
                dec = jit.load("paged_decode", block_size=BS, block_n=block_n, num_warps=4,
                               **DECODE_PARAMS, **common)
                parts = max(1, math.ceil(ctx / partition))
                red = jit.load("paged_decode_reduce", **dict(dict(
                    dtype="bf16", head_size=D, partition_size=partition,
                    partitions_per_step=merge_step(parts), heads_per_program=merge_heads(b, hq, merge_step(parts))),
                    **REDUCE_PARAMS))
                p_out = torch.empty(b, parts, hq, D, dtype=torch.float32, device="cuda")
                p_lse = torch.empty(b, parts, hq, dtype=torch.float32, device="cuda")
                dargs = dec.make_args(out, p_out, p_lse, data.q, data.k_cache, data.v_cache, data.table,
                                      data.lens, slopes, arrivals, 1 / math.sqrt(D), 0.0, 0)
                rargs = red.make_args(out, p_out, p_lse, data.lens)
                rec = dict(hq=hq, hkv=hkv, batch=b, ctx=ctx, partition=partition, block_n=block_n)
                for name, fn in (("decode", lambda: dec.launch_args(dargs)),
                                 ("reduce", lambda: red.launch_args(rargs)),
                                 ("both", lambda: (dec.launch_args(dargs), red.launch_args(rargs)))):
                    rec[name + "_us"] = round(bench(fn)["median_ms"] * 1e3, 2)
                log.write(json.dumps(rec) + "\n")
                log.flush()
                print(rec, flush=True)
        del data
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
