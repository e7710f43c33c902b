"""Each measured cell of one or more bench_decode.py runs, in order: the op's time, the best
peer's and the speed-up (the figure the 1.25x goal reads), one line per record, so that
repeated runs of a few cells (CELLS=...) show their spread.

    python3 bench/decode_cells.py RUN/decode_tilejit.jsonl
"""
import sys

from decode_goals import best_peer, cell_name, measured, read_run, speedup


def main(path):
    for r in measured(read_run(path)):
        peer, t = best_peer(r), r["tilejit_op_us"]
        print(f"{cell_name(r)}  op {t:.2f}  peer {peer or float('nan'):.1f}  {speedup(peer, t)}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
