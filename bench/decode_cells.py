"""Each measured cell of one or more bench_decode.py runs, in order: the op's time, the best
peer's and the speed-up (the figure the 1.25x goal reads), one line per record, so that
repeated runs of a few cells (CELLS=...) show their spread.

    python3 bench/decode_cells.py RUN/decode_tilejit.jsonl
"""
import sys

from decode_goals import best_peer, measured, read_run


def main(path):
    for r in measured(read_run(path)):
        peer, t = best_peer(r), r["tilejit_op_us"]
        ratio = f"{peer / t:.3f}x" if peer else "-"
        ctx = f"{r['ctx'] // 1024}K" if r["ctx"] % 1024 == 0 else str(r["ctx"])
        print(f"{r['hq']}/{r['hkv']} x {r['batch']} x {ctx}  op {t:.2f}  peer {peer or float('nan'):.1f}  {ratio}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
