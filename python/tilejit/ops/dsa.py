"""The DeepSeek sparse attention (DSA) ops in vLLM's layouts: the candidate mask over the
indexer's fp32 logits, and the fp8 indexer K cache uint8 [num_blocks, block_size, 132] (per
block: block_size x 128 fp8 codes, then block_size float32 scales), written by
indexer_k_quant_and_cache and gathered back by (cp_)gather_indexer_k_quant_cache."""
from ._checks import Checker, activations
from ._plans import Plan, cached_plan, op_dtype, torch_device
from ._runtime import View

HEAD_DIM, TOKEN_BYTES = 128, 132


def _indexer_cache(c, kv_cache, block_size):
    """The cache as the kernels take it: fp8 bytes and float32 words, flattened per block."""
    import torch
    c.tensor("kv_cache", kv_cache, (torch.uint8,), ("num_blocks", block_size, TOKEN_BYTES))
    blocks, row = kv_cache.shape[0], block_size * TOKEN_BYTES
    return (View(kv_cache, "float8_e4m3fn", (blocks, row), (row, 1)),
            View(kv_cache, "float32", (blocks, row // 4), (row // 4, 1)))


class CandidateMaskPlan(Plan):
    op_name = "candidate_mask"

    def __init__(self, block_size, row_repeat, has_starts, *, device, **tuning):
        self.block_size, self.row_repeat, self.has_starts = block_size, row_repeat, bool(has_starts)
        self._compile(dict(block_size=block_size, row_repeat=row_repeat,
                           has_starts=int(self.has_starts), **tuning), device)

    def run(self, logits, starts, ends, candidates):
        import torch
        c = Checker(self.op_name)
        c.tensor("logits", logits, (torch.float32,), ("num_rows", "width"), dense="rows")
        c.require(c.device == self.device,
                  f"argument 'logits' is on {c.device} but the plan was made for {self.device}")
        c.require((starts is not None) == self.has_starts,
                  f"argument 'starts' must be {'given' if self.has_starts else 'None'} for this plan")
        if starts is not None:
            c.tensor("starts", starts, (torch.int32,), ("num_bounds",))
        c.tensor("ends", ends, (torch.int32,), ("num_bounds",))
        c.tensor("candidates", candidates, (torch.int32,), ("num_rows", "num_candidates"))
        rows, bounds = c.size("num_rows"), c.size("num_bounds")
        c.require(bounds * self.row_repeat == rows,
                  f"argument 'ends' holds {bounds} bounds; {rows} rows in groups of row_repeat "
                  f"{self.row_repeat} need {rows // self.row_repeat if self.row_repeat else 0}")
        words = View(logits, "int32", (rows, c.size("width"), 1),
                     (logits.stride(0), logits.stride(1), 1))  # fp32 bits as int32 words
        self._launch(dict(logits=words, starts=ends if starts is None else starts, ends=ends,
                          candidates=candidates))
        return logits


def candidate_mask(logits, starts, ends, candidates, block_size):
    """logits <- -inf at every column of [start, end) outside the row's candidate blocks
    (vLLM's apply_candidate_mask; columns past a row's end are untouched). starts may be None
    (all 0); rows share bounds in groups of rows / len(ends). Returns logits."""
    c = Checker("candidate_mask")
    c.tensor("logits", logits, None, ("num_rows", "width"), dense="rows")
    c.tensor("ends", ends, None, ("num_bounds",))
    rows, bounds = logits.shape[0], ends.shape[0]
    c.require(bounds > 0 and rows % bounds == 0,
              f"argument 'ends' holds {bounds} bounds, which do not divide the {rows} rows")
    device = torch_device(logits.device)
    key = ("candidate_mask", block_size, rows // bounds, starts is not None, str(device))
    plan = cached_plan(key, lambda: CandidateMaskPlan(block_size, rows // bounds, starts is not None,
                                                      device=device), device)
    return plan.run(logits, starts, ends, candidates)


_SCALE_FORMATS = {None: "float32", "float32": "float32", "fp32": "float32", "ue8m0": "ue8m0"}


class IndexerKQuantAndCachePlan(Plan):
    op_name = "indexer_k_quant_and_cache"

    def __init__(self, block_size, *, dtype, device, scale_fmt="float32", **tuning):
        Checker(self.op_name).one_of("scale_fmt", scale_fmt, tuple(_SCALE_FORMATS))
        self.block_size, self.dtype = block_size, dtype
        self._compile(dict(dtype=op_dtype(dtype, self.op_name), block_size=block_size,
                           scale_format=_SCALE_FORMATS[scale_fmt], **tuning), device)

    def run(self, k, kv_cache, slot_mapping):
        import torch
        c = Checker(self.op_name)
        c.tensor("k", k, (self.dtype,), ("num_tokens", HEAD_DIM), dense="inner")
        c.require(c.device == self.device,
                  f"argument 'k' is on {c.device} but the plan was made for {self.device}")
        values, scales = _indexer_cache(c, kv_cache, self.block_size)
        c.tensor("slot_mapping", slot_mapping, (torch.int64,), ("num_tokens",))
        self._launch(dict(k=k, cache_values=values, cache_scales=scales, slot_mapping=slot_mapping))


def indexer_k_quant_and_cache(k, kv_cache, slot_mapping, quant_block_size=128, scale_fmt=None):
    """kv_cache <- k [num_tokens, 128] as fp8 e4m3 with one scale per row ("ue8m0": a power of
    two) at slot_mapping's slots (vLLM's indexer_k_quant_and_cache)."""
    c = Checker("indexer_k_quant_and_cache")
    c.require(quant_block_size == HEAD_DIM,
              f"quant_block_size is {quant_block_size}; the indexer cache has one scale per {HEAD_DIM}")
    c.tensor("k", k, activations(), ("num_tokens", HEAD_DIM), dense="inner")
    c.tensor("kv_cache", kv_cache, None, ("num_blocks", "block_size", TOKEN_BYTES))
    device = torch_device(k.device)
    block_size = kv_cache.shape[1]
    key = ("indexer_k_quant_and_cache", block_size, k.dtype, scale_fmt, str(device))
    plan = cached_plan(key, lambda: IndexerKQuantAndCachePlan(block_size, dtype=k.dtype,
                                                              device=device, scale_fmt=scale_fmt),
                       device)
    plan.run(k, kv_cache, slot_mapping)


class GatherIndexerKQuantCachePlan(Plan):
    op_name = "gather_indexer_k_quant_cache"

    def __init__(self, block_size, *, device, **tuning):
        self.block_size = block_size
        self._compile(dict(block_size=block_size, **tuning), device)

    def run(self, kv_cache, dst_k, dst_scale, block_table, cu_seq_lens):
        import torch
        c = Checker(self.op_name)
        values, scales = _indexer_cache(c, kv_cache, self.block_size)
        c.require(c.device == self.device,
                  f"argument 'kv_cache' is on {c.device} but the plan was made for {self.device}")
        fp8 = getattr(torch, "float8_e4m3fn", None)
        c.tensor("dst_k", dst_k, (torch.uint8,) + ((fp8,) if fp8 else ()), ("num_tokens", HEAD_DIM))
        if isinstance(dst_scale, torch.Tensor) and dst_scale.dtype == torch.uint8:
            c.tensor("dst_scale", dst_scale, (torch.uint8,), ("num_tokens", 4))  # vLLM's bytes
        else:
            c.tensor("dst_scale", dst_scale, (torch.float32,), ("num_tokens", 1))
        c.tensor("block_table", block_table, (torch.int32,), ("num_seqs", "max_blocks_per_seq"))
        c.tensor("cu_seq_lens", cu_seq_lens, (torch.int32,), (c.size("num_seqs") + 1,))
        tokens = c.size("num_tokens")
        self._launch(dict(cache_values=values, cache_scales=scales,
                          dst_k=View(dst_k, "float8_e4m3fn", (tokens, HEAD_DIM), (HEAD_DIM, 1)),
                          dst_scale=View(dst_scale, "float32", (tokens, 1), (1, 1)),
                          block_table=block_table, cu_seq_lens=cu_seq_lens))


def gather_indexer_k_quant_cache(kv_cache, dst_k, dst_scale, block_table, cu_seq_lens):
    """dst_k [num_tokens, 128] fp8 (uint8), dst_scale [num_tokens, 1] float32 (or [.., 4]
    uint8) <- every token of each sequence s, rows cu_seq_lens[s] .. cu_seq_lens[s + 1], out of
    the indexer cache (vLLM's cp_gather_indexer_k_quant_cache)."""
    c = Checker("gather_indexer_k_quant_cache")
    c.tensor("kv_cache", kv_cache, None, ("num_blocks", "block_size", TOKEN_BYTES))
    device = torch_device(kv_cache.device)
    block_size = kv_cache.shape[1]
    key = ("gather_indexer_k_quant_cache", block_size, str(device))
    plan = cached_plan(key, lambda: GatherIndexerKQuantCachePlan(block_size, device=device), device)
    plan.run(kv_cache, dst_k, dst_scale, block_table, cu_seq_lens)


cp_gather_indexer_k_quant_cache = gather_indexer_k_quant_cache
