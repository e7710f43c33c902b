"""Cold-JIT records of alternating processes (tilejit_bench_jit cold lines tagged "lib" and
"round" by the calling script): per template and library the median and range, and per round
the ratio new / old of the means of its processes (the host's speed drifts in phases lasting
several processes, so only neighbours compare).

    python3 jit_pairs.py JIT.jsonl
"""
import collections
import json
import statistics as st
import sys

times = collections.defaultdict(list)
rounds = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("mode") != "cold":
        continue
    times[(r["template"], r["lib"])].append(r["total_s"])
    rounds[(r["template"], r["round"])][r["lib"]].append(r["total_s"])
for (t, lib), w in sorted(times.items()):
    print(f"{t:22s} {lib:4s} median {st.median(w):.3f}  [{min(w):.3f}-{max(w):.3f}]  all {' '.join(f'{x:.3f}' for x in w)}")
for t in sorted({k[0] for k in rounds}):
    ratios = [st.mean(v["new"]) / st.mean(v["old"]) for (tt, _), v in sorted(rounds.items())
              if tt == t and "new" in v and "old" in v]
    if not ratios:
        continue
    print(f"{t:22s} new/old per round: median {st.median(ratios):.3f}  {' '.join(f'{x:.3f}' for x in ratios)}")
