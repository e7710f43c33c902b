"""tilejit's ops on torch tensors, in vLLM's layouts and argument names. CUDA tensors run on
the current torch stream of their device, CPU tensors on the CPU backend; each op compiles
once per (op, config, device) and is kept. Two ways to call one:

    tilejit.ops.paged_decode(out, query, key_cache, value_cache, block_tables, seq_lens, scale)

keeps a plan per config and sizes (made on first use, never under graph capture), or, as with
FlashInfer's plan/run, make the plan yourself outside capture and capture its run:

    plan = tilejit.ops.PagedDecodePlan(num_seqs=8, num_q_heads=32, num_kv_heads=8, head_size=128,
                                       block_size=16, max_model_len=4096,
                                       dtype=torch.bfloat16, device="cuda")
    with torch.cuda.graph(graph):
        plan.run(query, key_cache, value_cache, block_tables, seq_lens, scale, out=out)

A plan owns its workspaces; run() checks every argument (dtype, shape, device, strides: an
ArgumentError naming it, before anything launches) and, given out=, allocates nothing.
Without out= it returns a new tensor. Torch is imported only by these functions."""
from ._checks import ArgumentError
from ._runtime import compiled_count
from .dsa import (CandidateMaskPlan, GatherIndexerKQuantCachePlan, IndexerKQuantAndCachePlan,
                  candidate_mask, cp_gather_indexer_k_quant_cache, gather_indexer_k_quant_cache,
                  indexer_k_quant_and_cache)
from .merge_attn_states import MergeAttnStatesPlan, merge_attn_states
from .mla_decode import MlaDecodePlan, mla_decode
from .paged_decode import PagedDecodePlan, paged_decode
from .reshape_and_cache import ReshapeAndCachePlan, reshape_and_cache

__all__ = ["ArgumentError", "CandidateMaskPlan", "GatherIndexerKQuantCachePlan",
           "IndexerKQuantAndCachePlan", "MergeAttnStatesPlan", "MlaDecodePlan", "PagedDecodePlan",
           "ReshapeAndCachePlan", "candidate_mask", "compiled_count",
           "cp_gather_indexer_k_quant_cache", "gather_indexer_k_quant_cache",
           "indexer_k_quant_and_cache", "merge_attn_states", "mla_decode", "paged_decode",
           "reshape_and_cache"]
