"""Prefill and extend on the GPU: tilejit's prefill and extend ops against torch SDPA with the
cuDNN backend and with the FLASH backend (FA2), in the same process, on the same tensors, timed
the same way (bench/peers/common.py: one event pair per iteration, median, L2 flushed, GPU spin
before each start).

prefill cells: bf16, batch B (4) x heads H (32) x every sequence s tokens (SEQS: 1K..16K), head
128, causal and not; then head sizes HEAD_SIZES (64, 96, 192, 256) at SEQS_D (4096). q/k/v are
packed [B*s, H, d] tensors; tilejit gets their [H, B*s, d] transposes (no copy) and cu_seqlens,
SDPA the [B, H, s, d] views of the same memory. flops = 4 * B * H * s * s * d, half of it when
causal; TFLOP/s and % of the 989 TFLOP/s dense bf16 peak (H100/H200 SXM). Checked per cell:
tilejit's output against FA2's (or cuDNN's) and the first sequence's last rows against a
float64 reference.

extend cells: B (4) sequences of NEW (128, 512, 2048) new tokens over CTXS (4096..32768) cached
ones, 32 q / 8 kv heads, head 128, block 16, the blocks randomly permuted; the cache holds the
new tokens' K/V too (written before the call, as a serving step does). FA2 runs on contiguous
copies of the same K/V ([B, 8, ctx + new, 128], made once, not timed) with bottom-right causal
masking (causal_lower_right, enable_gqa). flops = 4 * B * H * new * (ctx + new/2) * d.

Goals (bench/results/prefill/README.md): prefill >= cuDNN non-causal at s >= 2K, causal >= 0.95x
cuDNN, d 64/96/192/256 >= 0.85x of d128's TFLOP/s; extend >= 400 TFLOP/s and >= 1.15x FA2. The
mma.sync path is not expected to meet them (no wgmma/TMA): the table says where it stands.

Run on the GPU machine from the repo root (bash bench/run.sh prefill, or):
    PYTHONPATH=python:bench/peers python3 bench/bench_prefill.py
Writes JSON lines to $OUT/prefill.jsonl and prints a table with the verdicts.
"""
import math
import os
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "peers"))
from common import JsonLines, bench, guarded, rel_err  # noqa: E402

import tilejit  # noqa: E402


def ints(name, default):
    return [int(v) for v in os.environ.get(name, default).split(",") if v]


BATCH = int(os.environ.get("BATCH", "4"))
HEADS = int(os.environ.get("HEADS", "32"))
SEQS = ints("SEQS", "1024,2048,4096,8192,16384")
HEAD_SIZES = ints("HEAD_SIZES", "64,96,192,256")
SEQS_D = ints("SEQS_D", "4096")
CTXS = ints("CTXS", "4096,8192,16384,32768")
NEW = ints("NEW", "128,512,2048")
KV_HEADS = int(os.environ.get("KV_HEADS", "8"))
BLOCK = int(os.environ.get("BLOCK", "16"))
PARAMS = dict(kv.split("=", 1) for kv in os.environ.get("PREFILL_PARAMS", "").split(",") if kv)
PEAK_TFLOPS = 989.0


def reference_rows(q, k, v, rows, causal, scale):
    """float64 attention of the last `rows` queries of one sequence ([s, h, d] each)."""
    s = q.shape[0]
    qd, kd, vd = (t.double().transpose(0, 1) for t in (q[s - rows:], k, v))
    if kd.shape[0] != qd.shape[0]:  # GQA: repeat each kv head over its q heads
        kd = kd.repeat_interleave(qd.shape[0] // kd.shape[0], 0)
        vd = vd.repeat_interleave(qd.shape[0] // vd.shape[0], 0)
    logits = qd @ kd.transpose(1, 2) * scale
    if causal:
        pos = torch.arange(kd.shape[1] - rows, kd.shape[1], device=q.device)[:, None]
        logits = logits.masked_fill(torch.arange(kd.shape[1], device=q.device)[None, :] > pos, -math.inf)
    return (torch.softmax(logits, -1) @ vd).transpose(0, 1)


def prefill_call(op, q, k, v, cu, scale):
    out = torch.empty_like(q)
    lse = torch.empty(q.shape[1], q.shape[0], dtype=torch.float32, device="cuda")
    slopes = torch.zeros(q.shape[1], dtype=torch.float32, device="cuda")
    named = {"output": out.transpose(0, 1), "lse": lse, "query": q.transpose(0, 1),
             "key": k.transpose(0, 1), "value": v.transpose(0, 1), "cu_seqlens_q": cu,
             "cu_seqlens_k": cu, "alibi_slopes": slopes, "scale": scale, "soft_cap_value": 0.0,
             "sliding_window": 0}
    args = op.make_args(*[named[n] for n in op.arguments])
    return out, lambda: op.run_args(args)


def sdpa_call(backend, q, k, v, batch, causal, scale, mask=None):
    """SDPA on [B, H, s, d] views of packed [B*s, H, d] tensors (or contiguous copies)."""
    views = [t if t.dim() == 4 else t.view(batch, -1, t.shape[1], t.shape[2]).transpose(1, 2)
             for t in (q, k, v)]
    gqa = views[0].shape[1] != views[1].shape[1]
    holder = {}

    def run():
        with sdpa_kernel(backend):
            holder["out"] = F.scaled_dot_product_attention(
                *views, attn_mask=mask, is_causal=causal and mask is None, scale=scale,
                enable_gqa=gqa)
    run()
    out = holder["out"]
    return (lambda: holder["out"].transpose(1, 2).reshape(-1, out.shape[1], out.shape[3])), run


def prefill_cell(log, jit, ops, d, s, causal, gen):
    b, h = BATCH, HEADS
    scale = 1.0 / math.sqrt(d)
    q, k, v = (torch.randn(b * s, h, d, dtype=torch.bfloat16, device="cuda", generator=gen)
               for _ in range(3))
    cu = torch.arange(0, b * s + 1, s, dtype=torch.int32, device="cuda")
    key = (d, causal)
    if key not in ops:
        ops[key] = tilejit.Op(jit, "prefill", head_size=d, v_head_size=d, causal=int(causal), **PARAMS)
    flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
    rec = {"kind": "prefill", "batch": b, "heads": h, "head_size": d, "seq": s, "causal": causal,
           "flops": flops, "floor_us": flops / (PEAK_TFLOPS * 1e12) * 1e6, "params": PARAMS}
    out, fn = prefill_call(ops[key], q, k, v, cu, scale)
    runs = {"tilejit": (lambda: out, fn)}
    for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("fa2", SDPBackend.FLASH_ATTENTION)):
        got = guarded(log, f"{name} d{d} s{s} causal{int(causal)}",
                      lambda: sdpa_call(backend, q, k, v, b, causal, scale))
        if got is not None:
            runs[name] = got
    for name, (result, call) in runs.items():
        r = guarded(log, f"{name} d{d} s{s} causal{int(causal)}", lambda: bench(call))
        if r is not None:
            us = r["median_ms"] * 1e3
            rec[name] = {"us": us, "tflops": flops / (us * 1e-6) / 1e12, **r}
    fn()
    torch.cuda.synchronize()
    rows = min(s, 256)
    ref = reference_rows(q[:s], k[:s], v[:s], rows, causal, scale)
    rec["tilejit_ref_err"] = rel_err(out[s - rows:s], ref)
    peer = next((n for n in ("fa2", "cudnn") if n in runs), None)
    if peer:
        rec["tilejit_vs_" + peer] = rel_err(out, runs[peer][0]())
    log.write(rec)
    del q, k, v, out, runs
    torch.cuda.empty_cache()
    return rec


def extend_cell(log, jit, ops, ctx, new, gen):
    b, h, hkv, d = BATCH, HEADS, KV_HEADS, 128
    scale = 1.0 / math.sqrt(d)
    total = ctx + new
    per_seq = -(-total // BLOCK)
    blocks = b * per_seq + 1
    k_cache = torch.randn(blocks, BLOCK, hkv, d, dtype=torch.bfloat16, device="cuda", generator=gen)
    v_cache = torch.randn(blocks, BLOCK, hkv, d, dtype=torch.bfloat16, device="cuda", generator=gen)
    table = torch.randperm(blocks, device="cuda", generator=gen)[: b * per_seq].view(b, per_seq).to(torch.int32)
    lens = torch.full((b,), total, dtype=torch.int32, device="cuda")
    cu = torch.arange(0, b * new + 1, new, dtype=torch.int32, device="cuda")
    q = torch.randn(b * new, h, d, dtype=torch.bfloat16, device="cuda", generator=gen)
    if "extend" not in ops:
        ops["extend"] = tilejit.Op(jit, "extend", head_size=d, v_head_size=d, gqa_ratio=h // hkv,
                                   block_size=BLOCK, **PARAMS)
    out = torch.empty_like(q)
    lse = torch.empty(h, b * new, dtype=torch.float32, device="cuda")
    slopes = torch.zeros(h, dtype=torch.float32, device="cuda")
    named = {"output": out.transpose(0, 1), "lse": lse, "query": q.transpose(0, 1),
             "key_cache": k_cache, "value_cache": v_cache, "block_tables": table, "seq_lens": lens,
             "cu_seqlens_q": cu, "alibi_slopes": slopes, "scale": scale, "soft_cap_value": 0.0,
             "sliding_window": 0}
    args = ops["extend"].make_args(*[named[n] for n in ops["extend"].arguments])
    flops = 4.0 * b * h * new * (ctx + new / 2.0) * d
    rec = {"kind": "extend", "batch": b, "heads": h, "kv_heads": hkv, "ctx": ctx, "new": new,
           "block": BLOCK, "flops": flops, "floor_us": flops / (PEAK_TFLOPS * 1e12) * 1e6, "params": PARAMS}
    runs = {"tilejit": (lambda: out, lambda: ops["extend"].run_args(args))}
    # Contiguous copies for FA2: [B, kv heads, ctx + new, d] in token order.
    kc = k_cache[table.long()].reshape(b, per_seq * BLOCK, hkv, d)[:, :total].transpose(1, 2).contiguous()
    vc = v_cache[table.long()].reshape(b, per_seq * BLOCK, hkv, d)[:, :total].transpose(1, 2).contiguous()
    qc = q.view(b, new, h, d).transpose(1, 2)
    from torch.nn.attention.bias import causal_lower_right
    got = guarded(log, f"fa2 ctx{ctx} new{new}", lambda: sdpa_call(
        SDPBackend.FLASH_ATTENTION, qc, kc, vc, b, True, scale, causal_lower_right(new, total)))
    if got is not None:
        runs["fa2"] = got
    for name, (result, call) in runs.items():
        r = guarded(log, f"{name} ctx{ctx} new{new}", lambda: bench(call))
        if r is not None:
            us = r["median_ms"] * 1e3
            rec[name] = {"us": us, "tflops": flops / (us * 1e-6) / 1e12, **r}
    runs["tilejit"][1]()
    torch.cuda.synchronize()
    rows = min(new, 128)
    ref = reference_rows(q[:new], kc[0].transpose(0, 1), vc[0].transpose(0, 1), rows, True, scale)
    rec["tilejit_ref_err"] = rel_err(out[new - rows:new], ref)
    if "fa2" in runs:
        rec["tilejit_vs_fa2"] = rel_err(out, runs["fa2"][0]())
    log.write(rec)
    del k_cache, v_cache, kc, vc, q, out, runs
    torch.cuda.empty_cache()
    return rec


def verdict_lines(records):
    lines = []
    d128 = {(r["seq"], r["causal"]): r["tilejit"]["tflops"] for r in records
            if r["kind"] == "prefill" and r["head_size"] == 128 and "tilejit" in r}
    for r in records:
        t = r.get("tilejit")
        tag = (f"prefill d{r['head_size']:<3} s{r['seq']:<6} {'causal' if r['causal'] else 'full  '}"
               if r["kind"] == "prefill" else f"extend  ctx{r['ctx']:<6} new{r['new']:<5}")
        if t is None:
            lines.append(f"{tag} tilejit FAILED")
            continue
        peers = "  ".join(f"{n} {r[n]['tflops']:6.1f}" for n in ("cudnn", "fa2") if n in r)
        flags = []
        if r["kind"] == "prefill" and "cudnn" in r:
            need = 0.95 if r["causal"] else 1.0
            if (r["causal"] or r["seq"] >= 2048) and t["tflops"] < need * r["cudnn"]["tflops"]:
                flags.append(f"below {need:.2f}x cuDNN")
        if r["kind"] == "prefill" and r["head_size"] != 128:
            base = d128.get((r["seq"], r["causal"]))
            if base and t["tflops"] < 0.85 * base:
                flags.append("below 0.85x d128")
        if r["kind"] == "extend":
            if t["tflops"] < 400:
                flags.append("below 400 TFLOP/s")
            if "fa2" in r and t["tflops"] < 1.15 * r["fa2"]["tflops"]:
                flags.append("below 1.15x FA2")
        if r.get("tilejit_ref_err", 1) > 2e-2:
            flags.append("WRONG")
        lines.append(f"{tag} tilejit {t['tflops']:6.1f} TFLOP/s ({100 * t['tflops'] / PEAK_TFLOPS:4.1f}% "
                     f"of peak)  {peers}  err {r.get('tilejit_ref_err', float('nan')):.1e}  "
                     f"{'ok' if not flags else ', '.join(flags)}")
    return lines


def main():
    log = JsonLines("prefill.jsonl")
    jit = tilejit.Jit()
    assert jit.device_target.startswith("sm_"), jit.device_target
    log.write({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "cudnn": torch.backends.cudnn.version(), "peak_tflops": PEAK_TFLOPS})
    gen = torch.Generator(device="cuda").manual_seed(0)
    ops, records = {}, []
    cells = [(128, s, c) for s in SEQS for c in (False, True)]
    cells += [(d, s, c) for d in HEAD_SIZES for s in SEQS_D for c in (False, True)]
    for d, s, causal in cells:
        rec = guarded(log, f"prefill d{d} s{s} causal{int(causal)}",
                      lambda: prefill_cell(log, jit, ops, d, s, causal, gen))
        if rec:
            records.append(rec)
    for ctx in CTXS:
        for new in NEW:
            rec = guarded(log, f"extend ctx{ctx} new{new}", lambda: extend_cell(log, jit, ops, ctx, new, gen))
            if rec:
                records.append(rec)
    for line in verdict_lines(records):
        print(line)


if __name__ == "__main__":
    main()
