"""Reads a decode sweep (bench_decode.py's decode_tilejit.jsonl) the way the sm_90 table in
compiler/targets/target_description.cpp is chosen: cells grouped by grid class (kv-head x
sequence pairs up to 8/32/128/512/more, context up to 1K/4K/more), and per class the variants
ranked by their worst cell against the best peer (the goal that binds), then the geomean.
The classes are the breakpoints of the table's head-128 rows (its 2K row of 33-128 pairs has
no cell of the matrix of its own).

    python3 bench/decode_table.py RUN/decode_tilejit.jsonl [TOP]
"""
import math
import sys
from collections import defaultdict

from decode_goals import best_peer, cells_of, read_run

PAIRS = [8, 32, 128, 512, math.inf]
CONTEXTS = [1024, 4096, math.inf]


def grid_class(cell):
    pairs = cell["batch"] * cell["hkv"]
    return (next(p for p in PAIRS if pairs <= p), next(c for c in CONTEXTS if cell["ctx"] <= c))


def main(path, top):
    cells = [c for c in cells_of(read_run(path)).values() if best_peer(c) is not None]
    classes = defaultdict(list)
    for cell in cells:
        classes[grid_class(cell)].append(cell)
    for key in sorted(classes):
        group = classes[key]
        names = {k[:-3] for c in group for k in c if k.startswith("tilejit_") and k.endswith("_us")}
        ranked = []
        for name in names:
            if not all(f"{name}_us" in c for c in group):
                continue
            speedups = [best_peer(c) / c[f"{name}_us"] for c in group]
            geomean = math.exp(sum(map(math.log, speedups)) / len(speedups))
            ranked.append((min(speedups), geomean, name, speedups))
        ranked.sort(reverse=True)
        print(f"pairs <= {key[0]}, context <= {key[1]}:",
              ", ".join(f"{c['hq']}/{c['hkv']} x {c['batch']} x {c['ctx']}" for c in group))
        for worst, geomean, name, speedups in ranked[:top]:
            print(f"  {name[8:]:16s} worst {worst:.3f}x  geomean {geomean:.3f}x  ",
                  " ".join(f"{s:.3f}" for s in speedups))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 4)
