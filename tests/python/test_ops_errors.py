"""Every bad-input class of tilejit.ops - dtype, shape, device, strides, a tensor on another
device than the rest or than its plan - is an ArgumentError (a ValueError and a TilejitError)
naming the argument, raised before anything launches: outputs and caches keep their poison."""
import pytest

torch = pytest.importorskip("torch")
import tilejit  # noqa: E402
import tilejit.ops as ops  # noqa: E402
import references as R  # noqa: E402


def meta(t):
    return torch.empty(t.shape, dtype=t.dtype, device="meta")


def transposed_inner(t):
    """The same shape with the last dimension strided (not dense)."""
    return t.transpose(-1, -2).contiguous().transpose(-1, -2)


def strided_rows(t):
    """The same shape, dense last dimension, not contiguous."""
    return torch.cat([t, t], dim=-2)[..., ::2, :] if t.dim() >= 2 else t


def decode_call():
    p = R.paged_problem([5, 20], 2, 64, 16, 2, torch.bfloat16, seed=1)
    args = dict(out=torch.full_like(p["query"], float("nan")), query=p["query"],
                key_cache=p["key_cache"], value_cache=p["value_cache"],
                block_tables=p["block_tables"], seq_lens=p["seq_lens"])
    return args, lambda a: ops.paged_decode(a["out"], a["query"], a["key_cache"], a["value_cache"],
                                            a["block_tables"], a["seq_lens"], 0.125), "out"


def merge_call():
    state = torch.randn(3, 4, 64).to(torch.bfloat16)
    args = dict(output=torch.full_like(state, float("nan")), prefix_output=state,
                prefix_lse=torch.zeros(4, 3), suffix_output=state.clone(), suffix_lse=torch.zeros(4, 3))
    return args, lambda a: ops.merge_attn_states(a["output"], a["prefix_output"], a["prefix_lse"],
                                                 a["suffix_output"], a["suffix_lse"]), "output"


def cache_call():
    kv = torch.randn(4, 2, 64).to(torch.bfloat16)
    args = dict(key=kv, value=kv.clone(),
                key_cache=torch.full((3, 16, 2, 64), float("nan"), dtype=torch.bfloat16),
                value_cache=torch.full((3, 16, 2, 64), float("nan"), dtype=torch.bfloat16),
                slot_mapping=torch.tensor([0, 5, 17, 40]))
    return args, lambda a: ops.reshape_and_cache(a["key"], a["value"], a["key_cache"],
                                                 a["value_cache"], a["slot_mapping"]), "key_cache"


def mla_call():
    latent = torch.full((4, 16, 576), float("nan"), dtype=torch.bfloat16)
    latent[1] = 1
    args = dict(out=torch.full((2, 4, 512), float("nan"), dtype=torch.bfloat16),
                query=torch.randn(2, 4, 576).to(torch.bfloat16), kv_c_and_k_pe_cache=latent,
                block_tables=torch.tensor([[1], [1]], dtype=torch.int32),
                seq_lens=torch.tensor([3, 16], dtype=torch.int32))
    return args, lambda a: ops.mla_decode(a["out"], a["query"], a["kv_c_and_k_pe_cache"],
                                          a["block_tables"], a["seq_lens"], 0.1), "out"


def mask_call():
    args = dict(logits=torch.full((4, 64), float("nan")), starts=torch.zeros(2, dtype=torch.int32),
                ends=torch.tensor([10, 64], dtype=torch.int32),
                candidates=torch.zeros(4, 3, dtype=torch.int32))
    return args, lambda a: ops.candidate_mask(a["logits"], a["starts"], a["ends"], a["candidates"],
                                              16), "logits"


def quant_call():
    args = dict(k=torch.randn(3, 128).to(torch.bfloat16),
                kv_cache=torch.full((2, 16, 132), 0xFF, dtype=torch.uint8),
                slot_mapping=torch.tensor([0, 1, 20]))
    return args, lambda a: ops.indexer_k_quant_and_cache(a["k"], a["kv_cache"], a["slot_mapping"]), "kv_cache"


def gather_call():
    args = dict(kv_cache=torch.zeros(2, 16, 132, dtype=torch.uint8),
                dst_k=torch.full((5, 128), 0xFF, dtype=torch.uint8),
                dst_scale=torch.full((5, 1), float("nan")),
                block_table=torch.tensor([[1], [0]], dtype=torch.int32),
                cu_seq_lens=torch.tensor([0, 2, 5], dtype=torch.int32))
    return args, lambda a: ops.gather_indexer_k_quant_cache(a["kv_cache"], a["dst_k"], a["dst_scale"],
                                                            a["block_table"], a["cu_seq_lens"]), "dst_k"


CALLS = {"paged_decode": decode_call, "merge_attn_states": merge_call, "reshape_and_cache": cache_call,
         "mla_decode": mla_call, "candidate_mask": mask_call, "indexer_k_quant_and_cache": quant_call,
         "gather_indexer_k_quant_cache": gather_call}

WRONG_DTYPE = {torch.bfloat16: torch.float32, torch.float32: torch.float64, torch.int32: torch.int64,
               torch.int64: torch.int32, torch.uint8: torch.int8}

# (op, argument) pairs each bad-input class is tried on: every tensor argument of every op.
CASES = [(op, name) for op, make in CALLS.items() for name in make()[0]]


def expect_rejected(op, name, change, fragment):
    args, call, written = CALLS[op]()
    target = args[written]
    before = target.clone()
    args[name] = change(args[name])
    with pytest.raises(ops.ArgumentError) as raised:
        call(args)
    message = str(raised.value)
    assert f"tilejit.ops.{op}" in message and f"'{name}'" in message and fragment in message, message
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, tilejit.TilejitError)
    assert torch.equal(target.view(torch.uint8), before.view(torch.uint8)), \
        "the output changed: something launched"


@pytest.mark.parametrize("op,name", CASES)
def test_good_inputs_run(op, name):
    """The baseline every case below changes one thing of."""
    args, call, _ = CALLS[op]()
    call(args)


@pytest.mark.parametrize("op,name", CASES)
def test_wrong_dtype(op, name):
    expect_rejected(op, name, lambda t: t.to(WRONG_DTYPE[t.dtype]), "dtype")


@pytest.mark.parametrize("op,name", CASES)
def test_wrong_shape(op, name):
    expect_rejected(op, name, lambda t: t[..., None], "shape")


# The first tensor each op checks: the device the others must share.
FIRST = {"paged_decode": "query", "merge_attn_states": "prefix_output", "reshape_and_cache": "key",
         "mla_decode": "query", "candidate_mask": "logits", "indexer_k_quant_and_cache": "k",
         "gather_indexer_k_quant_cache": "kv_cache"}


@pytest.mark.parametrize("op,name", CASES)
def test_wrong_device(op, name):
    if name == FIRST[op]:
        expect_rejected(op, name, meta, "is on meta; tilejit runs CPU and CUDA tensors")
    else:
        expect_rejected(op, name, meta, f"is on meta but '{FIRST[op]}' is on cpu")


@pytest.mark.parametrize("op,name", [("paged_decode", "seq_lens"), ("merge_attn_states", "suffix_output"),
                                     ("reshape_and_cache", "slot_mapping"), ("mla_decode", "seq_lens"),
                                     ("candidate_mask", "candidates"), ("indexer_k_quant_and_cache", "slot_mapping"),
                                     ("gather_indexer_k_quant_cache", "dst_scale")])
def test_inconsistent_extent(op, name):
    """One more row than the other arguments say (a shape symbol bound by an earlier one)."""
    expect_rejected(op, name, lambda t: torch.cat([t, t[:1]]), "makes")


@pytest.mark.parametrize("op,name", [c for c in CASES if CALLS[c[0]]()[0][c[1]].dim() >= 2
                                     and CALLS[c[0]]()[0][c[1]].shape[-1] > 1])
def test_inner_stride(op, name):
    if op == "candidate_mask" and name == "logits":
        pytest.skip("logits may have any strides (a column view of a packed workspace)")
    expect_rejected(op, name, transposed_inner, "stride")


@pytest.mark.parametrize("op,name", [("paged_decode", "key_cache"), ("paged_decode", "block_tables"),
                                     ("reshape_and_cache", "value_cache"), ("mla_decode", "kv_c_and_k_pe_cache"),
                                     ("indexer_k_quant_and_cache", "kv_cache"),
                                     ("gather_indexer_k_quant_cache", "dst_scale"),
                                     ("candidate_mask", "candidates")])
def test_not_contiguous(op, name):
    expect_rejected(op, name, strided_rows, "contiguous")


def test_plan_on_another_device():
    """A plan serves the device it was made for (here posing as cuda:0: no GPU is needed)."""
    plan = ops.MergeAttnStatesPlan(8, 4, 64, dtype=torch.bfloat16, device="cpu")
    plan.device = torch.device("cuda", 0)
    state = torch.zeros(3, 4, 64, dtype=torch.bfloat16)
    with pytest.raises(ops.ArgumentError, match="'prefix_output' is on cpu but the plan was made for cuda:0"):
        plan.run(state, torch.zeros(4, 3), state, torch.zeros(4, 3))


def test_plan_limits():
    plan = ops.PagedDecodePlan(1, 4, 2, 64, 16, 32, dtype=torch.bfloat16, device="cpu")
    p = R.paged_problem([5, 20], 2, 64, 16, 2, torch.bfloat16)
    with pytest.raises(ops.ArgumentError, match="'query' holds 2 sequences; the plan serves up to 1"):
        plan.run(p["query"], p["key_cache"], p["value_cache"], p["block_tables"], p["seq_lens"], 0.1)
    wide = ops.PagedDecodePlan(2, 4, 2, 64, 16, 16, dtype=torch.bfloat16, device="cpu")
    with pytest.raises(ops.ArgumentError, match="'block_tables' addresses 32 tokens"):
        wide.run(p["query"], p["key_cache"], p["value_cache"], p["block_tables"], p["seq_lens"], 0.1)
    with pytest.raises(ops.ArgumentError, match="'alibi_slopes' must be None"):
        plan.run(p["query"][:1], p["key_cache"], p["value_cache"], p["block_tables"][:1],
                 p["seq_lens"][:1], 0.1, alibi_slopes=torch.zeros(4))
    with pytest.raises(ops.ArgumentError, match="kv_cache_dtype='fp8_e3m4' is not one of"):
        ops.PagedDecodePlan(1, 4, 2, 64, 16, 32, dtype=torch.bfloat16, device="cpu",
                            kv_cache_dtype="fp8_e3m4")
    with pytest.raises(ops.ArgumentError, match="dtype float32 is not supported"):
        ops.PagedDecodePlan(1, 4, 2, 64, 16, 32, dtype=torch.float32, device="cpu")
    with pytest.raises(ops.ArgumentError, match="'k_scale' must be given"):
        ops.reshape_and_cache(p["keys"][0], p["values"][0], p["key_cache"].to(torch.uint8),
                              p["value_cache"].to(torch.uint8), torch.arange(5), "fp8")


def test_not_a_tensor():
    args, call, _ = CALLS["paged_decode"]()
    args["seq_lens"] = [5, 20]
    with pytest.raises(ops.ArgumentError, match="'seq_lens' must be a torch.Tensor, not list"):
        call(args)
