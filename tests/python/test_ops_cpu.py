"""tilejit.ops on CPU tensors (the CPU backend) against float64 torch references: caches NaN
outside the sequences, outputs poisoned with NaN before each call."""
import math

import pytest

torch = pytest.importorskip("torch")
import tilejit.ops as ops  # noqa: E402
import references as R  # noqa: E402

BF16_TOLERANCE = dict(atol=2e-2, rtol=2e-2)


def close(got, want, tolerance=BF16_TOLERANCE):
    assert not torch.isnan(got).any(), "NaN in the output"
    torch.testing.assert_close(got.double(), want.double(), **tolerance)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("gqa,block_size", [(1, 16), (4, 8), (8, 32)])
def test_paged_decode(dtype, gqa, block_size):
    p = R.paged_problem([5, 0, 70, 17, 1], 2, 64, block_size, gqa, dtype, seed=gqa)
    out = torch.full_like(p["query"], float("nan"))
    got = ops.paged_decode(out, p["query"], p["key_cache"], p["value_cache"], p["block_tables"],
                           p["seq_lens"], 0.125)
    assert got is out
    close(out, R.paged_decode_reference(p, 0.125, gqa))


def test_paged_decode_plan_reuse_and_out():
    """One plan, two problems of fewer sequences; run without out= returns a new tensor."""
    plan = ops.PagedDecodePlan(num_seqs=6, num_q_heads=8, num_kv_heads=2, head_size=64,
                               block_size=16, max_model_len=128, dtype=torch.bfloat16, device="cpu")
    compiled = ops.compiled_count()
    for seed, lens in ((1, [3, 128, 40]), (2, [17, 9, 0, 100, 64, 1])):
        p = R.paged_problem(lens, 2, 64, 16, 4, torch.bfloat16, seed=seed)
        got = plan.run(p["query"], p["key_cache"], p["value_cache"], p["block_tables"],
                       p["seq_lens"], 0.1)
        close(got, R.paged_decode_reference(p, 0.1, 4))
        out = torch.full_like(p["query"], float("nan"))
        assert plan.run(p["query"], p["key_cache"], p["value_cache"], p["block_tables"],
                        p["seq_lens"], 0.1, out=out) is out
        assert torch.equal(out, got)
    assert ops.compiled_count() == compiled, "run() compiled again"


def test_ops_compile_once_per_config():
    """Calls of the same config and sizes reuse their plan; a second plan of one config reuses
    its op."""
    p = R.paged_problem([7, 30], 2, 64, 16, 2, torch.bfloat16, seed=9)
    args = (p["query"], p["key_cache"], p["value_cache"], p["block_tables"], p["seq_lens"], 0.1)
    first = ops.paged_decode(torch.empty_like(p["query"]), *args)
    created = ops.compiled_count()
    assert torch.equal(ops.paged_decode(torch.empty_like(p["query"]), *args), first)
    plans = [ops.MergeAttnStatesPlan(n, 2, 64, dtype=torch.bfloat16, device="cpu") for n in (4, 8)]
    assert ops.compiled_count() <= created + 1, "a second plan of one config compiled again"
    assert plans[0]._op is plans[1]._op


def test_paged_decode_strided_query():
    """A query sliced out of a fused qkv projection (rows strided, heads dense)."""
    p = R.paged_problem([9, 33], 2, 64, 16, 2, torch.bfloat16, seed=5)
    qkv = torch.randn(2, 4 + 2 + 2, 64).to(torch.bfloat16)
    qkv[:, :4] = p["query"]
    query = qkv[:, :4]
    assert not query.is_contiguous()
    out = ops.paged_decode(torch.empty(2, 4, 64, dtype=torch.bfloat16), query, p["key_cache"],
                           p["value_cache"], p["block_tables"], p["seq_lens"], 0.125)
    close(out, R.paged_decode_reference(p, 0.125, 2))


def test_paged_decode_alibi_sinks_window():
    p = R.paged_problem([30, 12], 1, 64, 16, 2, torch.bfloat16, seed=6)
    slopes = torch.tensor([0.5, 0.25])
    sinks = torch.tensor([1.0, -2.0])
    out = torch.full_like(p["query"], float("nan"))
    ops.paged_decode(out, p["query"], p["key_cache"], p["value_cache"], p["block_tables"],
                     p["seq_lens"], 0.125, alibi_slopes=slopes, sinks=sinks, sliding_window=8)
    want = []
    for s, n in enumerate([30, 12]):
        k = p["keys"][s].double().repeat_interleave(2, 1)[n - 8:]
        v = p["values"][s].double().repeat_interleave(2, 1)[n - 8:]
        logits = torch.einsum("hd,nhd->hn", p["query"][s].double(), k) * 0.125
        logits = logits + slopes.double()[:, None] * (torch.arange(n - 8, n) - (n - 1)).double()
        weights = torch.exp(logits - logits.max(-1, keepdim=True).values)
        sink = torch.exp(sinks.double() - logits.max(-1).values)
        want.append(torch.einsum("hn,nhd->hd", weights, v) / (weights.sum(-1) + sink)[:, None])
    close(out, torch.stack(want))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_merge_attn_states(dtype):
    gen = torch.Generator().manual_seed(3)
    tokens, heads, head = 7, 4, 64
    prefix = torch.randn(tokens, heads, head, generator=gen).to(dtype)
    suffix = torch.randn(tokens, heads, head, generator=gen).to(dtype)
    prefix_lse = torch.randn(heads, tokens, generator=gen) * 3
    suffix_lse = torch.randn(heads, tokens, generator=gen) * 3
    want, want_lse = R.merge_reference(prefix, prefix_lse, suffix, suffix_lse)
    out = torch.full_like(prefix, float("nan"))
    out_lse = torch.full_like(prefix_lse, float("nan"))
    assert ops.merge_attn_states(out, prefix, prefix_lse, suffix, suffix_lse, out_lse) is out
    close(out, want)
    close(out_lse, want_lse, dict(atol=1e-5, rtol=1e-5))
    again = torch.full_like(prefix, float("nan"))
    ops.merge_attn_states(again, prefix, prefix_lse, suffix, suffix_lse)  # no LSE wanted back
    assert torch.equal(again, out)
    plan = ops.MergeAttnStatesPlan(16, heads, head, dtype=dtype, device="cpu")
    assert torch.equal(plan.run(prefix, prefix_lse, suffix, suffix_lse), out)


@pytest.mark.parametrize("block_size", [16, 1])
def test_reshape_and_cache(block_size):
    gen = torch.Generator().manual_seed(block_size)
    tokens, heads, head, blocks = 11, 2, 64, 12
    kv = torch.randn(tokens, 2 * heads, head, generator=gen).to(torch.bfloat16)
    key, value = kv[:, :heads], kv[:, heads:]  # strided slices, as vLLM passes them
    slots = torch.randperm(blocks * block_size, generator=gen)[:tokens]
    slots[3] = -1  # padding: skipped
    key_cache = torch.full((blocks, block_size, heads, head), float("nan"), dtype=torch.bfloat16)
    value_cache = key_cache.clone()
    ops.reshape_and_cache(key, value, key_cache, value_cache, slots)
    want_k = torch.full_like(key_cache, float("nan")).view(-1, heads, head)
    want_v = want_k.clone()
    keep = slots >= 0
    want_k[slots[keep]] = key[keep]
    want_v[slots[keep]] = value[keep]
    assert torch.equal(key_cache.view(-1, heads, head).view(torch.int16), want_k.view(torch.int16))
    assert torch.equal(value_cache.view(-1, heads, head).view(torch.int16), want_v.view(torch.int16))


def test_fp8_cache_round_trip():
    """reshape_and_cache into uint8 e4m3 caches with per-head scales, then paged_decode reading
    them: each code is value / scale rounded to nearest even, and the decode's output is
    attention over the decoded cache."""
    gen = torch.Generator().manual_seed(11)
    lens, heads, head, block_size = [13, 30], 2, 64, 16
    tokens = sum(lens)
    key = torch.randn(tokens, heads, head, generator=gen).to(torch.bfloat16)
    value = torch.randn(tokens, heads, head, generator=gen).to(torch.bfloat16)
    k_scale, v_scale = torch.tensor([0.01, 0.02]), torch.tensor([0.015, 0.005])
    blocks = 5
    table = torch.tensor([[3, 0, 0], [1, 4, 2]], dtype=torch.int32)
    slots = torch.cat([table[s, torch.arange(n) // block_size].long() * block_size
                       + torch.arange(n) % block_size for s, n in enumerate(lens)])
    key_cache = torch.full((blocks, block_size, heads, head), 0x7F, dtype=torch.uint8)  # NaN codes
    value_cache = key_cache.clone()
    ops.reshape_and_cache(key, value, key_cache, value_cache, slots, "fp8_e4m3", k_scale, v_scale)
    flat_k = key_cache.view(-1, heads, head)[slots]
    assert torch.equal(flat_k, R.e4m3_encode(key.float() / k_scale[:, None]))
    decoded_k = R.e4m3_decode(flat_k) * k_scale.double()[:, None]
    decoded_v = R.e4m3_decode(value_cache.view(-1, heads, head)[slots]) * v_scale.double()[:, None]
    query = torch.randn(2, heads * 4, head, generator=gen).to(torch.bfloat16)
    out = torch.full_like(query, float("nan"))
    ops.paged_decode(out, query, key_cache, value_cache, table, torch.tensor(lens, dtype=torch.int32),
                     0.125, kv_cache_dtype="fp8_e4m3", k_scale=k_scale, v_scale=v_scale)
    starts = [0, lens[0]]
    want = torch.stack([R.attention(query[s], decoded_k[starts[s]:starts[s] + n],
                                    decoded_v[starts[s]:starts[s] + n], 0.125, 4)
                        for s, n in enumerate(lens)])
    close(out, want)


@pytest.mark.parametrize("q_len", [1, 2])
def test_mla_decode(q_len):
    gen = torch.Generator().manual_seed(q_len)
    block_size, lens, heads = 16, [20, 3, 47], 4
    blocks = 12
    latent = torch.full((blocks, block_size, 576), float("nan"), dtype=torch.bfloat16)
    table = torch.tensor([[5, 2, 0, 0], [7, 0, 0, 0], [1, 9, 3, 11]], dtype=torch.int32)
    for s, n in enumerate(lens):
        for b in range(-(-n // block_size)):
            rows = min(block_size, n - b * block_size)
            latent[table[s, b], :rows] = torch.randn(rows, 576, generator=gen).to(torch.bfloat16)
    query = torch.randn(len(lens) * q_len, heads, 576, generator=gen).to(torch.bfloat16)
    seq_lens = torch.tensor(lens, dtype=torch.int32)
    scale = 1 / math.sqrt(192)
    out = torch.full((len(lens) * q_len, heads, 512), float("nan"), dtype=torch.bfloat16)
    assert ops.mla_decode(out, query, latent, table, seq_lens, scale) is out
    close(out, R.mla_reference(query, latent, table, seq_lens, scale, q_len))
    plan = ops.MlaDecodePlan(4, heads, block_size, 64, dtype=torch.bfloat16, device="cpu",
                             q_len=q_len)
    assert torch.equal(plan.run(query, latent.unsqueeze(2), table, seq_lens, scale), out)


@pytest.mark.parametrize("has_starts", [False, True])
def test_candidate_mask(has_starts):
    gen = torch.Generator().manual_seed(int(has_starts))
    rows, width, block_size = 6, 300, 16  # 3 bounds: rows share them in pairs
    packed = torch.randn(rows, width, 2, generator=gen)
    other = packed[..., 1].clone()
    logits = packed[..., 0]  # every other column of a packed workspace: column stride 2
    ends = torch.tensor([40, 300, 129], dtype=torch.int32)
    starts = torch.tensor([3, 0, 100], dtype=torch.int32) if has_starts else None
    candidates = torch.randint(-1, 20, (rows, 5), generator=gen, dtype=torch.int32)
    want = R.candidate_mask_reference(logits, starts, ends, candidates, block_size)
    assert ops.candidate_mask(logits, starts, ends, candidates, block_size) is logits
    assert torch.equal(logits, want)
    assert torch.equal(packed[..., 1], other), "the workspace's other columns changed"


@pytest.mark.parametrize("scale_fmt", [None, "ue8m0"])
@pytest.mark.parametrize("block_size", [16, 3])
def test_indexer_cache_quant_and_gather(scale_fmt, block_size):
    gen = torch.Generator().manual_seed(block_size)
    lens = [2 * block_size + 1, 4, block_size]
    tokens, blocks = sum(lens), sum(-(-n // block_size) for n in lens) + 2
    k = (torch.randn(tokens, 128, generator=gen) *
         torch.exp2(torch.randint(-20, 6, (tokens, 1), generator=gen).float())).to(torch.bfloat16)
    width = max(-(-n // block_size) for n in lens)
    order = torch.randperm(blocks, generator=gen).to(torch.int32)
    table = torch.zeros(len(lens), width, dtype=torch.int32)
    slots, used = [], 0
    for s, n in enumerate(lens):
        for b in range(-(-n // block_size)):
            table[s, b] = order[used]
            used += 1
        slots.append(table[s, torch.arange(n) // block_size].long() * block_size + torch.arange(n) % block_size)
    slots = torch.cat(slots)
    cache = torch.full((blocks, block_size, 132), 0xFF, dtype=torch.uint8)
    ops.indexer_k_quant_and_cache(k, cache, slots, 128, scale_fmt)
    scale = k.float().abs().amax(-1).clamp_min(1e-4) / 448.0
    if scale_fmt == "ue8m0":
        mantissa, exponent = torch.frexp(scale)
        scale = torch.where(mantissa == 0.5, scale, torch.ldexp(torch.ones_like(scale), exponent))
    flat = cache.view(blocks, -1)
    b, o = slots // block_size, slots % block_size
    values = flat[:, :block_size * 128].reshape(blocks, block_size, 128)[b, o]
    scales = flat[:, block_size * 128:].reshape(blocks, block_size, 4)[b, o].view(torch.float32)[:, 0]
    assert torch.equal(scales.view(torch.int32), scale.view(torch.int32))
    assert torch.equal(values, R.e4m3_encode(k.float() / scale[:, None]))
    dst_k = torch.full((tokens, 128), 0xFF, dtype=torch.uint8)
    dst_scale = torch.full((tokens, 1), float("nan"))
    cu = torch.tensor([0] + lens, dtype=torch.int32).cumsum(0).to(torch.int32)
    ops.gather_indexer_k_quant_cache(cache, dst_k, dst_scale, table, cu)
    assert torch.equal(dst_k, values)
    assert torch.equal(dst_scale[:, 0].view(torch.int32), scale.view(torch.int32))
