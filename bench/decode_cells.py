"""Each measured cell of a bench_decode.py run, in order: the op's time, the best peer's and
the speed-up (the figure the 1.25x goal reads) and the op against cuDNN SDPA on contiguous
copies of the K/V (goal >= 1.0x), one line per record, so that repeated runs of
a few cells (CELLS=...) show their spread; first the run's read ceiling (the speed-up of a
cell that streams at the ceiling moves with it from host to host).

    python3 bench/decode_cells.py RUN/decode_tilejit.jsonl
"""
import sys

from decode_goals import best_peer, cell_name, measured, read_run, speedup


def main(path):
    rows = read_run(path)
    ceilings = [r["TBps"] for r in rows if r.get("item") == "read_ceiling"]
    print(f"read ceiling {ceilings[-1]:.3f} TB/s" if ceilings else "read ceiling: not measured in this run")
    for r in measured(rows):
        peer, t = best_peer(r), r["tilejit_op_us"]
        # cuDNN on contiguous K/V: the goal is >= 1.0x of it (paging for free).
        cudnn = r.get("cudnn_contiguous_us")
        print(f"{cell_name(r)}  op {t:.2f}  peer {peer or float('nan'):.1f}  {speedup(peer, t)}"
              f"  cudnn {cudnn or float('nan'):.1f}  {speedup(cudnn, t)}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
