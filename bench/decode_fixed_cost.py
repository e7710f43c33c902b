"""Where a decode cell's time goes besides streaming K/V: the op (tilejit.PagedDecode with
the table's tiling for the cell's grid) timed at the cell's grid (num_seqs, kv heads,
max_model_len fixed) with every sequence cut to LENS tokens. The time at 1 token is the
grid's fixed cost (launch, first loads, merge, stores; the programs past the first
partition exit at once); the full length's time less its K/V bytes over the read ceiling
(bench_decode.py measures it) is what a full-length run pays beyond streaming. (No line is fitted through the lengths:
past each partition's start more programs join, so the time is not linear in them.) Beside
them: an empty event pair and one tiny kernel, timed the same way (bench/peers/common.py:
L2 flushed, a 200 us pad before each start event, median).

    CELLS=32/8:16:4096,64/8:16:4096 LENS=1,64,512,1024,2048,3072,4096 \\
    PYTHONPATH=python:bench/peers OUT=... python3 bench/decode_fixed_cost.py
TUNING='{"partition_size": 1024}' passes tiling parameters to the op (default: the table's).
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "peers"))
from common import bench  # noqa: E402
from decode_data import cell_op  # noqa: E402

import tilejit  # noqa: E402

D, BS = 128, 16
OUT = os.environ.get("OUT", "/tmp/out")
CELLS = os.environ.get("CELLS", "32/8:16:4096,64/8:16:4096")
LENS = [int(n) for n in os.environ.get("LENS", "1,64,512,1024,2048,3072,4096").split(",")]
TUNING = json.loads(os.environ.get("TUNING", "{}"))


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "fixed_cost.jsonl"), "a") as log:
        run(log)


def run(log):
    tiny = torch.zeros(1, device="cuda")
    for name, fn in (("empty_event_pair", lambda: None), ("one_tiny_kernel", tiny.zero_)):
        r = bench(fn)
        rec = {"item": name, "us": r["median_ms"] * 1e3}
        print(json.dumps(rec), flush=True)
        log.write(json.dumps(rec) + "\n")
    jit = tilejit.Jit()
    for cell in CELLS.split(","):
        at = cell_op(jit, cell, TUNING, D, BS)
        op, b, hkv = at.op, at.batch, at.hkv
        for length in LENS:
            args = at.args(length)
            r = bench(lambda: op.run_args(args))
            us = r["median_ms"] * 1e3
            kv_bytes = b * length * hkv * D * 2 * 2
            rec = {"cell": cell, "tuning": TUNING, "partition": op.partition_size, "tokens": length,
                   "us": us, "p10_us": r["p10_ms"] * 1e3, "p90_us": r["p90_ms"] * 1e3,
                   "TBps": kv_bytes / (us * 1e-6) / 1e12}
            print(json.dumps(rec), flush=True)
            log.write(json.dumps(rec) + "\n")
        del at, op
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
