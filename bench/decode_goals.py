"""Issue 3's goals from a bench_decode.py run: geomean speed-up over the best peer, cells
slower than 1.03x it, cells where the best peer is under 75 % of the run's read ceiling
(goal 1.25x), and batch >= 64 x context >= 4K cells under 92 % of it; once for the best
swept variant per cell and once for `tilejit_op` (PagedDecode with the table's tiling).

    python3 bench/decode_goals.py OUT/decode_tilejit.jsonl
"""
import json
import math
import sys

# The peers bench_decode.py times per cell (the best of them is "the best peer").
PEERS = ("unified", "unified_alt", "decode_s4", "decode_s16")


def peer_times(record):
    """The peers' median times (us) of one cell record, by name (a peer that failed is absent)."""
    return {k: record[f"{k}_us"] for k in PEERS if f"{k}_us" in record}


def best_peer(record):
    """The best peer's time (us) of one cell record; None where every peer failed."""
    return min(peer_times(record).values(), default=None)


def speedup(peer, t):
    """A peer's time over ours as "1.234x"; "-" where every peer failed (peer None)."""
    return f"{peer / t:.3f}x" if peer else "-"


def cell_name(record):
    """A cell as "32/8 x 16 x 4K" (its context in K where it is a whole number of them)."""
    ctx = record["ctx"]
    return f"{record['hq']}/{record['hkv']} x {record['batch']} x " + (f"{ctx // 1024}K" if ctx % 1024 == 0 else str(ctx))


def read_run(path):
    """The records of a bench_decode.py run (decode_tilejit.jsonl)."""
    return [json.loads(line) for line in open(path)]


def measured(rows):
    """The cell records of a run that hold times, in order (skipped and failed cells and the
    run's other records left out)."""
    return [r for r in rows if "hq" in r and "skipped" not in r and "error" not in r]


def cells_of(rows):
    """The measured cells of a run by (hq, hkv, batch, ctx): bench_decode.py appends, so a cell
    measured twice counts once, as measured last."""
    return {(r["hq"], r["hkv"], r["batch"], r["ctx"]): r for r in measured(rows)}


def main(path):
    rows = read_run(path)
    ceilings = [r["TBps"] for r in rows if r.get("item") == "read_ceiling"]
    if not ceilings:
        sys.exit(f"{path}: no read_ceiling record (not a bench_decode.py run?)")
    ceiling = ceilings[-1]
    cells = list(cells_of(rows).values())

    def best_variant(r):
        return min((v for k, v in r.items() if k.startswith("tilejit_p") and k.endswith("_us")),
                   default=None)

    for label, ours in (("best variant", best_variant), ("tilejit_op", lambda r: r.get("tilejit_op_us"))):
        speedups, slow, low, low_fail, large, large_fail = [], [], 0, [], [], []
        for r in cells:
            t = ours(r)
            peer = best_peer(r)
            if t is None or peer is None:  # failed there (the jsonl says why): not scored
                continue
            name = cell_name(r)
            speedups.append(peer / t)
            if t > 1.03 * peer:
                slow.append(f"{name} {peer / t:.3f}x")
            if r["kv_bytes"] / (peer * 1e-6) / 1e12 < 0.75 * ceiling:
                low += 1
                if peer / t < 1.25:
                    low_fail.append(f"{name} {peer / t:.2f}x")
            if r["batch"] >= 64 and r["ctx"] >= 4096:
                share = r["kv_bytes"] / (t * 1e-6) / 1e12 / ceiling
                large.append(share)
                if share < 0.92:
                    large_fail.append(f"{name} {100 * share:.0f} %")
        if not speedups:
            continue
        geomean = math.exp(sum(map(math.log, speedups)) / len(speedups))
        print(f"{label}: {len(speedups)} cells, geomean {geomean:.3f}x (goal 1.10x)")
        print(f"  slower than 1.03x the best peer: {len(slow)} {slow}")
        print(f"  best peer under 75 % of {ceiling:.2f} TB/s: {low} cells, under 1.25x: {len(low_fail)} {low_fail}")
        if large:
            print(f"  batch >= 64, context >= 4K: {100 * min(large):.0f}-{100 * max(large):.0f} % of the "
                  f"ceiling, under 92 %: {large_fail}")


if __name__ == "__main__":
    main(sys.argv[1])
