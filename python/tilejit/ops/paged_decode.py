"""Paged decode attention in vLLM's layouts: query [num_seqs, num_q_heads, head_size], caches
[num_blocks, block_size, num_kv_heads, head_size] (vLLM's flash layout: kv_cache[0], kv_cache[1]),
block_tables [num_seqs, max_blocks_per_seq] int32, seq_lens [num_seqs] int32. An fp8 cache
(kv_cache_dtype "fp8" / "fp8_e4m3" / "fp8_e5m2") is uint8 (or torch's float8 type) with
k_scale / v_scale float32 of [1] or [num_kv_heads]."""
from ._checks import Checker, activations
from ._plans import Plan, cached_plan, op_dtype, torch_device
from ._runtime import View, allocate_workspaces

_FP8 = {"fp8": "fp8_e4m3", "fp8_e4m3": "fp8_e4m3", "fp8_e5m2": "fp8_e5m2"}
_FP8_CODES = {"fp8_e4m3": "float8_e4m3fn", "fp8_e5m2": "float8_e5m2"}


def _cache_dtypes(kv_cache_dtype, dtype):
    import torch
    if kv_cache_dtype == "auto":
        return (dtype,)
    code = getattr(torch, _FP8_CODES[_FP8[kv_cache_dtype]], None)
    return (torch.uint8,) + ((code,) if code is not None else ())


class PagedDecodePlan(Plan):
    """Paged decode for up to `num_seqs` sequences of up to `max_model_len` tokens: the op
    compiled for this config (the target's measured tiling for this grid) and its partial
    workspaces, allocated here once:

        plan = tilejit.ops.PagedDecodePlan(num_seqs=8, num_q_heads=32, num_kv_heads=8,
                                           head_size=128, block_size=16, max_model_len=4096,
                                           dtype=torch.bfloat16, device="cuda")
        plan.run(query, key_cache, value_cache, block_tables, seq_lens, scale, out=out)

    Options compiled in: kv_cache_dtype and kv_scale ("per_tensor" / "per_head"), alibi,
    sinks, logits_soft_cap (its value); sliding_window (tokens, 0 = all) is a launch value.
    Other keywords are tiling parameters (partition_size=..., block_n=...)."""

    op_name = "paged_decode"

    def __init__(self, num_seqs, num_q_heads, num_kv_heads, head_size, block_size, max_model_len,
                 *, dtype, device, kv_cache_dtype="auto", kv_scale="per_tensor", alibi=False,
                 sinks=False, logits_soft_cap=None, sliding_window=0, **tuning):
        import torch
        check = Checker(self.op_name)
        check.one_of("kv_cache_dtype", kv_cache_dtype, ("auto",) + tuple(_FP8))
        check.one_of("kv_scale", kv_scale, ("per_tensor", "per_head"))
        check.require(num_q_heads % num_kv_heads == 0 if num_kv_heads > 0 else False,
                      f"num_q_heads {num_q_heads} is not a multiple of num_kv_heads {num_kv_heads}")
        self.num_seqs, self.num_q_heads, self.num_kv_heads = num_seqs, num_q_heads, num_kv_heads
        self.head_size, self.block_size, self.max_model_len = head_size, block_size, max_model_len
        self.dtype, self.kv_cache_dtype, self.kv_scale = dtype, kv_cache_dtype, kv_scale
        self.alibi, self.sinks = bool(alibi), bool(sinks)
        self.logits_soft_cap, self.sliding_window = logits_soft_cap, int(sliding_window or 0)
        config = dict(dtype=op_dtype(dtype, self.op_name), head_size=head_size,
                      block_size=block_size, gqa_ratio=num_q_heads // num_kv_heads,
                      soft_cap=logits_soft_cap is not None, alibi=self.alibi, sinks=self.sinks,
                      kv_cache_dtype=_FP8.get(kv_cache_dtype, "auto"), kv_scale=kv_scale,
                      num_seqs=num_seqs, num_kv_heads=num_kv_heads, max_model_len=max_model_len,
                      **tuning)
        self._compile(config, device)
        self._work = allocate_workspaces(self._op, dict(num_seqs=num_seqs, num_kv_heads=num_kv_heads,
                                                        max_model_len=max_model_len), self.device)
        # Stand-ins for the arguments of options that are off (never read).
        self._unread = torch.zeros(num_q_heads, dtype=torch.float32, device=self.device)
        self._unit = torch.ones(1, dtype=torch.float32, device=self.device)

    def _check(self, out, query, key_cache, value_cache, block_tables, seq_lens, alibi_slopes,
               sinks, k_scale, v_scale):
        import torch
        c = Checker(self.op_name)
        c.tensor("query", query, (self.dtype,), ("num_seqs", self.num_q_heads, self.head_size),
                 dense="inner")
        c.require(c.size("num_seqs") <= self.num_seqs,
                  f"argument 'query' holds {c.size('num_seqs')} sequences; the plan serves up to "
                  f"{self.num_seqs}")
        c.require(c.device == self.device,
                  f"argument 'query' is on {c.device} but the plan was made for {self.device}")
        cache_shape = ("num_blocks", self.block_size, self.num_kv_heads, self.head_size)
        cache_dtypes = _cache_dtypes(self.kv_cache_dtype, self.dtype)
        c.tensor("key_cache", key_cache, cache_dtypes, cache_shape)
        c.tensor("value_cache", value_cache, cache_dtypes, cache_shape)
        c.tensor("block_tables", block_tables, (torch.int32,), ("num_seqs", "max_blocks_per_seq"))
        c.tensor("seq_lens", seq_lens, (torch.int32,), ("num_seqs",))
        tokens = c.size("max_blocks_per_seq") * self.block_size
        c.require(tokens < self.max_model_len + self.block_size,
                  f"argument 'block_tables' addresses {tokens} tokens a sequence, more than the "
                  f"plan's max_model_len {self.max_model_len} (plan for the longest context)")
        if out is not None:
            c.tensor("out", out, (self.dtype,), ("num_seqs", self.num_q_heads, self.head_size))
        for name, value, wanted in (("alibi_slopes", alibi_slopes, self.alibi),
                                    ("sinks", sinks, self.sinks)):
            c.require((value is not None) == wanted,
                      f"argument '{name}' must be {'given' if wanted else 'None'}: the plan was "
                      f"made with {name.split('_')[0]}={wanted}")
            if value is not None:
                c.tensor(name, value, (torch.float32,), (self.num_q_heads,))
        fp8 = self.kv_cache_dtype != "auto"
        scales = (self.num_kv_heads if self.kv_scale == "per_head" else 1,)
        for name, value in (("k_scale", k_scale), ("v_scale", v_scale)):
            c.require((value is not None) == fp8,
                      f"argument '{name}' must be {'given' if fp8 else 'None'} with "
                      f"kv_cache_dtype={self.kv_cache_dtype!r}")
            if value is not None:
                c.tensor(name, value, (torch.float32,), scales)
        return c.size("num_seqs")

    def run(self, query, key_cache, value_cache, block_tables, seq_lens, scale, *, out=None,
            alibi_slopes=None, sinks=None, k_scale=None, v_scale=None):
        """The attention output [num_seqs, num_q_heads, head_size] (into `out` when given)."""
        import torch
        seqs = self._check(out, query, key_cache, value_cache, block_tables, seq_lens,
                           alibi_slopes, sinks, k_scale, v_scale)
        if out is None:
            out = torch.empty(query.shape, dtype=self.dtype, device=self.device)

        def cache(t):  # fp8 codes held as uint8: the bytes seen as the op's fp8 type
            if t.dtype != torch.uint8:
                return t
            return View(t, _FP8_CODES[_FP8[self.kv_cache_dtype]], t.shape, t.stride())

        self._launch(dict(
            output=out, query=query, key_cache=cache(key_cache), value_cache=cache(value_cache),
            block_tables=block_tables, seq_lens=seq_lens,
            partial_out=self._work["partial_out"][:seqs], partial_lse=self._work["partial_lse"][:seqs],
            arrivals=self._work["arrivals"][:seqs],
            alibi_slopes=self._unread if alibi_slopes is None else alibi_slopes,
            sinks=self._unread if sinks is None else sinks,
            k_scales=self._unit if k_scale is None else k_scale,
            v_scales=self._unit if v_scale is None else v_scale,
            scale=float(scale), soft_cap_value=float(self.logits_soft_cap or 0.0),
            sliding_window=self.sliding_window))
        return out


def paged_decode(out, query, key_cache, value_cache, block_tables, seq_lens, scale, *,
                 alibi_slopes=None, sinks=None, logits_soft_cap=None, sliding_window=None,
                 kv_cache_dtype="auto", k_scale=None, v_scale=None, max_seq_len=None):
    """out <- paged decode attention (vLLM's paged_attention in its flash cache layout). The
    plan is kept per config and sizes; max_seq_len (default: what block_tables can address)
    sizes its workspaces. Returns out."""
    c = Checker("paged_decode")
    c.tensor("query", query, activations(), ("num_seqs", "num_q_heads", "head_size"), dense="inner")
    c.tensor("key_cache", key_cache, None, ("num_blocks", "block_size", "num_kv_heads", "head_size"))
    c.tensor("block_tables", block_tables, None, ("num_seqs", "max_blocks_per_seq"))
    block_size = key_cache.shape[1]
    longest = max_seq_len or block_tables.shape[1] * block_size
    kv_scale = "per_head" if k_scale is not None and k_scale.numel() > 1 else "per_tensor"
    device = torch_device(query.device)
    key = ("paged_decode", query.shape, key_cache.shape[1:], query.dtype, longest, kv_cache_dtype,
           kv_scale, alibi_slopes is not None, sinks is not None, logits_soft_cap,
           int(sliding_window or 0), str(device))

    def make():
        return PagedDecodePlan(query.shape[0], query.shape[1], key_cache.shape[2], query.shape[2],
                               block_size, longest, dtype=query.dtype, device=device,
                               kv_cache_dtype=kv_cache_dtype, kv_scale=kv_scale,
                               alibi=alibi_slopes is not None, sinks=sinks is not None,
                               logits_soft_cap=logits_soft_cap, sliding_window=sliding_window or 0)

    plan = cached_plan(key, make, device)
    return plan.run(query, key_cache, value_cache, block_tables, seq_lens, scale, out=out,
                    alibi_slopes=alibi_slopes, sinks=sinks, k_scale=k_scale, v_scale=v_scale)
