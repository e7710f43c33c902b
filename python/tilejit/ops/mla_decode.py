"""Absorbed MLA decode in vLLM's layouts: query [num_seqs * q_len, num_heads, 576] (each
sequence's q_len tokens consecutive), the latent cache kv_c_and_k_pe_cache
[num_blocks, block_size, 576] (kv_lora_rank 512 + rope 64; [.., 1, 576] is taken too), output
[num_seqs * q_len, num_heads, 512]."""
from ._checks import Checker, activations
from ._plans import Plan, cached_plan, op_dtype, torch_device
from ._runtime import allocate_workspaces

LATENT, V_HEAD = 576, 512


class MlaDecodePlan(Plan):
    """MLA decode for up to `num_seqs` sequences (q_len query tokens each, 1..4) of up to
    `max_model_len` tokens, with its partial workspaces:

        plan = tilejit.ops.MlaDecodePlan(num_seqs=64, num_heads=16, block_size=64,
                                         max_model_len=32768, dtype=torch.bfloat16, device="cuda")
        plan.run(query, kv_c_and_k_pe_cache, block_tables, seq_lens, scale, out=out)"""

    op_name = "mla_decode"

    def __init__(self, num_seqs, num_heads, block_size, max_model_len, *, dtype, device, q_len=1,
                 **tuning):
        self.num_seqs, self.num_heads, self.block_size = num_seqs, num_heads, block_size
        self.max_model_len, self.q_len, self.dtype = max_model_len, q_len, dtype
        self._compile(dict(dtype=op_dtype(dtype, self.op_name), block_size=block_size, q_len=q_len,
                           max_model_len=max_model_len, **tuning), device)
        self._work = allocate_workspaces(self._op, dict(num_tokens=num_seqs * q_len,
                                                        num_q_heads=num_heads,
                                                        max_model_len=max_model_len), self.device)

    def run(self, query, kv_c_and_k_pe_cache, block_tables, seq_lens, scale, *, out=None):
        """The output [num_tokens, num_heads, 512] (into `out` when given)."""
        import torch
        c = Checker(self.op_name)
        c.tensor("query", query, (self.dtype,), ("num_tokens", self.num_heads, LATENT), dense="inner")
        c.require(c.device == self.device,
                  f"argument 'query' is on {c.device} but the plan was made for {self.device}")
        cache = kv_c_and_k_pe_cache
        if isinstance(cache, torch.Tensor) and cache.dim() == 3:
            cache = cache.unsqueeze(2)  # the op's [num_blocks, block_size, 1, 576]: the same bytes
        c.tensor("kv_c_and_k_pe_cache", cache, (self.dtype,), ("num_blocks", self.block_size, 1, LATENT))
        c.tensor("block_tables", block_tables, (torch.int32,), ("num_seqs", "max_blocks_per_seq"))
        c.tensor("seq_lens", seq_lens, (torch.int32,), ("num_seqs",))
        seqs, tokens = c.size("num_seqs"), c.size("num_tokens")
        c.require(tokens == seqs * self.q_len,
                  f"argument 'query' holds {tokens} tokens; q_len {self.q_len} x {seqs} sequences "
                  f"(seq_lens) are {seqs * self.q_len}")
        c.require(seqs <= self.num_seqs,
                  f"argument 'seq_lens' holds {seqs} sequences; the plan serves up to {self.num_seqs}")
        addressed = c.size("max_blocks_per_seq") * self.block_size
        c.require(addressed < self.max_model_len + self.block_size,
                  f"argument 'block_tables' addresses {addressed} tokens a sequence, more than the "
                  f"plan's max_model_len {self.max_model_len}")
        if out is not None:
            c.tensor("out", out, (self.dtype,), ("num_tokens", self.num_heads, V_HEAD))
        else:
            out = torch.empty(tokens, self.num_heads, V_HEAD, dtype=self.dtype, device=self.device)
        self._launch(dict(output=out, query=query, latent_cache=cache, block_tables=block_tables,
                          seq_lens=seq_lens, partial_out=self._work["partial_out"][:tokens],
                          partial_lse=self._work["partial_lse"][:tokens], scale=float(scale)))
        return out


def mla_decode(out, query, kv_c_and_k_pe_cache, block_tables, seq_lens, scale, *,
               max_seq_len=None):
    """out <- MLA decode over the paged latent cache; q_len is query tokens / sequences.
    Returns out."""
    c = Checker("mla_decode")
    c.tensor("query", query, activations(), ("num_tokens", "num_heads", LATENT), dense="inner")
    c.tensor("seq_lens", seq_lens, None, ("num_seqs",))
    c.tensor("block_tables", block_tables, None, ("num_seqs", "max_blocks_per_seq"))
    c.tensor("kv_c_and_k_pe_cache", kv_c_and_k_pe_cache, None,
             ("num_blocks", "block_size", LATENT) if kv_c_and_k_pe_cache.dim() != 4
             else ("num_blocks", "block_size", 1, LATENT))
    seqs, tokens = seq_lens.shape[0], query.shape[0]
    c.require(seqs > 0 and tokens % seqs == 0,
              f"argument 'query' holds {tokens} tokens, not a multiple of the {seqs} sequences")
    block_size = kv_c_and_k_pe_cache.shape[1]
    longest = max_seq_len or block_tables.shape[1] * block_size
    device = torch_device(query.device)
    key = ("mla_decode", tuple(query.shape), seqs, block_size, query.dtype, longest, str(device))
    plan = cached_plan(key, lambda: MlaDecodePlan(seqs, query.shape[1], block_size, longest,
                                                  dtype=query.dtype, device=device,
                                                  q_len=tokens // seqs), device)
    return plan.run(query, kv_c_and_k_pe_cache, block_tables, seq_lens, scale, out=out)
