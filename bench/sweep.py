"""Tuning sweep on the GPU (the measured table behind the target's tuning constants):
variants of the tile/launch parameters of each template on representative shapes, timed as
in bench/peers/common.py. Writes $OUT/sweep.jsonl and prints the best variant per shape.

    PYTHONPATH=python:bench/peers python3 bench/sweep.py [memory] [decode]
"""
import itertools
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "peers"))
from common import bench  # noqa: E402

import tilejit  # noqa: E402
from decode_data import decode_inputs  # noqa: E402

OUT = os.environ.get("OUT", "/tmp/out")
jit = tilejit.Jit()
results = []


def record(rec):
    results.append(rec)
    with open(os.path.join(OUT, "sweep.jsonl"), "a") as f:
        f.write(json.dumps(rec) + "\n")


def time_us(fn):
    return bench(fn)["median_ms"] * 1e3


def sweep_memory():
    H, D = 32, 128
    for N in (4096, 32768):
        p = torch.randn(N, H, D, device="cuda").to(torch.bfloat16)
        s = torch.randn(N, H, D, device="cuda").to(torch.bfloat16)
        pl, sl = torch.randn(H, N, device="cuda"), torch.randn(H, N, device="cuda")
        out, ol = torch.empty_like(p), torch.empty_like(pl)
        nbytes = 3 * N * H * D * 2 + 3 * H * N * 4
        for hpp, warps in itertools.product((8, 16, 32), (2, 4, 8)):
            k = jit.load("merge_attn_states", heads_per_program=hpp, num_warps=warps)
            a = k.make_args(out, ol, p, pl, s, sl)
            us = time_us(lambda: k.launch_args(a))
            record(dict(item="merge", N=N, heads_per_program=hpp, num_warps=warps, us=us,
                        TBps=nbytes / us / 1e6))
    NB, BS, HK = 16384, 16, 8
    kc = torch.empty(NB, BS, HK, D, dtype=torch.bfloat16, device="cuda").normal_()
    vc = torch.empty_like(kc).normal_()
    for N in (4096, 32768):
        key = torch.randn(N, HK, D, device="cuda").to(torch.bfloat16)
        val = torch.randn(N, HK, D, device="cuda").to(torch.bfloat16)
        slot = torch.randperm(NB * BS, device="cuda")[:N].contiguous()
        moved = 4 * N * HK * D * 2
        for tpp, warps in itertools.product((1, 2, 4, 8), (1, 2, 4)):
            k = jit.load("reshape_and_cache", tokens_per_program=tpp, num_warps=warps, heads_per_tile=8)
            a = k.make_args(key, val, kc, vc, slot)
            us = time_us(lambda: k.launch_args(a))
            record(dict(item="cache", N=N, tokens_per_program=tpp, num_warps=warps, us=us,
                        TBps=moved / us / 1e6))


def sweep_decode():
    D, BS = 128, 16
    cells = [(32, 8, 1, 16384), (32, 8, 16, 4096), (32, 8, 64, 16384), (32, 32, 64, 4096),
             (64, 8, 256, 4096)]
    for hq, hkv, b, ctx in cells:
        data = decode_inputs(b, ctx, hq, hkv, D, BS)
        kc, vc, table, lens, q = data.k_cache, data.v_cache, data.table, data.lens, data.q
        out = torch.empty_like(q)
        slopes = torch.zeros(hq, device="cuda")
        arrivals = torch.zeros(b, hkv, dtype=torch.int32, device="cuda")
        kv_bytes = b * ctx * hkv * D * 4
        for bn, warps, part in itertools.product((32, 64, 128), (4, 8), (256, 1024)):
            common = dict(gqa_ratio=hq // hkv, q_rows=16, partition_size=part)
            try:
                dec = jit.load("paged_decode", block_n=bn, num_warps=warps, **common)
                red = jit.load("paged_decode_reduce", partition_size=part)
            except tilejit.TilejitError as e:
                record(dict(item="decode", error=str(e)[:200], template="shipped", block_n=bn))
                continue
            parts = math.ceil(ctx / part)
            po = torch.empty(b, parts, hq, D, device="cuda")
            pl = torch.empty(b, parts, hq, device="cuda")
            da = dec.make_args(out, po, pl, q, kc, vc, table, lens, slopes, arrivals, 1 / math.sqrt(D), 0.0, 0)
            ra = red.make_args(out, po, pl, lens)
            us = time_us(lambda: (dec.launch_args(da), red.launch_args(ra)))
            record(dict(item="decode", hq=hq, hkv=hkv, batch=b, ctx=ctx, template="shipped",
                        block_n=bn, num_warps=warps, partition_size=part, us=us,
                        TBps=kv_bytes / us / 1e6, registers=dec.info.registers))
        del kc, vc, data
        torch.cuda.empty_cache()


def sweep_occupancy():
    """min_blocks_per_sm: registers capped by __launch_bounds__ (spills) vs occupancy."""
    H, D, N = 32, 128, 32768
    p = torch.randn(N, H, D, device="cuda").to(torch.bfloat16)
    s = torch.randn_like(p)
    pl, sl = torch.randn(H, N, device="cuda"), torch.randn(H, N, device="cuda")
    out, ol = torch.empty_like(p), torch.empty_like(pl)
    nbytes = 3 * N * H * D * 2 + 3 * H * N * 4
    for m in (0, 10, 12, 16):
        k = jit.load("merge_attn_states", min_blocks_per_sm=m)
        a = k.make_args(out, ol, p, pl, s, sl)
        us = time_us(lambda: k.launch_args(a))
        record(dict(item="occ_merge", N=N, min_blocks_per_sm=m, registers=k.info.registers, us=us,
                    TBps=nbytes / us / 1e6))
    NB, BS, HK = 16384, 16, 8
    kc = torch.empty(NB, BS, HK, D, dtype=torch.bfloat16, device="cuda").normal_()
    vc = torch.empty_like(kc).normal_()
    key = torch.randn(N, HK, D, device="cuda").to(torch.bfloat16)
    val = torch.randn_like(key)
    slot = torch.randperm(NB * BS, device="cuda")[:N].contiguous()
    for m in (0, 16, 24, 32):
        k = jit.load("reshape_and_cache", min_blocks_per_sm=m)
        a = k.make_args(key, val, kc, vc, slot)
        us = time_us(lambda: k.launch_args(a))
        record(dict(item="occ_cache", N=N, min_blocks_per_sm=m, registers=k.info.registers, us=us,
                    TBps=4 * N * HK * D * 2 / us / 1e6))
    del kc, vc
    b, ctx, hq, hkv = 64, 4096, 32, 8
    data = decode_inputs(b, ctx, hq, hkv, D, BS)
    kc, vc, table, lens, q = data.k_cache, data.v_cache, data.table, data.lens, data.q
    o = torch.empty_like(q)
    po = torch.empty(b, 4, hq, D, device="cuda")
    plse = torch.empty(b, 4, hq, device="cuda")
    red = jit.load("paged_decode_reduce")
    ra = red.make_args(o, po, plse, lens)
    # make_args keeps pointers only: the tensors live here as long as the arguments.
    slopes = torch.zeros(hq, device="cuda")
    arrivals = torch.zeros(b, hkv, dtype=torch.int32, device="cuda")
    for m in (0, 5, 6, 8):
        dec = jit.load("paged_decode", gqa_ratio=4, min_blocks_per_sm=m)
        da = dec.make_args(o, po, plse, q, kc, vc, table, lens, slopes, arrivals, 1 / math.sqrt(D), 0.0, 0)
        us = time_us(lambda: (dec.launch_args(da), red.launch_args(ra)))
        record(dict(item="occ_decode", min_blocks_per_sm=m, registers=dec.info.registers, us=us,
                    TBps=b * ctx * hkv * D * 4 / us / 1e6))


def main():
    steps = sys.argv[1:] or ["memory", "decode"]
    if "memory" in steps:
        sweep_memory()
    if "decode" in steps:
        sweep_decode()
    if "occupancy" in steps:
        sweep_occupancy()
        for r in results:
            print(r)
    best = {}
    for r in results:
        if "us" not in r:
            continue
        key = (r["item"], r.get("N"), r.get("hq"), r.get("hkv"), r.get("batch"), r.get("ctx"))
        if key not in best or r["us"] < best[key]["us"]:
            best[key] = r
    for key, r in best.items():
        print(key, {k: v for k, v in r.items() if k not in ("item",)})


if __name__ == "__main__":
    main()
