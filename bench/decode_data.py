"""Paged-decode inputs shared by the benchmark scripts: a bf16 K/V cache [blocks, block, kv
heads, head] of random normals behind a shuffled block table, sequences of full length
`ctx`, and one query token per sequence; the op at a cell with every sequence cut to a
length (cell_op); and the merge's step and heads per program as PagedDecode would pick them."""
import math
import types

import torch


def decode_inputs(b, ctx, hq, hkv, D=128, BS=16, device="cuda"):
    nblk = b * ctx // BS
    k_cache = torch.empty(nblk, BS, hkv, D, dtype=torch.bfloat16, device=device).normal_()
    v_cache = torch.empty_like(k_cache).normal_()
    table = torch.randperm(nblk, device=device).to(torch.int32).view(b, ctx // BS)
    lens = torch.full((b,), ctx, dtype=torch.int32, device=device)
    q = torch.randn(b, hq, D, dtype=torch.bfloat16, device=device)
    return types.SimpleNamespace(k_cache=k_cache, v_cache=v_cache, table=table, lens=lens, q=q)


def cell_op(jit, cell, tuning, D=128, BS=16):
    """tilejit.PagedDecode (tiling: the table's, or `tuning`) at a cell "hq/hkv:batch:ctx", with
    its inputs and outputs; `.args(length)` are the launch's arguments with every sequence cut
    to `length` tokens (the grid stays the cell's)."""
    import tilejit

    heads, b, ctx = cell.split(":")
    hq, hkv = (int(h) for h in heads.split("/"))
    b, ctx = int(b), int(ctx)
    data = decode_inputs(b, ctx, hq, hkv, D, BS)
    op = tilejit.PagedDecode(jit, head_size=D, gqa_ratio=hq // hkv, block_size=BS, num_seqs=b,
                             num_kv_heads=hkv, max_model_len=ctx, **tuning)
    parts = op.max_partitions(ctx)
    out = torch.empty(b, hq, D, dtype=torch.bfloat16, device="cuda")
    p_out = torch.empty(b, parts, hq, D, dtype=torch.float32, device="cuda")
    p_lse = torch.empty(b, parts, hq, dtype=torch.float32, device="cuda")

    def args(length):
        lens = torch.full((b,), length, dtype=torch.int32, device="cuda")
        return op.make_args(out, data.q, data.k_cache, data.v_cache, data.table, lens, p_out, p_lse,
                            1 / math.sqrt(D))

    return types.SimpleNamespace(hq=hq, hkv=hkv, batch=b, ctx=ctx, op=op, args=args)


def merge_step(partitions, widest=16):
    """The merge's partitions_per_step as PagedDecode picks it for a known max_model_len: the
    tuned 16, or the next power of two of the partition count when that is smaller."""
    step = 1
    while step < partitions and step < widest:
        step *= 2
    return step


def merge_heads(batch, q_heads, step):
    """The merge's heads_per_program as PagedDecode picks it on the H200 (target tuning
    paged_decode_reduce.large_merge_*): from 2048 (sequence, q head) pairs, 8 heads but at
    most 32 heads x partitions_per_step; else 1."""
    if batch * q_heads < 2048:
        return 1
    return max(1, min(8, 32 // step))


def shuffled_caches(k, v, x=8):
    """[blocks, block_size, heads, D] -> K [blocks, heads, D/x, block_size, x] and
    V [blocks, heads, block_size/x, D, x] (x: 16 bytes of bf16), as tj/memory.h reads them."""
    blocks, bs, heads, d = k.shape
    ks = k.view(blocks, bs, heads, d // x, x).permute(0, 2, 3, 1, 4).contiguous()
    vs = v.view(blocks, bs // x, x, heads, d).permute(0, 3, 1, 4, 2).contiguous()
    return ks, vs
