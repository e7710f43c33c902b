"""The DSA decode kernels on the GPU: tilejit against the vLLM peers in the same process, timed
the same way (bench/peers/common.py: one event pair per iteration, median, L2 flushed, GPU
spin before each start), each item's floor from the same run.

Items (ITEMS=mask,slope,quant,gather; default all):
  mask   candidate_mask on fp32 logits [96, 1M] (as int32 words), live ends uniform in
         [128, 4096] (the draw of bench_round2.py's dsa item), block 64 and 16, K 16 and 256,
         against vLLM's shared apply_candidate_mask (vllm_dsa_candidate_blocks.py, 2 launches).
         Checked: tilejit's logits equal the peer's within [0, end), bit for bit, and equal
         their input past each end. Goal: peer us / tilejit us >= 6.
  slope  candidate_mask at width 1M, every row's end E for E in 128 .. 1M: time against live
         columns (least squares slope, us per million live columns; the peer at the same E).
  quant  indexer_k_quant_and_cache, 32K tokens of K [N, 128] bf16 to random distinct slots of
         a cache [blocks, block_size, 132] uint8, block sizes 1 .. 256, fp32 and ue8m0 scales,
         against vLLM's indexer_k_quant_and_cache_triton (vllm_triton_indexer_cache.py). Bytes
         N * (256 + 132 + 8); floor: copy_ of as many bytes. Checked bitwise against a torch
         reference (IEEE fp32 division, exact ue8m0, torch's RNE fp8 cast). Goals: >= 85 % of
         the floor's bandwidth, faster than the peer at every block size.
  gather gather_indexer_k_quant_cache of 32K tokens (8 sequences in shuffled blocks) back out
         of that cache, against cp_gather_indexer_k_quant_cache_triton. Bytes N * 264; floor:
         copy_ of as many bytes. Checked bitwise against torch indexing of the cache.

MASK_PARAMS, QUANT_PARAMS, GATHER_PARAMS ("name=value,...") override the tuned parameters
(each record names them under "params").

Run on the GPU machine from the repo root (bash bench/run.sh dsa, or):
    PYTHONPATH=python:bench/peers PEERS_DIR=.peers python3 bench/bench_dsa.py
Writes JSON lines to $OUT/dsa.jsonl and prints a table with each goal's verdict.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "peers"))
from common import bench  # noqa: E402

import tilejit  # noqa: E402

OUT = os.environ.get("OUT", "/tmp/out")
os.makedirs(OUT, exist_ok=True)
sys.path.insert(0, os.environ.get("PEERS_DIR", os.path.join(os.path.dirname(__file__), "..", ".peers")))
BLOCK_SIZES = [int(b) for b in os.environ.get("BLOCK_SIZES", "1,8,16,24,48,64,80,128,256").split(",")]


def overrides(item):
    """Template parameters over the target's tuning, for sweeps: MASK_PARAMS="tile=512,grid_cols=64",
    QUANT_PARAMS, GATHER_PARAMS."""
    text = os.environ.get(f"{item.upper()}_PARAMS", "")
    return dict(kv.split("=", 1) for kv in text.split(",") if kv)


RECORDS = []


def record(rec):
    RECORDS.append(rec)
    with open(os.path.join(OUT, "dsa.jsonl"), "a") as f:
        f.write(json.dumps(rec) + "\n")
    print(json.dumps({k: v for k, v in rec.items() if not isinstance(v, dict)}))


def us(r):
    return r["median_ms"] * 1e3


def peer(module):
    try:
        return __import__(module)
    except Exception as e:  # noqa: BLE001
        print(f"peer {module} unavailable: {e}")
        return None


def mask_inputs(rows, width, ends, block, k, gen):
    """Candidates: K distinct live blocks a row (fewer where the row has fewer), -1 padded."""
    cand = torch.full((rows, k), -1, dtype=torch.int32, device="cuda")
    for r, end in enumerate(ends.tolist()):
        live = -(-end // block)
        sel = torch.randperm(live, device="cuda", generator=gen)[:k].to(torch.int32)
        cand[r, :sel.numel()] = sel
    logits = torch.empty(rows, width, dtype=torch.float32, device="cuda").normal_(generator=gen)
    return logits, cand


def item_mask(jit, cbk):
    rows, width = 96, 1 << 20
    gen = torch.Generator(device="cuda").manual_seed(7)
    ends = torch.randint(128, 4097, (rows,), device="cuda", generator=gen, dtype=torch.int64).to(torch.int32)
    for block in (64, 16):
        kernel = jit.load("candidate_mask", block_size=block, **overrides("mask"))
        for k in (16, 256):
            logits, cand = mask_inputs(rows, width, ends, block, k, gen)
            words = logits.view(torch.int32)
            args = kernel.make_args(words.unsqueeze(-1), ends, ends, cand)
            got = logits.clone()
            kernel.launch_args(kernel.make_args(got.view(torch.int32).unsqueeze(-1), ends, ends, cand))
            rec = dict(item="mask", params=overrides("mask"), rows=rows, width=width, block=block, K=k,
                       ends_min=int(ends.min()), ends_max=int(ends.max()))
            cols = torch.arange(width, device="cuda")[None, :]
            inside = cols < ends[:, None].long()
            rec["past_end_untouched"] = bool(torch.equal(got.view(torch.int32)[~inside], words[~inside]))
            if cbk is not None:
                want = logits.clone()
                cbk.apply_candidate_mask(want, None, ends, cand, block)
                torch.cuda.synchronize()
                rec["equal_to_peer_within_ends"] = bool(torch.equal(got.view(torch.int32)[inside],
                                                                    want.view(torch.int32)[inside]))
            r = bench(lambda: kernel.launch_args(args))
            rec.update(tilejit_us=us(r), tilejit=r)
            if cbk is not None:
                pr = bench(lambda: cbk.apply_candidate_mask(logits, None, ends, cand, block))
                rec.update(peer_us=us(pr), peer=pr, speedup=us(pr) / us(r), goal_6x=us(pr) / us(r) >= 6)
            record(rec)
            del logits, got
            torch.cuda.empty_cache()


def item_slope(jit, cbk):
    rows, width, block, k = 96, 1 << 20, 64, 16
    gen = torch.Generator(device="cuda").manual_seed(8)
    kernel = jit.load("candidate_mask", block_size=block, **overrides("mask"))
    points = []
    for end in (128, 512, 2048, 8192, 32768, 131072, 524288, width):
        ends = torch.full((rows,), end, dtype=torch.int32, device="cuda")
        logits, cand = mask_inputs(rows, width, ends, block, k, gen)
        args = kernel.make_args(logits.view(torch.int32).unsqueeze(-1), ends, ends, cand)
        r = bench(lambda: kernel.launch_args(args))
        rec = dict(item="slope", params=overrides("mask"), rows=rows, width=width, block=block, K=k, end=end,
                   live_columns=rows * end, tilejit_us=us(r), tilejit=r)
        if cbk is not None:
            pr = bench(lambda: cbk.apply_candidate_mask(logits, None, ends, cand, block))
            rec.update(peer_us=us(pr))
        record(rec)
        points.append((rows * end, us(r)))
        del logits
        torch.cuda.empty_cache()
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    slope = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    record(dict(item="slope_fit", us_per_million_live_columns=slope * 1e6, intercept_us=my - slope * mx,
                # a live column moves 8 bytes (read + write): the TB/s the slope implies
                implied_TBps=8e-6 / slope if slope > 0 else None))


def e4m3_reference(k, ue8m0):
    """torch reference: IEEE fp32 division, the exact ue8m0 power of two, torch's RNE cast."""
    amax = k.float().abs().amax(-1, keepdim=True)
    scale = amax.clamp_min(1e-4) / 448.0
    if ue8m0:
        # scale = mant * 2^exp, mant in [0.5, 1): a power of two already, or 2^exp built from its bits
        mant, exp = torch.frexp(scale)
        scale = torch.where(mant == 0.5, scale, ((exp + 127) << 23).to(torch.int32).view(torch.float32))
    return (k.float() / scale).to(torch.float8_e4m3fn), scale


def cache_views(cache):
    """The cache as the kernels take it: fp8 bytes and float32 words, flattened per block."""
    flat = cache.view(cache.shape[0], -1)
    return flat.view(torch.float8_e4m3fn), flat.view(torch.float32)


def item_quant(jit, ipk):
    n = 32768
    gen = torch.Generator(device="cuda").manual_seed(9)
    k = (torch.randn(n, 128, device="cuda", generator=gen) *
         torch.exp2(torch.randint(-20, 6, (n, 1), device="cuda", generator=gen).float())).to(torch.bfloat16)
    moved = n * (256 + 132 + 8)
    src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    floor = bench(lambda: dst.copy_(src))
    for block in BLOCK_SIZES:
        blocks = -(-n // block) + 16
        slots = torch.randperm(blocks * block, device="cuda", generator=gen)[:n].contiguous()
        q_ref, s_ref = None, None
        for fmt in ("float32", "ue8m0"):
            kernel = jit.load("indexer_k_quant_and_cache", block_size=block, scale_format=fmt, **overrides("quant"))
            cache = torch.full((blocks, block, 132), 0xFF, dtype=torch.uint8, device="cuda")
            values, scales = cache_views(cache)
            args = kernel.make_args(k, values, scales, slots)
            kernel.launch_args(args)
            q_ref, s_ref = e4m3_reference(k, fmt == "ue8m0")
            b, o = slots // block, slots % block
            got_v = values.view(torch.uint8).view(blocks, -1)[:, :block * 128].reshape(blocks, block, 128)[b, o]
            got_s = scales[:, block * 32:][b, o]
            rec = dict(item="quant", params=overrides("quant"), N=n, block=block, scale_format=fmt, bytes=moved,
                       exact=bool(torch.equal(got_v, q_ref.view(torch.uint8)) and
                                  torch.equal(got_s.view(torch.int32), s_ref[:, 0].view(torch.int32))))
            r = bench(lambda: kernel.launch_args(args))
            rec.update(tilejit_us=us(r), tilejit_TBps=moved / us(r) / 1e6, floor_us=us(floor),
                       floor_TBps=moved / us(floor) / 1e6, of_floor=us(floor) / us(r), tilejit=r)
            rec["goal_85pct_floor"] = rec["of_floor"] >= 0.85
            if ipk is not None:
                pcache = torch.full_like(cache, 0xFF).view(torch.float8_e4m3fn)
                try:
                    ipk.indexer_k_quant_and_cache_triton(k, pcache, slots, 128, fmt)
                    pv = pcache.view(torch.uint8).view(blocks, -1)[:, :block * 128].reshape(blocks, block, 128)[b, o]
                    rec["peer_equal_to_reference"] = bool(torch.equal(pv, q_ref.view(torch.uint8)))
                    pr = bench(lambda: ipk.indexer_k_quant_and_cache_triton(k, pcache, slots, 128, fmt))
                    rec.update(peer_us=us(pr), speedup=us(pr) / us(r), goal_faster=us(pr) > us(r))
                except Exception as e:  # noqa: BLE001
                    rec["peer_error"] = repr(e)[:300]
            record(rec)


def item_gather(jit, ipk):
    n, seqs = 32768, 8
    gen = torch.Generator(device="cuda").manual_seed(10)
    moved = n * 264
    src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    floor = bench(lambda: dst.copy_(src))
    lens = [n // seqs] * seqs
    cu = torch.tensor([0] + [sum(lens[:i + 1]) for i in range(seqs)], dtype=torch.int32, device="cuda")
    token_to_seq = torch.repeat_interleave(torch.arange(seqs, device="cuda", dtype=torch.int32),
                                           torch.tensor(lens, device="cuda"))
    for block in BLOCK_SIZES:
        per_seq = -(-max(lens) // block)
        blocks = seqs * per_seq + 4
        table = torch.randperm(blocks, device="cuda", generator=gen)[:seqs * per_seq].view(seqs, per_seq).to(torch.int32)
        cache = torch.randint(0, 256, (blocks, block, 132), dtype=torch.uint8, device="cuda", generator=gen)
        values, scales = cache_views(cache)
        kernel = jit.load("gather_indexer_k_quant_cache", block_size=block, **overrides("gather"))
        out_k = torch.full((n, 128), 0xFF, dtype=torch.uint8, device="cuda").view(torch.float8_e4m3fn)
        out_s = torch.full((n, 1), float("nan"), dtype=torch.float32, device="cuda")
        args = kernel.make_args(values, scales, out_k, out_s, table, cu)
        kernel.launch_args(args)
        pos = torch.arange(n, device="cuda") - cu[token_to_seq.long()].long()
        blk = table[token_to_seq.long(), pos // block].long()
        off = pos % block
        want_k = values.view(torch.uint8)[:, :block * 128].reshape(blocks, block, 128)[blk, off]
        want_s = scales[:, block * 32:][blk, off]
        rec = dict(item="gather", params=overrides("gather"), N=n, seqs=seqs, block=block, bytes=moved,
                   exact=bool(torch.equal(out_k.view(torch.uint8), want_k) and
                              torch.equal(out_s[:, 0].view(torch.int32), want_s.view(torch.int32))))
        r = bench(lambda: kernel.launch_args(args))
        rec.update(tilejit_us=us(r), tilejit_TBps=moved / us(r) / 1e6, floor_us=us(floor),
                   floor_TBps=moved / us(floor) / 1e6, of_floor=us(floor) / us(r), tilejit=r)
        rec["goal_85pct_floor"] = rec["of_floor"] >= 0.85
        if ipk is not None:
            pk = torch.empty((n, 128), dtype=torch.float8_e4m3fn, device="cuda")
            ps = torch.empty((n, 4), dtype=torch.uint8, device="cuda")
            try:
                ipk.cp_gather_indexer_k_quant_cache_triton(cache, pk, ps, table, cu, token_to_seq)
                rec["peer_equal_to_reference"] = bool(torch.equal(pk.view(torch.uint8), want_k))
                pr = bench(lambda: ipk.cp_gather_indexer_k_quant_cache_triton(cache, pk, ps, table, cu, token_to_seq))
                rec.update(peer_us=us(pr), speedup=us(pr) / us(r), goal_faster=us(pr) > us(r))
            except Exception as e:  # noqa: BLE001
                rec["peer_error"] = repr(e)[:300]
        record(rec)


def main():
    jit = tilejit.Jit()
    assert jit.device_target.startswith("sm_"), jit.device_target
    cbk = peer("vllm_dsa_candidate_blocks")
    ipk = peer("vllm_triton_indexer_cache")
    items = os.environ.get("ITEMS", "mask,slope,quant,gather").split(",")
    for name, fn, p in (("mask", item_mask, cbk), ("slope", item_slope, cbk),
                        ("quant", item_quant, ipk), ("gather", item_gather, ipk)):
        if name in items:
            fn(jit, p)
    summary()


def summary():
    """One line per goal: its verdict over every record of the run, and the worst case."""
    def line(goal, recs, ok, worst):
        if recs:
            verdict = "PASS" if all(ok(r) for r in recs) else "FAIL"
            print(f"GOAL {goal}: {verdict} ({worst(recs)})")
    mask = [r for r in RECORDS if r["item"] == "mask"]
    line("mask exact within ends, untouched past them", mask,
         lambda r: r["past_end_untouched"] and r.get("equal_to_peer_within_ends", False),
         lambda rs: f"{len(rs)} cases")
    timed = [r for r in mask if "speedup" in r]
    line("mask >= 6x the shared kernel", timed, lambda r: r["speedup"] >= 6,
         lambda rs: "worst %.2fx: %.1f us vs %.1f us" % min((r["speedup"], r["tilejit_us"], r["peer_us"]) for r in rs))
    for r in RECORDS:
        if r["item"] == "slope_fit":
            print("SLOPE mask time over live columns: %.3f us per million live columns, intercept %.1f us"
                  % (r["us_per_million_live_columns"], r["intercept_us"]))
    for item in ("quant", "gather"):
        recs = [r for r in RECORDS if r["item"] == item]
        line(f"{item} exact", recs, lambda r: r["exact"], lambda rs: f"{len(rs)} cases")
        line(f"{item} >= 85 % of the copy floor", recs, lambda r: r["of_floor"] >= 0.85,
             lambda rs: "worst %.0f %% at block %d" % min((100 * r["of_floor"], r["block"]) for r in rs))
        peers = [r for r in recs if "speedup" in r]
        line(f"{item} faster than the Triton peer", peers, lambda r: r["speedup"] > 1,
             lambda rs: "worst %.2fx at block %d" % min((r["speedup"], r["block"]) for r in rs))


if __name__ == "__main__":
    main()
