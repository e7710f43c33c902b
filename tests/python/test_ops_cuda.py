"""tilejit.ops on CUDA tensors (GPU machine; skips without CUDA; `python3 <file>` runs it without
pytest): results against the float64
references, launches on the current torch stream (a CUDA graph captured on torch's capture
stream replays them; a launch on another stream would break the capture), plan.run captured
and replayed with new inputs, one-shot calls under capture, and tensors on two devices."""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python"), HERE]
try:
    import pytest
except ImportError:  # run as a script on a machine without pytest
    import minitest as pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    NO_GPU = "no CUDA device (tilejit.ops on CUDA tensors runs on the GPU machine)"
    if __name__ == "__main__":
        print(f"SKIP: {NO_GPU}")
        sys.exit(0)
    pytest.skip(NO_GPU, allow_module_level=True)
import tilejit.ops as ops  # noqa: E402
import references as R  # noqa: E402


def cuda(p):
    return {k: (v.cuda() if isinstance(v, torch.Tensor) else v) for k, v in p.items()}


def decode_problem(seed):
    p = R.paged_problem([1, 300, 77, 16, 0, 1024, 5, 129], 8, 128, 16, 4, torch.bfloat16, seed=seed)
    return p, R.paged_decode_reference(p, 1 / math.sqrt(128), 4)


def close(got, want):
    assert not torch.isnan(got).any()
    torch.testing.assert_close(got.cpu().double(), want, atol=2e-2, rtol=2e-2)


def test_paged_decode_graph_replays_new_inputs():
    p, want = decode_problem(0)
    g = cuda(p)
    plan = ops.PagedDecodePlan(8, 32, 8, 128, 16, 1024, dtype=torch.bfloat16, device="cuda")
    out = torch.full_like(g["query"], float("nan"))
    args = (g["query"], g["key_cache"], g["value_cache"], g["block_tables"], g["seq_lens"], 1 / math.sqrt(128))
    close(plan.run(*args, out=out), want)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        plan.run(*args, out=out)
    q2, want2 = decode_problem(1)  # same geometry and table, new values
    g["query"].copy_(q2["query"].cuda())
    g["key_cache"].copy_(q2["key_cache"].cuda())
    g["value_cache"].copy_(q2["value_cache"].cuda())
    g["block_tables"].copy_(q2["block_tables"].cuda())
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    close(out, want2)


def test_one_shot_calls_capture_once_planned():
    """Module functions reuse their plan under capture, and refuse to make one there."""
    p, want = decode_problem(2)
    g = cuda(p)
    out = torch.empty_like(g["query"])
    call = lambda: ops.paged_decode(out, g["query"], g["key_cache"], g["value_cache"],  # noqa: E731
                                    g["block_tables"], g["seq_lens"], 1 / math.sqrt(128))
    call()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call()
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    close(out, want)
    state = torch.zeros(3, 4, 64, dtype=torch.bfloat16, device="cuda")
    lse = torch.zeros(4, 3, device="cuda")
    with pytest.raises(ops.ArgumentError, match="call it once before capture"):
        with torch.cuda.graph(torch.cuda.CUDAGraph()):
            ops.merge_attn_states(state.clone(), state, lse, state, lse)


def test_side_stream():
    p, want = decode_problem(3)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        g = cuda(p)
        out = ops.paged_decode(torch.empty_like(g["query"]), g["query"], g["key_cache"],
                               g["value_cache"], g["block_tables"], g["seq_lens"], 1 / math.sqrt(128))
    side.synchronize()
    close(out, want)


def test_cache_merge_and_dsa_ops_on_cuda():
    gen = torch.Generator().manual_seed(4)
    key = torch.randn(9, 2, 128, generator=gen).to(torch.bfloat16)
    slots = torch.randperm(64, generator=gen)[:9]
    caches = [torch.full((4, 16, 2, 128), float("nan"), dtype=torch.bfloat16, device="cuda") for _ in range(2)]
    ops.reshape_and_cache(key.cuda(), key.cuda(), caches[0], caches[1], slots.cuda())
    assert torch.equal(caches[0].view(-1, 2, 128)[slots.cuda()].cpu(), key)
    prefix, suffix = (torch.randn(5, 4, 128, generator=gen).to(torch.bfloat16) for _ in range(2))
    plse, slse = torch.randn(4, 5, generator=gen), torch.randn(4, 5, generator=gen)
    out = ops.merge_attn_states(torch.empty_like(prefix).cuda(), prefix.cuda(), plse.cuda(),
                                suffix.cuda(), slse.cuda())
    close(out, R.merge_reference(prefix, plse, suffix, slse)[0])
    logits = torch.randn(4, 256, generator=gen)
    ends = torch.tensor([100, 256], dtype=torch.int32)
    cand = torch.randint(-1, 16, (4, 3), generator=gen, dtype=torch.int32)
    got = ops.candidate_mask(logits.cuda(), None, ends.cuda(), cand.cuda(), 16)
    assert torch.equal(got.cpu(), R.candidate_mask_reference(logits, None, ends, cand, 16))
    k = torch.randn(6, 128, generator=gen).to(torch.bfloat16)
    cache = torch.full((2, 16, 132), 0xFF, dtype=torch.uint8, device="cuda")
    ops.indexer_k_quant_and_cache(k.cuda(), cache, torch.arange(6, device="cuda"))
    scale = k.float().abs().amax(-1).clamp_min(1e-4) / 448.0
    values = cache.view(2, -1)[:, :16 * 128].reshape(2, 16, 128)[0, :6].cpu()
    assert torch.equal(values, R.e4m3_encode(k.float() / scale[:, None]))


def test_mla_decode_on_cuda():
    gen = torch.Generator().manual_seed(5)
    latent = torch.randn(6, 64, 576, generator=gen).to(torch.bfloat16)
    table = torch.tensor([[4, 1], [0, 5]], dtype=torch.int32)
    lens = torch.tensor([70, 128], dtype=torch.int32)
    query = torch.randn(2, 16, 576, generator=gen).to(torch.bfloat16)
    out = ops.mla_decode(torch.empty(2, 16, 512, dtype=torch.bfloat16, device="cuda"), query.cuda(),
                         latent.cuda(), table.cuda(), lens.cuda(), 1 / math.sqrt(192))
    close(out, R.mla_reference(query, latent, table, lens, 1 / math.sqrt(192), 1))


def test_two_devices_in_one_call():
    p, _ = decode_problem(6)
    g = cuda(p)
    with pytest.raises(ops.ArgumentError, match="'key_cache' is on cpu but 'query' is on cuda"):
        ops.paged_decode(torch.empty_like(g["query"]), g["query"], p["key_cache"], g["value_cache"],
                         g["block_tables"], g["seq_lens"], 0.1)
    plan = ops.MergeAttnStatesPlan(8, 4, 64, dtype=torch.bfloat16, device="cuda")
    state = torch.zeros(3, 4, 64, dtype=torch.bfloat16)
    with pytest.raises(ops.ArgumentError, match="'prefix_output' is on cpu but the plan was made for cuda"):
        plan.run(state, torch.zeros(4, 3), state, torch.zeros(4, 3))


if __name__ == "__main__":
    import minitest
    sys.exit(minitest.run(dict(globals())))
