"""The A/B of two builds measured in one device call (bench/run.sh ab-decode): per cell of the
decode matrix, the op's time (`tilejit_op_us`) of the new build over the baseline's, flagged
where it is outside +-2 %. With a third run (the new build measured again after the baseline)
the ratio is taken against the mean of the new build's two runs, and their drift within the
call is printed beside it: a ratio inside the drift is noise.

    python3 bench/decode_compare.py NEW/decode_tilejit.jsonl BASE/decode_tilejit.jsonl [NEW_AGAIN/decode_tilejit.jsonl]
"""
import math
import sys

from decode_goals import cell_name, cells_of, read_run

TOLERANCE = 0.02


def op_times(path):
    return {key: r["tilejit_op_us"] for key, r in cells_of(read_run(path)).items() if "tilejit_op_us" in r}


def main(new_path, base_path, again_path=None):
    new, base = op_times(new_path), op_times(base_path)
    again = op_times(again_path) if again_path else {}
    names = {key: cell_name(dict(hq=key[0], hkv=key[1], batch=key[2], ctx=key[3])) for key in new}
    print(f"{'cell':18s} {'new us':>8s} {'base us':>8s} {'new/base':>8s}" + (f" {'drift':>7s}" if again else ""))
    ratios, flagged, missing = [], [], [key for key in base if key not in new]
    for key, t in new.items():
        if key not in base:
            missing.append(key)
            continue
        drift = again[key] / t - 1 if key in again else None
        ratio = (t if drift is None else (t + again[key]) / 2) / base[key]
        ratios.append(ratio)
        flag = abs(ratio - 1) > TOLERANCE
        if flag:
            flagged.append(names[key])
        print(f"{names[key]:18s} {t:8.2f} {base[key]:8.2f} {ratio:8.3f}"
              + (f" {100 * drift:+6.1f}%" if drift is not None else "")
              + ("  outside +-2 %" if flag else ""))
    if not ratios:
        sys.exit("decode_compare.py: no cell has an op time in both runs")
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"{len(ratios)} cells, geomean new/base {geomean:.3f}, {len(flagged)} outside +-2 %: {flagged}")
    if missing:
        print(f"cells measured in one run only (the jsonl says why): {sorted(missing)}")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
