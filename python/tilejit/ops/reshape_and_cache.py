"""reshape_and_cache in vLLM's layouts (its reshape_and_cache_flash): key, value
[num_tokens, num_kv_heads, head_size] (slices of a fused projection are taken), caches
[num_blocks, block_size, num_kv_heads, head_size], slot_mapping [num_tokens] int64 (slot =
block * block_size + offset; negative: padding, skipped). An fp8 cache is uint8 (or torch's
float8 type) with k_scale / v_scale float32 of [1] or [num_kv_heads]."""
from ._checks import Checker, activations
from ._plans import Plan, cached_plan, op_dtype, torch_device
from ._runtime import View
from .paged_decode import _FP8, _FP8_CODES, _cache_dtypes

_KV_DTYPES = {"fp8_e4m3": "f8E4M3FN", "fp8_e5m2": "f8E5M2"}


class ReshapeAndCachePlan(Plan):
    """The cache write compiled for one cache geometry and dtype (no workspaces)."""

    op_name = "reshape_and_cache"

    def __init__(self, num_kv_heads, head_size, block_size, *, dtype, device, kv_cache_dtype="auto",
                 kv_scale="per_tensor", **tuning):
        import torch
        check = Checker(self.op_name)
        check.one_of("kv_cache_dtype", kv_cache_dtype, ("auto",) + tuple(_FP8))
        check.one_of("kv_scale", kv_scale, ("per_tensor", "per_head"))
        self.num_kv_heads, self.head_size, self.block_size = num_kv_heads, head_size, block_size
        self.dtype, self.kv_cache_dtype, self.kv_scale = dtype, kv_cache_dtype, kv_scale
        name = op_dtype(dtype, self.op_name)
        kv_dtype = _KV_DTYPES[_FP8[kv_cache_dtype]] if kv_cache_dtype != "auto" else name
        self._compile(dict(dtype=name, kv_dtype=kv_dtype, kv_scale=kv_scale, head_size=head_size,
                           block_size=block_size, **tuning), device)
        self._unit = torch.ones(1, dtype=torch.float32, device=self.device)

    def run(self, key, value, key_cache, value_cache, slot_mapping, k_scale=None, v_scale=None):
        import torch
        c = Checker(self.op_name)
        row = ("num_tokens", self.num_kv_heads, self.head_size)
        c.tensor("key", key, (self.dtype,), row, dense="inner")
        c.require(c.device == self.device,
                  f"argument 'key' is on {c.device} but the plan was made for {self.device}")
        c.tensor("value", value, (self.dtype,), row, dense="inner")
        cache = ("num_blocks", self.block_size, self.num_kv_heads, self.head_size)
        dtypes = _cache_dtypes(self.kv_cache_dtype, self.dtype)
        c.tensor("key_cache", key_cache, dtypes, cache)
        c.tensor("value_cache", value_cache, dtypes, cache)
        c.tensor("slot_mapping", slot_mapping, (torch.int64,), ("num_tokens",))
        fp8 = self.kv_cache_dtype != "auto"
        scales = (self.num_kv_heads if self.kv_scale == "per_head" else 1,)
        for name, given in (("k_scale", k_scale), ("v_scale", v_scale)):
            c.require((given is not None) == fp8, f"argument '{name}' must be "
                      f"{'given' if fp8 else 'None'} with kv_cache_dtype={self.kv_cache_dtype!r}")
            if given is not None:
                c.tensor(name, given, (torch.float32,), scales)

        def as_cache(t):
            if t.dtype != torch.uint8:
                return t
            return View(t, _FP8_CODES[_FP8[self.kv_cache_dtype]], t.shape, t.stride())

        self._launch(dict(key=key, value=value, key_cache=as_cache(key_cache),
                          value_cache=as_cache(value_cache), slot_mapping=slot_mapping,
                          k_scales=self._unit if k_scale is None else k_scale,
                          v_scales=self._unit if v_scale is None else v_scale))


def reshape_and_cache(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype="auto",
                      k_scale=None, v_scale=None):
    """key_cache, value_cache <- key, value at their slots (vLLM's reshape_and_cache_flash)."""
    c = Checker("reshape_and_cache")
    c.tensor("key", key, activations(), ("num_tokens", "num_kv_heads", "head_size"), dense="inner")
    c.tensor("key_cache", key_cache, None, ("num_blocks", "block_size", "num_kv_heads", "head_size"))
    device = torch_device(key.device)
    kv_scale = "per_head" if k_scale is not None and k_scale.numel() > 1 else "per_tensor"
    heads, head_size, block_size = key.shape[1], key.shape[2], key_cache.shape[1]
    cache_key = ("reshape_and_cache", heads, head_size, block_size, key.dtype, kv_cache_dtype,
                 kv_scale, str(device))
    plan = cached_plan(cache_key, lambda: ReshapeAndCachePlan(
        heads, head_size, block_size, dtype=key.dtype, device=device,
        kv_cache_dtype=kv_cache_dtype, kv_scale=kv_scale), device)
    plan.run(key, value, key_cache, value_cache, slot_mapping, k_scale, v_scale)
