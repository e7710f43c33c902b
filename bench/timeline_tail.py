"""The tail of cluster decode launches, from bench/decode_timeline.py's raw trace lines: how far
apart the programs' loops end, how far apart the two (or C) programs of one cluster end, what
the kernel's end would be if each cluster's programs shared its tiles perfectly (each cluster
ending at the mean of its programs' loop ends instead of the last), and how long a cluster
takes from its last loop end to its exit (the merge).

    python3 bench/timeline_tail.py OUT/timeline_raw.txt[.gz] [--cluster 2]

Launches of one token are skipped (no loop). Times are us after the launch's first entry. The
per-SM correlation between runs says whether the slow programs sit on the same SMs each run
(systematic) or not (random).
"""
import argparse
import collections
import gzip
import math
import statistics

# tj-trace kernel x y z smid entry <8 points, ns after entry> exit (templates/device/cuda/tj/trace.h)
EPILOGUE = 4  # index of the loop's end among the points


def launches(path):
    opener = gzip.open if path.endswith(".gz") else open
    found = []
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith("#"):
                found.append({"header": line[1:].strip(), "programs": []})
                continue
            fields = line.split()
            if not found or len(fields) < 16 or fields[0] != "tj-trace":
                continue
            x, y, z, sm, entry = (int(v) for v in fields[2:7])
            points = [int(v) for v in fields[7:15]]
            found[-1]["programs"].append({"key": (x, y, z), "sm": sm, "entry": entry, "points": points,
                                          "exit": int(fields[15])})
    return found


def correlation(a, b):
    keys = [k for k in a if k in b]
    xa, xb = [a[k] for k in keys], [b[k] for k in keys]
    if len(keys) < 3:
        return float("nan")
    ma, mb = statistics.mean(xa), statistics.mean(xb)
    den = math.sqrt(sum((p - ma) ** 2 for p in xa) * sum((q - mb) ** 2 for q in xb))
    return sum((p - ma) * (q - mb) for p, q in zip(xa, xb)) / den if den else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("raw")
    parser.add_argument("--cluster", type=int, default=2, help="programs per cluster along grid axis 2")
    args = parser.parse_args()
    per_sm_runs = []
    for launch in launches(args.raw):
        programs = [p for p in launch["programs"] if p["points"][EPILOGUE] > 0]
        if len(programs) < 2 or " tokens 1 " in f" {launch['header']} ":
            continue
        t0 = min(p["entry"] for p in programs)
        loop_end = {p["key"]: (p["entry"] - t0 + p["points"][EPILOGUE]) / 1e3 for p in programs}
        exits = {p["key"]: (p["exit"] - t0) / 1e3 for p in programs}
        clusters = collections.defaultdict(list)
        for (x, y, z) in loop_end:
            clusters[(x, y, z // args.cluster)].append((x, y, z))
        spread = [max(loop_end[k] for k in ks) - min(loop_end[k] for k in ks) for ks in clusters.values()]
        last = max(max(loop_end[k] for k in ks) for ks in clusters.values())
        balanced = max(statistics.mean(loop_end[k] for k in ks) for ks in clusters.values())
        merge = [max(exits[k] for k in ks) - max(loop_end[k] for k in ks) for ks in clusters.values()]
        ends = sorted(loop_end.values())
        print(f"{launch['header']}")
        print(f"  loop ends min/median/max {ends[0]:.2f} / {statistics.median(ends):.2f} / {ends[-1]:.2f} us;"
              f" within a cluster apart by mean {statistics.mean(spread):.2f}, max {max(spread):.2f}")
        print(f"  last loop end {last:.2f}; with each cluster's tiles shared perfectly {balanced:.2f}"
              f" ({last - balanced:.2f} earlier); cluster exit - its last loop end: median"
              f" {statistics.median(merge):.2f}")
        by_sm = collections.defaultdict(list)
        for p in programs:
            by_sm[p["sm"]].append(loop_end[p["key"]])
        per_sm_runs.append({sm: max(v) for sm, v in by_sm.items()})
    for i in range(1, len(per_sm_runs)):
        print(f"per-SM last loop end, launch {i - 1} against {i}: correlation "
              f"{correlation(per_sm_runs[i - 1], per_sm_runs[i]):.2f}")


if __name__ == "__main__":
    main()
