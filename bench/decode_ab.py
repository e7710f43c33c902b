"""An A/B of two decode builds or device libraries measured in one device call: bench_decode.py
run alternately into two folders (each run appending its cells), the records paired in order.
Prints each pair (op times, the best peer of the new run, both speed-ups) and per cell the
ranges over the rounds.

    python3 bench/decode_ab.py NEW/decode_tilejit.jsonl OLD/decode_tilejit.jsonl
"""
import collections
import sys

from decode_goals import best_peer, measured, read_run, speedup


def main(new_path, old_path):
    new_runs, old_runs = measured(read_run(new_path)), measured(read_run(old_path))
    if len(new_runs) != len(old_runs):
        print(f"note: {len(new_runs)} new records against {len(old_runs)} old; pairing the first ones")
    ranges = collections.defaultdict(lambda: ([], [], []))
    for new, old in zip(new_runs, old_runs):
        key = f"{new['hq']}/{new['hkv']} x {new['batch']} x {new['ctx']}"
        if key != f"{old['hq']}/{old['hkv']} x {old['batch']} x {old['ctx']}":
            sys.exit(f"decode_ab.py: the runs measured different cells in the same order ({key})")
        peer = best_peer(new)
        a, b = new["tilejit_op_us"], old["tilejit_op_us"]
        print(f"{key:18s} op new {a:7.2f} old {b:7.2f}  peer {peer or float('nan'):7.1f}  "
              f"new {speedup(peer, a)} old {speedup(peer, b)}")
        for values, v in zip(ranges[key], (a, b, peer or float("nan"))):
            values.append(v)
    print()
    for key, (a, b, p) in ranges.items():
        print(f"{key:18s} new {min(a):.2f}-{max(a):.2f}  old {min(b):.2f}-{max(b):.2f}  "
              f"peer {min(p):.1f}-{max(p):.1f}  ({len(a)} rounds)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
