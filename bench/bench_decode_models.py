"""Paged decode for the served models' shapes on the H200, in one process (bench/peers/common.py:
one event pair per iteration, median, L2 flushed; the read ceiling first):

  fp8   32/8 heads x head 128, batch 1/16/64/256 x ctx 1K/4K/16K: the op over an fp8 e4m3fn
        cache (one scale per tensor, and per kv head) against the bf16 op on the same values;
        its TB/s counts fp8 bytes, %R is that over the run's read ceiling (goal: >= 95 % at
        batch >= 64 x ctx >= 4K, about 1.9x the bf16 op's tokens/s; batch 1 and 16 no slower).
  mqa   71/1 and 48/1 (Falcon-7B, StarCoder), head 64 and 128, batch 1/16/64 x ctx 1K/4K/16K:
        the op (row blocks of q_rows 16 and 32) against vLLM's unified_attention (both paths)
        and decode_attention_fwd (goal: faster than unified_attention in every cell).
  sinks 64/8 x head 64 (GPT-OSS), batch 1/16/64 x ctx 4K/16K: sinks=1 against sinks=0 (goal:
        <= 2 % slower).
  cudnn the decode matrix's 32/8 and 64/8 cells against cuDNN SDPA on contiguous copies of the
        same K/V (q_len 1, enable_gqa; goal >= 1.0x): bench_decode.py's peers include it too.

Every tilejit figure is checked against a float64 reference (two sequences) before it is
timed; a failed check is recorded, not timed. PARTS=fp8,mqa,sinks,cudnn picks parts.

    PYTHONPATH=python:bench:bench/peers PEERS_DIR=.peers OUT=... python3 bench/bench_decode_models.py
"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "peers"))
from common import bench, cudnn_contiguous, decode_peers, decode_reference, read_ceiling, rel_err  # noqa: E402
from decode_data import decode_inputs  # noqa: E402

import tilejit  # noqa: E402

OUT = os.environ.get("OUT", "/tmp/out")
os.makedirs(OUT, exist_ok=True)
PARTS = os.environ.get("PARTS", "fp8,mqa,sinks,cudnn").split(",")
# Tiling parameters for the fp8 cells' op (FP8_PARAMS=block_n=64,min_blocks_per_sm=5): a sweep
# of the fp8 rows of the tuning table without a rebuild; recorded in each fp8 cell.
FP8_PARAMS = {k: int(v) for k, v in (kv.split("=", 1) for kv in os.environ.get("FP8_PARAMS", "").split(",") if kv)}
BS, LIMIT = 16, 40e9
jit = tilejit.Jit()


def write(rec):
    with open(os.path.join(OUT, "decode_models.jsonl"), "a") as f:
        f.write(json.dumps(rec) + "\n")


class OpCall:
    """tilejit's paged_decode op by name at one cell: its workspaces allocated, its arguments
    in op.arguments order; run() launches it (the split-K kernel and its merge)."""

    def __init__(self, b, hq, hkv, ctx, D, out, tensors, **params):
        self.op = tilejit.Op(jit, "paged_decode", head_size=D, gqa_ratio=hq // hkv, block_size=BS,
                             num_seqs=b, num_kv_heads=hkv, max_model_len=ctx, **params)
        named = dict(tensors, output=out)
        for name, w in self.op.workspaces(num_seqs=b, num_kv_heads=hkv, max_model_len=ctx).items():
            named[name] = torch.zeros(w["shape"], dtype=getattr(torch, w["dtype"]), device="cuda")
        self.args = self.op.make_args(*(named[a] for a in self.op.arguments))

    def run(self):
        self.op.run_args(self.args)


def cell_tensors(data, D, hq, hkv, sinks=None, k_cache=None, v_cache=None, k_scales=None, v_scales=None):
    """The op's arguments by name; options that are off get tensors of the right shape (unread)."""
    zeros = torch.zeros(hq, dtype=torch.float32, device="cuda")
    one = torch.ones(1, dtype=torch.float32, device="cuda")
    return dict(query=data.q, key_cache=data.k_cache if k_cache is None else k_cache,
                value_cache=data.v_cache if v_cache is None else v_cache, block_tables=data.table,
                seq_lens=data.lens, alibi_slopes=zeros, sinks=zeros if sinks is None else sinks,
                k_scales=one if k_scales is None else k_scales, v_scales=one if v_scales is None else v_scales,
                scale=1.0 / math.sqrt(D), soft_cap_value=0.0, sliding_window=0)


def cell_inputs(b, ctx, hq, hkv, D, sinks=None):
    """A cell's inputs (every sequence ctx tokens), its output buffer, scale and the float64
    references of its first and last sequences."""
    data = decode_inputs(b, ctx, hq, hkv, D, BS)
    out = torch.empty(b, hq, D, dtype=torch.bfloat16, device="cuda")
    scale = 1.0 / math.sqrt(D)
    refs = {s: decode_reference(data.q, data.k_cache, data.v_cache, data.table, data.lens, s, scale, sinks)
            for s in {0, b - 1}}
    return data, out, scale, refs


def timed(rec, name, fn, out, refs, kv_bytes, timed_fn=None):
    """Checks fn's output on the reference sequences, then times it (or timed_fn, the same work
    without the copy into `out`) into rec[name_*]."""
    try:
        out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        err = max(rel_err(out[s], r) for s, r in refs.items()) if torch.isfinite(out.float()).all() else float("nan")
        rec[f"{name}_relerr"] = err
        if not err <= 2e-2:
            rec[f"{name}_error"] = f"relative error {err:.2e} above 2e-2: not timed"
            return
        r = bench(timed_fn or fn)
        rec[f"{name}_us"] = r["median_ms"] * 1e3
        rec[f"{name}_TBps"] = kv_bytes / (r["median_ms"] * 1e-3) / 1e12
    except Exception as e:  # noqa: BLE001  (one variant's failure leaves the cell)
        rec[f"{name}_error"] = repr(e)[:300]


def fp8_cell(b, ctx, hq=32, hkv=8, D=128):
    rec = dict(part="fp8", hq=hq, hkv=hkv, batch=b, ctx=ctx, head=D, kv_bytes_fp8=b * ctx * hkv * D * 2,
               fp8_params=FP8_PARAMS)
    if 2 * rec["kv_bytes_fp8"] * 3 > LIMIT:  # bf16 caches, fp8 copies, dequantized reference inputs
        return dict(rec, skipped="caches too large")
    data, out, scale, refs16 = cell_inputs(b, ctx, hq, hkv, D)
    bf16 = OpCall(b, hq, hkv, ctx, D, out, cell_tensors(data, D, hq, hkv))
    timed(rec, "bf16", bf16.run, out, refs16, 2 * rec["kv_bytes_fp8"])
    for kind in ("per_tensor", "per_head"):
        # Scales from each tensor's (or kv head's) largest magnitude: codes up to 448.
        dims = (0, 1, 3) if kind == "per_head" else (0, 1, 2, 3)
        ks = (data.k_cache.float().abs().amax(dim=dims) / 448).reshape(-1).contiguous()
        vs = (data.v_cache.float().abs().amax(dim=dims) / 448).reshape(-1).contiguous()
        shape = (1, 1, -1, 1) if kind == "per_head" else (1, 1, 1, 1)
        k8 = (data.k_cache.float() / ks.view(shape)).to(torch.float8_e4m3fn)
        v8 = (data.v_cache.float() / vs.view(shape)).to(torch.float8_e4m3fn)
        kd, vd = (k8.float() * ks.view(shape)), (v8.float() * vs.view(shape))
        refs = {s: decode_reference(data.q, kd, vd, data.table, data.lens, s, scale) for s in {0, b - 1}}
        del kd, vd
        op = OpCall(b, hq, hkv, ctx, D, out, cell_tensors(data, D, hq, hkv, k_cache=k8, v_cache=v8,
                                                          k_scales=ks, v_scales=vs),
                    kv_cache_dtype="fp8_e4m3", kv_scale=kind, **FP8_PARAMS)
        timed(rec, f"fp8_{kind}", op.run, out, refs, rec["kv_bytes_fp8"])
        del k8, v8, op
    torch.cuda.empty_cache()
    return rec


def mqa_cell(hq, b, ctx, D):
    hkv = 1
    rec = dict(part="mqa", hq=hq, hkv=hkv, batch=b, ctx=ctx, head=D, kv_bytes=b * ctx * hkv * D * 4)
    data, out, scale, refs = cell_inputs(b, ctx, hq, hkv, D)
    for rows in (16, 32):
        op = OpCall(b, hq, hkv, ctx, D, out, cell_tensors(data, D, hq, hkv), q_rows=rows)
        timed(rec, f"tilejit_q{rows}", op.run, out, refs, rec["kv_bytes"])
    for name, fn in decode_peers(data.q, data.k_cache, data.v_cache, out, data.table, data.lens, ctx, scale).items():
        timed(rec, name, fn, out, refs, rec["kv_bytes"], getattr(fn, "timed", None))
    return rec


def sinks_cell(b, ctx, hq=64, hkv=8, D=64):
    rec = dict(part="sinks", hq=hq, hkv=hkv, batch=b, ctx=ctx, head=D, kv_bytes=b * ctx * hkv * D * 4)
    sinks = torch.randn(hq, dtype=torch.float32, device="cuda") + 2.0
    for on in (0, 1):
        data, out, scale, refs = cell_inputs(b, ctx, hq, hkv, D, sinks if on else None)
        op = OpCall(b, hq, hkv, ctx, D, out, cell_tensors(data, D, hq, hkv, sinks=sinks), sinks=on)
        timed(rec, f"sinks{on}", op.run, out, refs, rec["kv_bytes"])
    return rec


def cudnn_cell(hq, hkv, b, ctx, D=128):
    rec = dict(part="cudnn", hq=hq, hkv=hkv, batch=b, ctx=ctx, head=D, kv_bytes=b * ctx * hkv * D * 4)
    if 2 * rec["kv_bytes"] > LIMIT:  # paged caches and their contiguous copies
        return dict(rec, skipped="caches too large")
    data, out, scale, refs = cell_inputs(b, ctx, hq, hkv, D)
    op = OpCall(b, hq, hkv, ctx, D, out, cell_tensors(data, D, hq, hkv))
    timed(rec, "tilejit_op", op.run, out, refs, rec["kv_bytes"])
    fn = cudnn_contiguous(data.q, data.k_cache, data.v_cache, out, data.table, ctx, scale)
    timed(rec, "cudnn_contiguous", fn, out, refs, rec["kv_bytes"], fn.timed)
    return rec


def cells():
    if "fp8" in PARTS:
        for b in (1, 16, 64, 256):
            for ctx in (1024, 4096, 16384):
                yield fp8_cell, (b, ctx)
    if "mqa" in PARTS:
        for hq in (71, 48):
            for D in (64, 128):
                for b in (1, 16, 64):
                    for ctx in (1024, 4096, 16384):
                        yield mqa_cell, (hq, b, ctx, D)
    if "sinks" in PARTS:
        for b in (1, 16, 64):
            for ctx in (4096, 16384):
                yield sinks_cell, (b, ctx)
    if "cudnn" in PARTS:
        for hq, hkv, b, ctx in ((64, 8, 1, 8192), (32, 8, 1, 16384), (32, 8, 16, 4096), (32, 8, 64, 4096),
                                (32, 32, 16, 4096), (64, 8, 256, 4096), (32, 8, 16, 16384)):
            yield cudnn_cell, (hq, hkv, b, ctx)


def main():
    ceiling, _ = read_ceiling()
    write(dict(item="read_ceiling", TBps=ceiling))
    for fn, args in cells():
        try:
            rec = fn(*args)
        except Exception as e:  # noqa: BLE001
            rec = dict(part=fn.__name__, args=list(args), error=repr(e)[:300])
        rec["read_ceiling_TBps"] = ceiling
        write(rec)
        torch.cuda.empty_cache()
    print(f"read ceiling {ceiling:.2f} TB/s; summary: python3 bench/decode_models_summary.py {OUT}/decode_models.jsonl")


if __name__ == "__main__":
    main()
