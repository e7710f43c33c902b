"""Where the time of one decode launch goes inside the GPU: the op (tilejit.PagedDecode with the
table's tiling) compiled with the device library's trace switch (-DTJ_TRACE=1,
templates/device/cuda/tj/trace.h), run as bench_decode.py times it (L2 flushed, a 200 us pad
of GPU work queued before the start event), once per run. Every program's thread 0 reports
%globaltimer at its entry, when the sequence length arrived, its first block-table entry,
its first two copied tiles, the epilogue, the steps of a cluster merge and its exit; this script prints per run the event
time, the kernel's span on the GPU (first entry to last exit), the spread of the programs'
entries and exits, and the medians of each point after entry.

    CELLS=32/8:16:4096 LENS=1,4096 RUNS=5 PYTHONPATH=python:bench/peers \\
    TILEJIT_CACHE_DIR=$(mktemp -d) OUT=... python3 bench/decode_timeline.py

The trace costs a little (a shared-memory test per wait, a printf after the exit point): the
event times here run above bench_decode.py's. Raw lines go to $OUT/timeline_raw.txt, summaries
to $OUT/timeline.jsonl; bench/timeline_tail.py reads the raw lines of cluster launches for
their tail (how far apart the loops end, what shared tiles would gain, the merge).
"""
import ctypes
import json
import os
import statistics
import sys
import tempfile

os.environ["TILEJIT_NVRTC_OPTIONS"] = (os.environ.get("TILEJIT_NVRTC_OPTIONS", "") + " -DTJ_TRACE=1").strip()

import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "peers"))
from common import flush_l2, gpu_pad  # noqa: E402
from decode_data import cell_op  # noqa: E402
from trace_lines import POINTS, parse  # noqa: E402

import tilejit  # noqa: E402

D, BS = 128, 16
OUT = os.environ.get("OUT", "/tmp/out")
CELLS = os.environ.get("CELLS", "32/8:16:4096")
LENS = [int(n) for n in os.environ.get("LENS", "1,4096").split(",")]
RUNS = int(os.environ.get("RUNS", "5"))
TUNING = json.loads(os.environ.get("TUNING", "{}"))
LIBC = ctypes.CDLL(None)


def traced_launch(fn):
    """Event time (us) of fn() and the trace lines its kernels printed."""
    flush_l2()
    gpu_pad(200)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    sys.stdout.flush()
    LIBC.fflush(None)
    saved = os.dup(1)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 1)  # the runtime prints the device's lines on stdout
        try:
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            LIBC.fflush(None)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        captured.seek(0)
        lines = [l for l in captured.read().decode(errors="replace").splitlines() if l.startswith("tj-trace ")]
    return start.elapsed_time(end) * 1e3, lines


def summary(lines):
    """Span and medians (us) of one launch's lines, per kernel."""
    kernels = {}
    for program in filter(None, map(parse, lines)):
        kernels.setdefault(program["kernel"], []).append((program["entry"], program["points"], program["exit"]))
    out = {}
    for name, rows in kernels.items():
        entries = [r[0] for r in rows]
        exits = [r[2] for r in rows]
        first = min(entries)
        rec = {"programs": len(rows), "span_us": (max(exits) - first) / 1e3,
               "entry_spread_us": (max(entries) - first) / 1e3,
               "exit_first_us": (min(exits) - first) / 1e3,
               "exit_median_us": (statistics.median(exits) - first) / 1e3}
        for i, point in enumerate(POINTS):
            after = [r[1][i] for r in rows if r[1][i] > 0]  # ns after the program's entry
            if after:
                rec[point + "_median_us"] = statistics.median(after) / 1e3
                rec[point + "_max_us"] = max(after) / 1e3
        out[name] = rec
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    jit = tilejit.Jit()
    raw = open(os.path.join(OUT, "timeline_raw.txt"), "a")
    log = open(os.path.join(OUT, "timeline.jsonl"), "a")
    for cell in CELLS.split(","):
        at = cell_op(jit, cell, TUNING, D, BS)
        op = at.op
        for length in LENS:
            args = at.args(length)
            traced_launch(lambda: op.run_args(args))  # compiles; its lines are not kept
            for run in range(RUNS):
                us, lines = traced_launch(lambda: op.run_args(args))
                raw.write(f"# {cell} tokens {length} run {run} event {us:.2f} us\n" + "\n".join(lines) + "\n")
                rec = {"cell": cell, "tuning": TUNING, "partition": op.partition_size, "tokens": length,
                       "run": run, "event_us": us, "kernels": summary(lines)}
                print(json.dumps(rec), flush=True)
                log.write(json.dumps(rec) + "\n")
        del at, op
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
