"""reshape_and_cache and merge_attn_states on the GPU: tilejit against the vLLM Triton peers,
in the same process, timed the same way (bench/peers/common.py: one event pair per iteration,
median, L2 flushed, GPU spin before each start).

Run on the GPU machine from the repo root (PEERS_DIR holds the recreated peer kernels):
    PYTHONPATH=python:bench/peers PEERS_DIR=.peers python3 bench/bench_memory_kernels.py
Writes JSON lines to $OUT/memory_kernels.jsonl and prints a table.
"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "peers"))
from common import bench  # noqa: E402

import tilejit  # noqa: E402

OUT = os.environ.get("OUT", "/tmp/out")
os.makedirs(OUT, exist_ok=True)
rows = []


def tbps(nbytes, r):
    return nbytes / (r["median_ms"] * 1e-3) / 1e12


def record(rec):
    rows.append(rec)
    with open(os.path.join(OUT, "memory_kernels.jsonl"), "a") as f:
        f.write(json.dumps(rec) + "\n")


def merge_reference(p_out, p_lse, s_out, s_lse):
    p = p_lse.double().T.clone()
    s = s_lse.double().T.clone()
    p[p == math.inf] = -math.inf
    s[s == math.inf] = -math.inf
    m = torch.maximum(p, s)
    both = m == -math.inf
    m = torch.where(both, torch.zeros_like(m), m)
    pe, se = torch.exp(p - m), torch.exp(s - m)
    tot = pe + se
    tot = torch.where(tot == 0, torch.ones_like(tot), tot)
    pw, sw = (pe / tot).unsqueeze(-1), (se / tot).unsqueeze(-1)
    po = torch.where(pw > 0, p_out.double() * pw, torch.zeros_like(pw))
    so = torch.where(sw > 0, s_out.double() * sw, torch.zeros_like(sw))
    return po + so


def rel_err(out, ref):
    o = out.double()
    if torch.isnan(o).any():
        return float("inf")
    return ((o - ref).norm() / ref.norm()).item()


def bench_merge(jit, peer):
    H, D = 32, 128
    for hpp in (int(os.environ.get("MERGE_HPP", "16")),):
        # num_warps from the target's tuning table
        kernel = jit.load("merge_attn_states", head_size=D, dtype="bf16", heads_per_program=hpp)
        for N in (512, 4096, 32768):
            p_out = torch.randn(N, H, D, device="cuda").to(torch.bfloat16)
            s_out = torch.randn(N, H, D, device="cuda").to(torch.bfloat16)
            p_lse = torch.randn(H, N, device="cuda") * 3
            s_lse = torch.randn(H, N, device="cuda") * 3
            # edge rows: empty sides (with NaN outputs) and both empty
            code = torch.randint(0, 100, (H, N), device="cuda")
            p_lse[code < 5] = -math.inf
            s_lse[(code >= 5) & (code < 10)] = -math.inf
            p_lse[(code >= 10) & (code < 12)] = -math.inf
            s_lse[(code >= 10) & (code < 12)] = -math.inf
            p_lse[(code >= 12) & (code < 14)] = math.inf
            ref = merge_reference(p_out, p_lse, s_out, s_lse)
            p_nan, s_nan = p_out.clone(), s_out.clone()
            p_nan[((code < 5) | ((code >= 10) & (code < 14))).T] = float("nan")
            s_nan[((code >= 5) & (code < 12)).T] = float("nan")
            out = torch.full((N, H, D), float("nan"), dtype=torch.bfloat16, device="cuda")
            out_lse = torch.full((H, N), float("nan"), device="cuda")
            args = kernel.make_args(out, out_lse, p_nan, p_lse, s_nan, s_lse)
            kernel.launch_args(args)
            torch.cuda.synchronize()
            err_edges = rel_err(out, ref)
            nan_rows = int(torch.isnan(out.float()).any(-1).sum())
            # timing on clean data, as the peers were timed
            args = kernel.make_args(out, out_lse, p_out, p_lse, s_out, s_lse)
            nbytes = 3 * N * H * D * 2 + 3 * H * N * 4  # both LSEs read + merged LSE written
            r = bench(lambda: kernel.launch_args(args))
            rec = dict(item="merge", N=N, H=H, D=D, heads_per_program=hpp, bytes=nbytes,
                       tilejit_us=r["median_ms"] * 1e3, tilejit_TBps=tbps(nbytes, r),
                       tilejit_rel_err_with_edges=err_edges, tilejit_nan_rows=nan_rows, tilejit=r)
            if peer is not None:
                peer_out = torch.empty_like(out)
                pr = bench(lambda: peer(peer_out, p_out, p_lse, s_out, s_lse, out_lse))
                rec.update(peer_lse_us=pr["median_ms"] * 1e3, peer_lse_TBps=tbps(nbytes, pr), peer=pr)
            fr = bench(lambda: torch.add(p_out, s_out, out=out))
            rec.update(torch_add_us=fr["median_ms"] * 1e3, torch_add_TBps=tbps(3 * N * H * D * 2, fr))
            record(rec)


def standard_rows(cache, layout, which, heads, head_size):
    """A cache as [blocks * block_size, heads, head_size] in token order, whatever its layout
    (a copy for the shuffled ones): K [blocks, heads, D/X, block_size, X] read as [blocks,
    block_size, heads, D/X, X]; V [blocks, heads, block_size/X, D, X] as [blocks, block_size/X,
    X, heads, D]."""
    if layout != "standard":
        cache = cache.permute(0, 3, 1, 2, 4) if which == "k" else cache.permute(0, 2, 4, 1, 3)
    return cache.reshape(-1, heads, head_size)


def bench_cache(jit, peer):
    NB, BS, H, D = 16384, 16, 8, 128
    # CACHE_LAYOUT=shuffled measures the shuffled layout (CONTEXT.md section 5; no peer has it).
    layout = os.environ.get("CACHE_LAYOUT", "standard")
    # CACHE_SLOTS=consecutive writes whole runs of slots (a prefill) instead of random ones.
    slots = os.environ.get("CACHE_SLOTS", "random")
    if slots not in ("random", "consecutive"):
        sys.exit(f"CACHE_SLOTS={slots}: random or consecutive")
    kernel = jit.load("reshape_and_cache", head_size=D, dtype="bf16", block_size=BS, kv_layout=layout)
    X = 16 // 2
    if layout == "standard":
        kc = torch.empty(NB, BS, H, D, dtype=torch.bfloat16, device="cuda").normal_()
        vc = torch.empty(NB, BS, H, D, dtype=torch.bfloat16, device="cuda").normal_()
    else:
        kc = torch.empty(NB, H, D // X, BS, X, dtype=torch.bfloat16, device="cuda").normal_()
        vc = torch.empty(NB, H, BS // X, D, X, dtype=torch.bfloat16, device="cuda").normal_()
        peer = None
    one_s = torch.ones(1, dtype=torch.float32, device="cuda")
    for N in (256, 4096, 32768):
        key = torch.randn(N, H, D, device="cuda").to(torch.bfloat16)
        val = torch.randn(N, H, D, device="cuda").to(torch.bfloat16)
        if slots == "random":  # decode-like: one token per sequence, anywhere in the cache
            slot = torch.randperm(NB * BS, device="cuda")[:N].contiguous()
        else:  # prefill-like: the tokens of one sequence fill consecutive slots of its blocks
            first = int(torch.randint(0, (NB * BS - N) // BS + 1, (1,))) * BS
            slot = torch.arange(first, first + N, device="cuda")
        moved = 4 * N * H * D * 2
        rec = dict(item="cache", layout=layout, slots=slots, N=N, kv_heads=H, head=D, blocks=NB, block=BS, bytes=moved)
        args = kernel.make_args(key, val, kc, vc, slot, one_s, one_s)  # (fp8 scales: unread here)
        if layout == "standard":  # the slots to be written poisoned first
            kc.view(-1, H, D)[slot] = float("nan")
            vc.view(-1, H, D)[slot] = float("nan")
        before_k = standard_rows(kc, layout, "k", H, D).clone()
        before_v = standard_rows(vc, layout, "v", H, D).clone()
        kernel.launch_args(args)
        torch.cuda.synchronize()
        after_k, after_v = standard_rows(kc, layout, "k", H, D), standard_rows(vc, layout, "v", H, D)
        untouched = torch.ones(NB * BS, dtype=torch.bool, device="cuda")
        untouched[slot] = False
        rec["tilejit_correct"] = bool(torch.equal(after_k[slot], key) and torch.equal(after_v[slot], val)
                                      and torch.equal(after_k[untouched], before_k[untouched])
                                      and torch.equal(after_v[untouched], before_v[untouched]))
        r = bench(lambda: kernel.launch_args(args))
        rec.update(tilejit_us=r["median_ms"] * 1e3, tilejit_TBps=tbps(moved, r), tilejit=r)
        if peer is not None:
            pr = bench(lambda: peer(key, val, kc, vc, slot, "auto", one_s, one_s))
            rec.update(peer_us=pr["median_ms"] * 1e3, peer_TBps=tbps(moved, pr), peer=pr)
        src = torch.randn(2, N, H, D, device="cuda").to(torch.bfloat16)
        dst = torch.empty_like(src)
        cr = bench(lambda: dst.copy_(src))
        rec.update(copy_us=cr["median_ms"] * 1e3, copy_TBps=tbps(moved, cr))
        record(rec)


def main():
    jit = tilejit.Jit()
    assert jit.device_target.startswith("sm_"), jit.device_target
    try:
        import vllm_triton_merge_attn_states as merge_peer
        merge_fn = merge_peer.merge_attn_states
    except Exception as e:  # noqa: BLE001
        print("merge peer unavailable:", e)
        merge_fn = None
    try:
        import vllm_triton_reshape_and_cache_flash as cache_peer
        cache_fn = cache_peer.triton_reshape_and_cache_flash
    except Exception as e:  # noqa: BLE001
        print("cache peer unavailable:", e)
        cache_fn = None
    items = os.environ.get("ITEMS", "cache,merge").split(",")
    if "cache" in items:
        bench_cache(jit, cache_fn)
    if "merge" in items:
        bench_merge(jit, merge_fn)
    print(f"{'item':6} {'N':>6} {'tilejit us':>10} {'TB/s':>6} {'peer us':>9} {'TB/s':>6} "
          f"{'floor us':>9} {'TB/s':>6}  check")
    for r in rows:
        peer_us = r.get("peer_us", r.get("peer_lse_us", float("nan")))
        peer_tb = r.get("peer_TBps", r.get("peer_lse_TBps", float("nan")))
        floor_us = r.get("copy_us", r.get("torch_add_us"))
        floor_tb = r.get("copy_TBps", r.get("torch_add_TBps"))
        check = (f"exact={r['tilejit_correct']}" if r["item"] == "cache"
                 else f"relerr={r['tilejit_rel_err_with_edges']:.1e} nan_rows={r['tilejit_nan_rows']}")
        print(f"{r['item']:6} {r['N']:>6} {r['tilejit_us']:>10.1f} {r['tilejit_TBps']:>6.2f} "
              f"{peer_us:>9.1f} {peer_tb:>6.2f} {floor_us:>9.1f} {floor_tb:>6.2f}  {check}")


if __name__ == "__main__":
    main()
