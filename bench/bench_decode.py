"""Paged decode on the H200: tilejit against vLLM's Triton `unified_attention` and
`decode_attention_fwd` (4 and 16 splits) and cuDNN SDPA on contiguous copies of the same K/V
(`cudnn_contiguous`, reported beside the vLLM peers: decode_cells.py), in the same process, on the same data, timed the
same way (bench/peers/common.py: one event pair per iteration, median, L2 flushed).

Cells: bf16, head 128, block 16, q/kv heads 32/32, 32/8, 64/8, batch 1/16/64/256,
context 1K/4K/16K (skip cells whose KV cache exceeds 60 GB; CELLS picks some). tilejit runs
once per variant: partition size (PARTITIONS) x block_n (BLOCK_NS) x prefetch depth (DEPTHS)
x warps (WARPS), the sweep the target's measured table is read from; its time is the split-K
kernel plus the partition merge, back to back. Every variant is listed per cell, then the
summary (best variant against the best peer). `tilejit_op` is tilejit.PagedDecode
told the grid (what an engine gets: the table's tiling and the merge's rules). PARTITIONS=""
times the op alone (no swept variants); PEERS=0 leaves the peers out (the A/B of two builds
times them in one of its runs only).

    PYTHONPATH=python:bench/peers PEERS_DIR=.peers OUT=... python3 bench/bench_decode.py
"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "peers"))
from common import bench, decode_peers, decode_reference as reference, read_ceiling, rel_err  # noqa: E402
from decode_data import decode_inputs, merge_heads, merge_step, shuffled_caches  # noqa: E402
from decode_goals import cell_name, peer_times  # noqa: E402

import tilejit  # noqa: E402

OUT = os.environ.get("OUT", "/tmp/out")
os.makedirs(OUT, exist_ok=True)
BS, NSEG, LIMIT = 16, 16, 60e9
# Head size (the matrix is head 128; HEAD_SIZE=192/256 measures the larger heads).
D = int(os.environ.get("HEAD_SIZE", "128"))
PARTITIONS = [int(p) for p in os.environ.get("PARTITIONS", "64,128,256,512,1024,2048,4096").split(",") if p]
BLOCK_NS = [int(n) for n in os.environ.get("BLOCK_NS", "32,64").split(",")]
# K/V tiles in flight ahead of the one in use (paged_decode's prefetch_depth).
DEPTHS = [int(d) for d in os.environ.get("DEPTHS", "1").split(",")]
# Warps per program (paged_decode's num_warps; the table's kernels use 4).
WARPS = [int(w) for w in os.environ.get("WARPS", "4").split(",")]
# How partitions merge: 0 the merge kernel; 1 the split-K kernel's last program
# (merge_in_kernel); c a thread-block cluster of the sequence's partitions (cluster_size =
# partitions; variants whose partitions do not fit one cluster of 2..8 are skipped).
MERGES = [m if m == "c" else int(m) for m in os.environ.get("MERGE_IN_KERNEL", "0").split(",")]
VARIANTS = [(p, n, d, w, m) for p in PARTITIONS for n in BLOCK_NS for d in DEPTHS for w in WARPS
            for m in MERGES]
CELLS = os.environ.get("CELLS")  # e.g. "32/8:1:1024" to run a subset
PEERS = os.environ.get("PEERS", "1") != "0"
# A template file to load instead of the shipped paged_decode (experiments; the op keeps
# the shipped one).
DECODE_TEMPLATE = os.environ.get("DECODE_TEMPLATE", "paged_decode")
# Extra paged_decode parameters for experiments, e.g. '{"min_blocks_per_sm": 4}'.
DECODE_PARAMS = json.loads(os.environ.get("DECODE_PARAMS", "{}"))
# "shuffled": tilejit reads K/V in the shuffled layout (CONTEXT.md section 5; copies of the
# same caches), the peers the standard one. "hnd" (a measurement of memory order, not a layout
# of the issue): tilejit reads copies stored heads-major within a block ([blocks, kv heads,
# block, head], as FlashInfer keeps them), through views of the standard shape whose strides
# say so; a (block, head)'s rows are then one run of memory instead of one row per token.
KV_LAYOUT = os.environ.get("KV_LAYOUT", "standard")
if KV_LAYOUT not in ("standard", "shuffled", "hnd"):
    sys.exit(f"KV_LAYOUT={KV_LAYOUT!r}: want 'standard', 'shuffled' or 'hnd'")
TJ_LAYOUT = "standard" if KV_LAYOUT == "hnd" else KV_LAYOUT
# HEAD_PACK=2 (a measurement of memory order, tilejit's variants only, not the op): each
# program reads two adjacent kv heads as one head of twice the size - a [blocks, block, kv
# heads / 2, 2 x head] view of the standard cache, so a program's share of a token row is one
# run of 2 x head elements - with each q head zero outside its own kv head's half: the dot's
# other half adds 0, and the output's other half (the wrong head's values) is dropped.
HEAD_PACK = int(os.environ.get("HEAD_PACK", "1"))
if HEAD_PACK not in (1, 2) or (HEAD_PACK == 2 and KV_LAYOUT != "standard"):
    sys.exit(f"HEAD_PACK={HEAD_PACK}: want 1, or 2 with the standard layout")
# Extra paged_decode_reduce parameters, e.g. '{"partitions_per_step": 8, "num_warps": 2}'.
REDUCE_PARAMS = json.loads(os.environ.get("REDUCE_PARAMS", "{}"))
jit = tilejit.Jit()
_kernels = {}


def variant_name(partition, block_n, depth, warps, merge):
    return (f"p{partition}_n{block_n}" + (f"_d{depth}" if depth > 1 else "")
            + (f"_w{warps}" if warps != 4 else "")
            + ("_c" if merge == "c" else "_m" if merge else ""))


def kernels(ratio, partition, block_n, depth, warps, merge, partitions, merge_head_count, head_size=D):
    key = (ratio, partition, block_n, depth, warps, merge, merge_step(partitions), merge_head_count,
           partitions if merge == "c" else None, head_size)
    if key not in _kernels:
        common = dict(dtype="bf16", head_size=head_size, gqa_ratio=ratio, q_rows=16,
                      partition_size=partition)
        merging = dict(cluster_size=partitions) if merge == "c" else dict(merge_in_kernel=merge)
        params = dict(dict(block_size=BS, block_n=block_n, num_warps=warps, prefetch_depth=depth,
                           kv_layout=TJ_LAYOUT, **merging),
                      **DECODE_PARAMS)
        dec = jit.load(DECODE_TEMPLATE, **params, **common)
        # No merge kernel where the split-K kernel merges itself.
        red = None if merge else jit.load("paged_decode_reduce", **dict(dict(
            dtype="bf16", head_size=head_size, partition_size=partition,
            partitions_per_step=merge_step(partitions), heads_per_program=merge_head_count),
            **REDUCE_PARAMS))
        _kernels[key] = (dec, red)
    return _kernels[key]


def write(rec):
    with open(os.path.join(OUT, "decode_tilejit.jsonl"), "a") as f:
        f.write(json.dumps(rec) + "\n")


def run_case(hq, hkv, b, ctx):
    kv_bytes = b * ctx * hkv * D * 2 * 2
    rec = dict(hq=hq, hkv=hkv, batch=b, ctx=ctx, kv_bytes=kv_bytes)
    if kv_bytes > LIMIT:
        rec["skipped"] = f"KV cache {kv_bytes/1e9:.1f} GB > {LIMIT/1e9:.0f} GB"
        write(rec)
        return rec
    dev = "cuda"
    data = decode_inputs(b, ctx, hq, hkv, D, BS, dev)
    k_cache, v_cache, block_table, seq_lens, q = data.k_cache, data.v_cache, data.table, data.lens, data.q
    del data
    scale = 1.0 / math.sqrt(D)
    out = torch.empty(b, hq, D, dtype=torch.bfloat16, device=dev)
    refs = {s: reference(q, k_cache, v_cache, block_table, seq_lens, s, scale) for s in sorted({0, b - 1})}

    def check(o):
        if not torch.isfinite(o.float()).all():
            return float("nan")
        return max(rel_err(o[s], r) for s, r in refs.items())

    def timed(name, fn, timed_fn=None):
        try:
            timed_or_raise(name, fn, timed_fn or fn)
        except Exception as e:  # noqa: BLE001  (a peer without this shape loses its row, not the cell)
            rec[f"{name}_error"] = repr(e)[:300]

    def timed_or_raise(name, fn, timed_fn):
        out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        rec[f"{name}_relerr"] = check(out)
        r = bench(timed_fn)
        rec[f"{name}_us"] = r["median_ms"] * 1e3
        rec[f"{name}_TBps"] = kv_bytes / (r["median_ms"] * 1e-3) / 1e12
        rec[name] = r

    if KV_LAYOUT == "shuffled":
        tj_k, tj_v = shuffled_caches(k_cache, v_cache)
    elif KV_LAYOUT == "hnd":
        tj_k, tj_v = (c.permute(0, 2, 1, 3).contiguous().permute(0, 2, 1, 3) for c in (k_cache, v_cache))
    else:
        tj_k, tj_v = k_cache, v_cache
    # tilejit, one partition size at a time
    slopes = torch.zeros(hq, dtype=torch.float32, device=dev)
    # With HEAD_PACK=2 the kernels see kv heads / 2 heads of 2 x D (HEAD_PACK's comment).
    pack_d, pack_hkv = D * HEAD_PACK, hkv // HEAD_PACK
    pack_k, pack_v, variants = tj_k, tj_v, VARIANTS
    if HEAD_PACK == 2 and (hkv % 2 or 2 * (hq // hkv) > 16):
        # The cell keeps its op and peer rows; only the packed variants have no shape here.
        rec["tilejit_error"] = "HEAD_PACK=2 needs an even kv head count and 2 x GQA ratio <= 16 (q_rows)"
        variants = []
    elif HEAD_PACK == 2:
        pack_k, pack_v = (c.view(c.shape[0], BS, pack_hkv, pack_d) for c in (k_cache, v_cache))
        half = (torch.arange(hq, device=dev) // (hq // hkv)) % 2  # which half holds each q head
        tj_q = torch.zeros(b, hq, 2, D, dtype=q.dtype, device=dev)
        tj_q[:, torch.arange(hq, device=dev), half] = q
        tj_q = tj_q.view(b, hq, pack_d)
        tj_out = torch.empty(b, hq, pack_d, dtype=out.dtype, device=dev)
    else:
        tj_q, tj_out = q, out
    arrivals = torch.zeros(b, pack_hkv, dtype=torch.int32, device=dev)
    for partition, block_n, depth, warps, merge in variants:
        parts = max(1, math.ceil(ctx / partition))
        if merge == "c" and not 2 <= parts <= 8:
            continue
        dec, red = kernels(hq // pack_hkv, partition, block_n, depth, warps, merge, parts,
                           merge_heads(b, hq, merge_step(parts)), head_size=pack_d)
        p_out = torch.empty(b, parts, hq, pack_d, dtype=torch.float32, device=dev)
        p_lse = torch.empty(b, parts, hq, dtype=torch.float32, device=dev)
        # (slopes twice: the ALiBi slopes and the sinks, neither read without its option)
        dargs = dec.make_args(tj_out, p_out, p_lse, tj_q, pack_k, pack_v, block_table, seq_lens, slopes,
                              slopes, arrivals, scale, 0.0, 0)
        rargs = red.make_args(tj_out, p_out, p_lse, seq_lens) if red is not None else None

        def f_tj(dec=dec, red=red, dargs=dargs, rargs=rargs):
            dec.launch_args(dargs)
            if red is not None:
                red.launch_args(rargs)
        name = f"tilejit_{variant_name(partition, block_n, depth, warps, merge)}"
        if HEAD_PACK == 2:
            # Checked on each q head's own half (copied out after one run), timed without it.
            def f_check(f_tj=f_tj):
                f_tj()
                out.copy_(tj_out.view(b, hq, 2, D)[:, torch.arange(hq, device=dev), half])
            tj_out.fill_(float("nan"))
            timed(name, f_check, timed_fn=f_tj)
        else:
            timed(name, f_tj)
        del p_out, p_lse

    # The op as an engine embeds it: tilejit.PagedDecode with the grid it serves picks the
    # target's measured tiling and the merge's rules itself (the row the table would choose).
    # Kept apart: a failure here leaves the rest of the cell.
    try:
        op = tilejit.PagedDecode(jit, head_size=D, gqa_ratio=hq // hkv, block_size=BS,
                                 num_seqs=b, num_kv_heads=hkv, max_model_len=ctx, kv_layout=TJ_LAYOUT)
        parts = op.max_partitions(ctx)
        p_out = torch.empty(b, parts, hq, D, dtype=torch.float32, device=dev)
        p_lse = torch.empty(b, parts, hq, dtype=torch.float32, device=dev)
        op_args = op.make_args(out, q, tj_k, tj_v, block_table, seq_lens, p_out, p_lse, scale)
        rec["tilejit_op_partition"] = op.partition_size
        timed("tilejit_op", lambda: op.run_args(op_args))
        del p_out, p_lse
    except Exception as e:  # noqa: BLE001
        rec["tilejit_op_error"] = repr(e)[:300]

    if PEERS:
        for name, fn in decode_peers(q, k_cache, v_cache, out, block_table, seq_lens, ctx, scale, NSEG).items():
            timed(name, fn, getattr(fn, "timed", None))
    write(rec)
    del k_cache, v_cache, tj_k, tj_v, pack_k, pack_v
    torch.cuda.empty_cache()
    return rec


def main():
    read_bw, r = read_ceiling()  # torch.sum over 8 GiB of fp32, in this run
    write(dict(item="read_ceiling", TBps=read_bw, r=r))
    rows = []
    for hq, hkv in [(32, 32), (32, 8), (64, 8)]:
        for b in [1, 16, 64, 256]:
            for ctx in [1024, 4096, 16384]:
                if CELLS and f"{hq}/{hkv}:{b}:{ctx}" not in CELLS.split(","):
                    continue
                try:
                    rows.append(run_case(hq, hkv, b, ctx))
                except Exception as e:  # noqa: BLE001
                    write(dict(hq=hq, hkv=hkv, batch=b, ctx=ctx, error=repr(e)[:300]))
                    print("error", hq, hkv, b, ctx, repr(e)[:300])
    if len(VARIANTS) > 1:  # every variant, fastest first (before the summary: logs keep the tail)
        names = [variant_name(*v) for v in VARIANTS]
        for r in rows:
            if "skipped" in r:
                continue
            times = sorted((r[f"tilejit_{v}_us"], v) for v in names if f"tilejit_{v}_us" in r)
            print(f"{r['hq']}/{r['hkv']:<3} {r['batch']:>4} {r['ctx']:>6} "
                  + " ".join(f"{v}={t:.1f}" for t, v in times))
    print(f"read ceiling {read_bw:.2f} TB/s")
    if not VARIANTS or not PEERS:  # the op's own figures (decode_cells.py adds the peers')
        for r in rows:
            if "tilejit_op_us" in r:
                print(f"{cell_name(r):18s} op {r['tilejit_op_us']:8.2f} us "
                      f"{100 * r['tilejit_op_TBps'] / read_bw:4.0f} %R  relerr {r['tilejit_op_relerr']:.1e}")
        return
    print(f"{'heads':6} {'b':>4} {'ctx':>6} {'tj best us':>10} {'variant':>10} {'TB/s':>5} {'%R':>4} "
          f"{'peer us':>8} {'peer':>12} {'speedup':>7} {'relerr':>8} {'op us':>8} {'op x':>5}")
    for r in rows:
        if "skipped" in r:
            print(f"{r['hq']}/{r['hkv']:<3} {r['batch']:>4} {r['ctx']:>6} skipped")
            continue
        tj = min((variant_name(*v) for v in VARIANTS), key=lambda v: r.get(f"tilejit_{v}_us", 1e30))
        peers = peer_times(r)
        if f"tilejit_{tj}_us" not in r or not peers:  # every variant or every peer failed
            print(f"{r['hq']}/{r['hkv']:<3} {r['batch']:>4} {r['ctx']:>6} failed (see the jsonl)")
            continue
        tj_us = r[f"tilejit_{tj}_us"]
        best = min(peers, key=peers.get)
        print(f"{r['hq']}/{r['hkv']:<3} {r['batch']:>4} {r['ctx']:>6} {tj_us:>10.1f} {tj:>10} "
              f"{r[f'tilejit_{tj}_TBps']:>5.2f} {100*r[f'tilejit_{tj}_TBps']/read_bw:>4.0f} "
              f"{peers[best]:>8.1f} {best:>12} {peers[best]/tj_us:>7.2f} {r[f'tilejit_{tj}_relerr']:>8.1e}"
              + (f" {r['tilejit_op_us']:>8.1f} {peers[best]/r['tilejit_op_us']:>5.2f}"
                 if "tilejit_op_us" in r else " op failed"))


if __name__ == "__main__":
    main()
