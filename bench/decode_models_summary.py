"""The goals of a bench_decode_models.py run, one line per cell and a verdict per part:

  fp8    %R of the fp8 op (fp8 bytes over the run's read ceiling; goal >= 95 at batch >= 64 x
         ctx >= 4K) and its tokens/s over the bf16 op's (goal >= 1.0 at batch 1 and 16)
  mqa    the best tilejit variant against vLLM's unified_attention, best of its two paths
         (goal > 1.0 in every cell)
  sinks  sinks=1 time over sinks=0 (goal <= 1.02)
  cudnn  cuDNN-on-contiguous time over the op's (goal >= 1.0)

    python3 bench/decode_models_summary.py RUN/decode_models.jsonl
"""
import json
import sys


def fmt(x):
    return "-" if x is None else f"{x:.2f}"


def ratio(num, den):
    return None if num is None or den is None else num / den


def best(rec, names):
    times = [rec[f"{n}_us"] for n in names if f"{n}_us" in rec]
    return min(times) if times else None


def cell(rec):
    return f"{rec['part']:5} {rec.get('hq')}/{rec.get('hkv')} d{rec.get('head')} b{rec.get('batch')} ctx{rec.get('ctx')}"


def fp8(rec, ceiling, misses):
    line = []
    for kind in ("per_tensor", "per_head"):
        t, tb = rec.get(f"fp8_{kind}_us"), rec.get(f"fp8_{kind}_TBps")
        pct = None if tb is None else 100 * tb / ceiling
        speed = ratio(rec.get("bf16_us"), t)
        line.append(f"{kind} {fmt(t)} us {fmt(pct)} %R x{fmt(speed)} of bf16")
        if rec["batch"] >= 64 and rec["ctx"] >= 4096 and not (pct or 0) >= 95:
            misses.append(f"{cell(rec)} {kind}: {fmt(pct)} %R < 95")
        if rec["batch"] <= 16 and not (speed or 0) >= 1.0:
            misses.append(f"{cell(rec)} {kind}: x{fmt(speed)} of bf16 < 1.0")
    return "; ".join(line)


def mqa(rec, ceiling, misses):
    ours, peer = best(rec, ("tilejit_q16", "tilejit_q32")), best(rec, ("unified", "unified_alt"))
    if not (ratio(peer, ours) or 0) > 1.0:
        misses.append(f"{cell(rec)}: x{fmt(ratio(peer, ours))} of unified_attention")
    return (f"q16 {fmt(rec.get('tilejit_q16_us'))} q32 {fmt(rec.get('tilejit_q32_us'))} "
            f"unified {fmt(peer)} us: x{fmt(ratio(peer, ours))}")


def sinks(rec, ceiling, misses):
    cost = ratio(rec.get("sinks1_us"), rec.get("sinks0_us"))
    if not (cost or 9) <= 1.02:
        misses.append(f"{cell(rec)}: sinks cost x{fmt(cost)}")
    return f"sinks0 {fmt(rec.get('sinks0_us'))} sinks1 {fmt(rec.get('sinks1_us'))} us: x{fmt(cost)}"


def cudnn(rec, ceiling, misses):
    speed = ratio(rec.get("cudnn_contiguous_us"), rec.get("tilejit_op_us"))
    if not (speed or 0) >= 1.0:
        misses.append(f"{cell(rec)}: x{fmt(speed)} of cuDNN")
    return f"op {fmt(rec.get('tilejit_op_us'))} cudnn {fmt(rec.get('cudnn_contiguous_us'))} us: x{fmt(speed)}"


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    ceiling = next((r["TBps"] for r in rows if r.get("item") == "read_ceiling"), float("nan"))
    print(f"read ceiling {ceiling:.2f} TB/s")
    misses = []
    parts = {"fp8": fp8, "mqa": mqa, "sinks": sinks, "cudnn": cudnn}
    for rec in rows:
        if "part" not in rec:
            continue
        errors = {k: v for k, v in rec.items() if k.endswith("error")}
        if "skipped" in rec:
            print(f"{cell(rec)} skipped: {rec['skipped']}")
            continue
        print(f"{cell(rec)} {parts[rec['part']](rec, ceiling, misses)}" if rec["part"] in parts else cell(rec))
        for k, v in errors.items():
            print(f"    {k}: {v}")
    print("goals: all met" if not misses else "goals missed:\n  " + "\n  ".join(misses))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
