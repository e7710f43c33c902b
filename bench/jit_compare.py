"""Cold JIT, warm start and launch cost of two builds measured in one device call (bench/run.sh
ab-jit: tilejit_bench_jit's records, each with the build that printed it in "build"): per
figure the median over each build's processes and new over base. A cold compile's wall time
swings +-25 % on shared hosts; `cpu_s` is the compile's own work.

    python3 bench/jit_compare.py OUT/ab/jit.jsonl
"""
import collections
import json
import statistics
import sys

# The figure of each record, by mode: its field (the first one present).
FIELDS = ("total_s", "process_total_s", "load_s", "median_us", "get_current_us")


def figures(path):
    """{figure name: {build: [values]}}; a cold record gives its wall and CPU time."""
    table = collections.defaultdict(lambda: collections.defaultdict(list))
    for line in open(path):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        field = next((f for f in FIELDS if f in r), None)
        if field is None or "build" not in r:
            continue
        name = " ".join(filter(None, (r["mode"], r.get("template"), field)))
        table[name][r["build"]].append(r[field])
        if "cpu_s" in r:
            table[name.replace("total_s", "cpu_s")][r["build"]].append(r["cpu_s"])
    return table


def main(path, new="bin", base="ab"):
    table = figures(path)
    if not table:
        sys.exit(f"{path}: no tilejit_bench_jit records with a build")
    print(f"{'figure':44s} {'new':>9s} {'base':>9s} {'new/base':>8s}  (median, processes)")
    for name, builds in table.items():
        if new not in builds or base not in builds:
            continue
        a, b = statistics.median(builds[new]), statistics.median(builds[base])
        print(f"{name:44s} {a:9.4g} {b:9.4g} {a / b:8.3f}  ({len(builds[new])}, {len(builds[base])})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
