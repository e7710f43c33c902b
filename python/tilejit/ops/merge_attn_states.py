"""merge_attn_states in vLLM's layouts: outputs [num_tokens, num_heads, head_size], LSEs
[num_heads, num_tokens] float32 (+inf marks an empty side, as -inf does)."""
from ._checks import Checker, activations
from ._plans import Plan, cached_plan, op_dtype, torch_device


class MergeAttnStatesPlan(Plan):
    """The merge for up to `num_tokens` tokens; keeps an LSE buffer for calls that want no
    merged LSE back, so that run() allocates nothing (given out=)."""

    op_name = "merge_attn_states"

    def __init__(self, num_tokens, num_heads, head_size, *, dtype, device, **tuning):
        import torch
        self.num_tokens, self.num_heads, self.head_size, self.dtype = (num_tokens, num_heads,
                                                                       head_size, dtype)
        self._compile(dict(dtype=op_dtype(dtype, self.op_name), head_size=head_size, **tuning),
                      device)
        self._lse = torch.empty(num_heads * num_tokens, dtype=torch.float32, device=self.device)

    def run(self, prefix_output, prefix_lse, suffix_output, suffix_lse, *, out=None, out_lse=None):
        """The merged output (into `out` when given); the merged LSE goes to `out_lse` if given."""
        import torch
        c = Checker(self.op_name)
        state = ("num_tokens", self.num_heads, self.head_size)
        lse = (self.num_heads, "num_tokens")
        c.tensor("prefix_output", prefix_output, (self.dtype,), state, dense="inner")
        c.require(c.device == self.device,
                  f"argument 'prefix_output' is on {c.device} but the plan was made for {self.device}")
        c.tensor("prefix_lse", prefix_lse, (torch.float32,), lse, dense="inner")
        c.tensor("suffix_output", suffix_output, (self.dtype,), state, dense="inner")
        c.tensor("suffix_lse", suffix_lse, (torch.float32,), lse, dense="inner")
        tokens = c.size("num_tokens")
        c.require(tokens <= self.num_tokens,
                  f"argument 'prefix_output' holds {tokens} tokens; the plan serves up to {self.num_tokens}")
        if out is not None:
            c.tensor("output", out, (self.dtype,), state, dense="inner")
        if out_lse is not None:
            c.tensor("output_lse", out_lse, (torch.float32,), lse, dense="inner")
        if out is None:
            out = torch.empty(prefix_output.shape, dtype=self.dtype, device=self.device)
        if out_lse is None:
            out_lse = self._lse[:self.num_heads * tokens].view(self.num_heads, tokens)
        self._launch(dict(output=out, output_lse=out_lse, prefix_output=prefix_output,
                          prefix_lse=prefix_lse, suffix_output=suffix_output, suffix_lse=suffix_lse))
        return out


def merge_attn_states(output, prefix_output, prefix_lse, suffix_output, suffix_lse,
                      output_lse=None):
    """output (and output_lse, if given) <- the two attention states merged by their LSEs
    (vLLM's merge_attn_states). Returns output."""
    c = Checker("merge_attn_states")
    c.tensor("prefix_output", prefix_output, activations(), ("num_tokens", "num_heads", "head_size"),
             dense="inner")
    device = torch_device(prefix_output.device)
    tokens, heads, head_size = prefix_output.shape
    key = ("merge_attn_states", tokens, heads, head_size, prefix_output.dtype, str(device))
    plan = cached_plan(key, lambda: MergeAttnStatesPlan(tokens, heads, head_size,
                                                        dtype=prefix_output.dtype, device=device),
                       device)
    return plan.run(prefix_output, prefix_lse, suffix_output, suffix_lse, out=output,
                    out_lse=output_lse)
