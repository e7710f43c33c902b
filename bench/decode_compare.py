"""Side by side: the tilejit times (us) of several decode runs (bench_decode.py's
decode_tilejit.jsonl), one row per cell, one column per run and variant; for A/B runs of two
builds made in one device call.

    python3 bench/decode_compare.py RUN_A/decode_tilejit.jsonl RUN_B/decode_tilejit.jsonl ...
"""
import os
import sys

from decode_goals import cells_of, read_run


def main(paths):
    runs = [(os.path.basename(os.path.dirname(os.path.abspath(p))), cells_of(read_run(p))) for p in paths]
    names = sorted({k[:-3] for c in runs[0][1].values() for k in c
                    if k.startswith("tilejit") and k.endswith("_us")})
    print("cell".ljust(18), " ".join(f"{run[:6]}:{n[8:]}".rjust(16) for run, _ in runs for n in names))
    for key in runs[0][1]:
        times = [cells.get(key, {}).get(f"{n}_us", float("nan")) for _, cells in runs for n in names]
        print(f"{key[0]}/{key[1]} {key[2]}x{key[3]}".ljust(18), " ".join(f"{t:16.1f}" for t in times))


if __name__ == "__main__":
    main(sys.argv[1:])
