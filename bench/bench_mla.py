"""MLA decode on the GPU: tilejit's mla_decode op against vLLM's Triton MLA decode, in the same
process, on the same tensors, timed the same way (bench/peers/common.py: one event pair per
iteration, median, L2 flushed, GPU spin before each start).

Each cell: a bf16 latent cache [num_blocks, block_size, 576] in randomly permuted blocks, q
[batch, heads, 576], every sequence `ctx` tokens, scale 1/sqrt(192) (DeepSeek's). The peer is
decode_attention_fwd called as vLLM's TritonMLA backend calls it: k_buffer = the cache with a
unit head axis, v_buffer = its first 512 columns, o [batch, heads, 512], attn_logits
[batch, heads, splits, 513], the block table in int64 (int32 overflows past 2^31 elements:
RESULTS-round2-2026-11-29 section 3), 4 and 16 splits. tilejit's op gets the int32 table (its
offsets are 64-bit regardless) and the same cache as [num_blocks, block_size, 1, 576].

Bytes = batch * ctx * 576 * 2 (each latent once); the floor is bytes over the read ceiling
measured first in this run (common.read_ceiling). Per cell: us, TB/s, % of the ceiling, and
the peer's best split count over tilejit's time. Checked per cell: both outputs against a
float64 reference of the first and last sequence (relative error).

Cells: BLOCKS (64,16) x HEADS (16,32,64,128) x BATCHES (1,16,64,128) x CTXS (1024,4096,16384,
32768); block 16 (the second block size) runs CTXS16 (4096,32768) only, to fit ~8 minutes.
MLA_PARAMS="q_rows=32,block_n=64" overrides the op's tuned parameters (each record names them).

Run on the GPU machine from the repo root (bash bench/run.sh mla, or):
    PYTHONPATH=python:bench/peers PEERS_DIR=.peers python3 bench/bench_mla.py
Writes JSON lines to $OUT/mla.jsonl and prints a table with the goals' verdicts.
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "peers"))
from common import JsonLines, bench, guarded, read_ceiling, rel_err  # noqa: E402

import tilejit  # noqa: E402


def ints(name, default):
    return [int(v) for v in os.environ.get(name, default).split(",") if v]


BLOCKS = ints("BLOCKS", "64,16")
HEADS = ints("HEADS", "16,32,64,128")
BATCHES = ints("BATCHES", "1,16,64,128")
CTXS = ints("CTXS", "1024,4096,16384,32768")
CTXS16 = ints("CTXS16", "4096,32768")
PARAMS = dict(kv.split("=", 1) for kv in os.environ.get("MLA_PARAMS", "").split(",") if kv)
LATENT, V = 576, 512
SCALE = 1.0 / math.sqrt(192.0)


def reference(q, cache, table, ctx, s):
    """float64 MLA output of sequence s: softmax(q . latent * scale) . latent[:, :512]."""
    bs = cache.shape[1]
    nb = -(-ctx // bs)
    lat = cache[table[s, :nb].long()].reshape(nb * bs, LATENT)[:ctx].double()
    p = torch.softmax(q[s].double() @ lat.T * SCALE, dim=-1)
    return p @ lat[:, :V]


def inputs(batch, heads, ctx, block, gen):
    per_seq = -(-ctx // block)
    num_blocks = batch * per_seq + 1
    cache = torch.randn(num_blocks, block, LATENT, dtype=torch.bfloat16, device="cuda", generator=gen)
    perm = torch.randperm(num_blocks, device="cuda", generator=gen)[: batch * per_seq]
    table = perm.view(batch, per_seq).to(torch.int32)
    q = torch.randn(batch, heads, LATENT, dtype=torch.bfloat16, device="cuda", generator=gen)
    lens = torch.full((batch,), ctx, dtype=torch.int32, device="cuda")
    return cache, table, q, lens


def tilejit_call(op, cache, table, q, lens, max_len):
    batch, heads, _ = q.shape
    ws = op.workspaces(num_tokens=batch, num_q_heads=heads, max_model_len=max_len)
    out = torch.empty(batch, heads, V, dtype=torch.bfloat16, device="cuda")
    work = {n: torch.empty(w["shape"], dtype=torch.float32, device="cuda") for n, w in ws.items()}
    named = {"output": out, "query": q, "latent_cache": cache.unsqueeze(2), "block_tables": table,
             "seq_lens": lens, "scale": SCALE, **work}
    args = op.make_args(*[named[n] for n in op.arguments])
    return out, lambda: op.run_args(args)


def peer_call(decode_attention_fwd, cache, table, q, lens, splits):
    batch, heads, _ = q.shape
    k_buffer = cache.unsqueeze(2)
    v_buffer = k_buffer[..., :V]
    out = torch.empty(batch, heads, V, dtype=torch.bfloat16, device="cuda")
    lse = torch.empty(batch, heads, dtype=torch.float32, device="cuda")
    logits = torch.empty(batch, heads, splits, V + 1, dtype=torch.float32, device="cuda")
    table64 = table.to(torch.int64)
    page = cache.shape[1]
    return out, lambda: decode_attention_fwd(q, k_buffer, v_buffer, out, lse, table64, lens, logits,
                                             splits, SCALE, page_size=page)


def cell(log, ceiling, ops, peer, block, heads, batch, ctx, gen):
    cache, table, q, lens = inputs(batch, heads, ctx, block, gen)
    nbytes = batch * ctx * LATENT * 2
    refs = {s: reference(q, cache, table, ctx, s) for s in {0, batch - 1}}
    rec = {"block": block, "heads": heads, "batch": batch, "ctx": ctx, "bytes": nbytes,
           "ceiling_tbps": ceiling, "floor_us": nbytes / (ceiling * 1e12) * 1e6, "params": PARAMS}
    runs = {"tilejit": tilejit_call(ops[block], cache, table, q, lens, max(CTXS + CTXS16))}
    if peer is not None:
        for splits in (4, 16):
            runs[f"peer_s{splits}"] = peer_call(peer, cache, table, q, lens, splits)
    for name, (out, fn) in runs.items():
        r = guarded(log, f"{name} b{block} h{heads} B{batch} ctx{ctx}", lambda: bench(fn))
        if r is None:
            continue
        err = max(rel_err(out[s], ref) for s, ref in refs.items())
        us = r["median_ms"] * 1e3
        rec[name] = {"us": us, "tbps": nbytes / (us * 1e-6) / 1e12, "rel_err": err, **r}
    best_peer = min((rec[k]["us"] for k in ("peer_s4", "peer_s16") if k in rec), default=None)
    if "tilejit" in rec:
        rec["pct_ceiling"] = 100.0 * rec["tilejit"]["tbps"] / ceiling
        if best_peer:
            rec["peer_ratio"] = best_peer / rec["tilejit"]["us"]
    log.write(rec)
    del cache, table, q, lens, runs
    torch.cuda.empty_cache()
    return rec


def verdicts(records):
    """The goals: >= 90 % of the ceiling at batch >= 16 x ctx >= 4K; no cell slower than the peer."""
    lines = []
    for r in records:
        if "pct_ceiling" not in r:
            lines.append(f"b{r['block']:<3} h{r['heads']:<3} B{r['batch']:<3} ctx{r['ctx']:<6} tilejit FAILED")
            continue
        goal = r["batch"] >= 16 and r["ctx"] >= 4096
        ok_pct = (r["pct_ceiling"] >= 90.0) if goal else None
        ratio = r.get("peer_ratio")
        ok_err = r["tilejit"]["rel_err"] < 2e-2
        flags = []
        if ok_pct is False:
            flags.append("below 90%")
        if ratio is not None and ratio < 1.0:
            flags.append("slower than peer")
        if not ok_err:
            flags.append("WRONG")
        lines.append(f"b{r['block']:<3} h{r['heads']:<3} B{r['batch']:<3} ctx{r['ctx']:<6} "
                     f"{r['tilejit']['us']:9.1f} us {r['tilejit']['tbps']:5.2f} TB/s "
                     f"{r['pct_ceiling']:5.1f}% ceiling  peer/tilejit "
                     f"{ratio if ratio is not None else float('nan'):5.2f}  err {r['tilejit']['rel_err']:.1e}  "
                     f"{'ok' if not flags else ', '.join(flags)}")
    return lines


def main():
    log = JsonLines("mla.jsonl")
    ceiling, probe = read_ceiling()
    log.write({"read_ceiling_tbps": ceiling, "probe": probe})
    jit = tilejit.Jit()
    assert jit.device_target.startswith("sm_"), jit.device_target
    ops = {b: tilejit.Op(jit, "mla_decode", block_size=b, max_model_len=max(CTXS + CTXS16), **PARAMS)
           for b in BLOCKS}
    try:
        from vllm_triton_decode_attention import decode_attention_fwd as peer
    except Exception as e:  # noqa: BLE001 - the op's numbers stand without the peer
        print(f"peer vllm_triton_decode_attention unavailable: {e}")
        peer = None
    gen = torch.Generator(device="cuda").manual_seed(0)
    records = []
    for i, block in enumerate(BLOCKS):
        for heads in HEADS:
            for batch in BATCHES:
                for ctx in (CTXS if i == 0 else CTXS16):
                    rec = guarded(log, f"cell b{block} h{heads} B{batch} ctx{ctx}",
                                  lambda: cell(log, ceiling, ops, peer, block, heads, batch, ctx, gen))
                    if rec:
                        records.append(rec)
    print(f"read ceiling {ceiling:.2f} TB/s")
    for line in verdicts(records):
        print(line)


if __name__ == "__main__":
    main()
