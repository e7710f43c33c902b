"""float64 torch references of tilejit.ops, from un-paged inputs, and the paged problems the
tests build (caches NaN outside every sequence's tokens, so a read past a context shows)."""
import torch


def paged_problem(seq_lens, num_kv_heads, head_size, block_size, gqa, dtype, seed=0,
                  spare_blocks=3):
    """Per-sequence K/V [len, kv_heads, head] scattered into shuffled blocks of NaN caches."""
    gen = torch.Generator().manual_seed(seed)
    blocks_per_seq = [-(-n // block_size) for n in seq_lens]
    width = max(max(blocks_per_seq), 1)
    num_blocks = sum(blocks_per_seq) + spare_blocks
    order = torch.randperm(num_blocks, generator=gen).to(torch.int32)
    table = torch.full((len(seq_lens), width), int(order[-1]), dtype=torch.int32)
    shape = (num_blocks, block_size, num_kv_heads, head_size)
    key_cache = torch.full(shape, float("nan"), dtype=dtype)
    value_cache = torch.full(shape, float("nan"), dtype=dtype)
    keys, values, used = [], [], 0
    for s, n in enumerate(seq_lens):
        k = torch.randn(n, num_kv_heads, head_size, generator=gen).to(dtype)
        v = torch.randn(n, num_kv_heads, head_size, generator=gen).to(dtype)
        keys.append(k), values.append(v)
        for b in range(blocks_per_seq[s]):
            table[s, b] = order[used]
            rows = slice(b * block_size, min(n, (b + 1) * block_size))
            key_cache[order[used], :rows.stop - rows.start] = k[rows]
            value_cache[order[used], :rows.stop - rows.start] = v[rows]
            used += 1
    query = torch.randn(len(seq_lens), num_kv_heads * gqa, head_size, generator=gen).to(dtype)
    lens = torch.tensor(seq_lens, dtype=torch.int32)
    return dict(query=query, key_cache=key_cache, value_cache=value_cache, block_tables=table,
                seq_lens=lens, keys=keys, values=values)


def attention(q, k, v, scale, gqa):
    """softmax(q k^T scale) v in float64 for one sequence: q [heads, d], k, v [n, kv_heads, d]."""
    if k.shape[0] == 0:
        return torch.zeros(q.shape, dtype=torch.float64)
    k = k.double().repeat_interleave(gqa, dim=1)
    v = v.double().repeat_interleave(gqa, dim=1)
    logits = torch.einsum("hd,nhd->hn", q.double(), k) * scale
    return torch.einsum("hn,nhd->hd", torch.softmax(logits, dim=-1), v)


def paged_decode_reference(p, scale, gqa):
    return torch.stack([attention(p["query"][s], p["keys"][s], p["values"][s], scale, gqa)
                        for s in range(len(p["keys"]))])


def merge_reference(prefix, prefix_lse, suffix, suffix_lse):
    """Both states weighted by exp(lse - max) in float64; lse [heads, tokens]."""
    p, s = prefix_lse.double().T[..., None], suffix_lse.double().T[..., None]
    m = torch.maximum(p, s)
    wp, ws = torch.exp(p - m), torch.exp(s - m)
    out = (prefix.double() * wp + suffix.double() * ws) / (wp + ws)
    return out, (m + torch.log(wp + ws))[..., 0].T


def mla_reference(query, latent, table, seq_lens, scale, q_len):
    """float64 MLA: token i of a sequence of length L (q_len tokens) sees latents 0..L-q_len+i;
    latent [num_blocks, block_size, 576], 576 columns are K, the first 512 V."""
    block_size = latent.shape[1]
    out = torch.zeros(query.shape[0], query.shape[1], 512, dtype=torch.float64)
    for s, n in enumerate(seq_lens.tolist()):
        blocks = -(-n // block_size)
        lat = latent[table[s, :blocks].long()].reshape(-1, 576)[:n].double()
        for i in range(q_len):
            t, seen = s * q_len + i, n - q_len + i + 1
            if seen <= 0:
                continue
            p = torch.softmax(query[t].double() @ lat[:seen].T * scale, dim=-1)
            out[t] = p @ lat[:seen, :512]
    return out


def e4m3_values():
    """The value of each non-negative e4m3fn code below NaN (0x00 .. 0x7e), increasing."""
    codes = torch.arange(127, dtype=torch.float64)
    e, m = torch.div(codes, 8, rounding_mode="floor"), codes % 8
    return torch.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * 2.0 ** (e - 7))


def e4m3_decode(codes):
    """uint8 codes -> float64 values (NaN for 0x7f / 0xff)."""
    table = torch.cat([e4m3_values(), torch.tensor([float("nan")], dtype=torch.float64)])
    value = table[(codes.long() & 0x7F)]
    return torch.where(codes.long() & 0x80 != 0, -value, value)


def e4m3_encode(x):
    """float32 -> e4m3fn codes, round to nearest even, saturating at 448."""
    values = e4m3_values()
    a = x.double().abs().clamp(max=448.0)
    above = torch.searchsorted(values, a).clamp(max=126)
    below = (above - 1).clamp(min=0)
    up, down = values[above] - a, a - values[below]
    pick = torch.where(up < down, above, torch.where(down < up, below,
                                                     torch.where(above % 2 == 0, above, below)))
    pick = torch.where(values[above] == a, above, pick)
    return (pick | torch.where(x.double() < 0, 0x80, 0)).to(torch.uint8)


def candidate_mask_reference(logits, starts, ends, candidates, block_size):
    """vLLM's rule within [0, end): column c is kept iff start <= c < min(end, width) and its
    block (c - start) // block_size is a candidate, or c is the last column and a candidate's
    first column lies at or past the width; masked columns -inf; columns past end untouched."""
    out = logits.clone()
    rows, width = logits.shape
    repeat = rows // ends.shape[0]
    for r in range(rows):
        start = 0 if starts is None else int(starts[r // repeat])
        end = int(ends[r // repeat])
        cands = [int(b) for b in candidates[r] if b >= 0]
        for c in range(min(end, width)):
            kept = start <= c and (c - start) // block_size in cands
            if c == width - 1 and any(start + b * block_size >= width for b in cands):
                kept = kept or start <= c
            if not kept:
                out[r, c] = float("-inf")
    return out
