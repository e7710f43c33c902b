"""The tail of cluster decode launches, from bench/decode_timeline.py's raw trace lines: how far
apart the programs' loops end, how far apart the two (or C) programs of one cluster end, what
the kernel's end would be if each cluster's programs shared its tiles perfectly (each cluster
ending at the mean of its programs' loop ends instead of the last), and how long a cluster
takes from its last loop end to its exit (the merge). With --steps, the merge of each cluster's
last program step by step (medians over clusters, us): its epilogue (loop end -> merge entry),
the merge's own trace points (copies done -> staged -> written) and its exit, split by how far
before it the cluster's other programs ended their loops.

    python3 bench/timeline_tail.py OUT/timeline_raw.txt[.gz] [--cluster 2] [--steps] [--tiles N]
        [--steal C] [--coupling]

With --tiles N (each program's loop over N tiles), the tiles shared perfectly are also shared
by whole tiles: each program holds the tile in flight beside the one in use and takes the
cluster's next tile when it finishes one, at the pace it kept in its own loop (first tile in
hand -> loop end, over N); a cluster then ends when its last tile does. The same across the
whole grid bounds any design that lets a program take another sequence's or head's tiles.
With --steal C as well, one such design is replayed: programs that are done take other
programs' last unclaimed tiles at C us each beyond their own pace, while owners claim their own
tiles a fixed number ahead (stolen_from_the_back).

Launches of one token are skipped (no loop). Times are us after the launch's first entry. The
per-SM correlation between runs says whether the slow programs sit on the same SMs each run
(systematic) or not (random).
"""
import argparse
import collections
import gzip
import heapq
import statistics

from trace_lines import POINTS, parse

EPILOGUE = POINTS.index("epilogue")  # the loop's end
WAIT1 = POINTS.index("wait1")  # the first tile in every thread's hands: the loop's start
MERGE_POINTS = [POINTS.index(name) for name in ("merge_copies_done", "merge_staged", "merge_written")]


def merge_steps(clusters, programs_by_key):
    """The last program of each cluster: its steps after its loop end, by the gap to the
    cluster's previous loop end."""
    steps = collections.defaultdict(list)
    names = ["epilogue", "copies done -> staged", "staged -> written", "written -> exit"]
    for keys in clusters.values():
        ps = sorted((programs_by_key[k] for k in keys), key=lambda p: p["entry"] + p["points"][EPILOGUE])
        if len(ps) < 2:
            continue
        last, before = ps[-1], ps[-2]
        gap = (last["entry"] + last["points"][EPILOGUE] - before["entry"] - before["points"][EPILOGUE]) / 1e3
        marks = [last["points"][EPILOGUE]] + [last["points"][i] for i in MERGE_POINTS] + [last["exit"] - last["entry"]]
        if any(m <= 0 for m in marks):
            continue
        band = "gap < 0.5 us" if gap < 0.5 else "gap >= 0.5 us"
        for name, a, b in zip(names, marks, marks[1:]):
            steps[(band, name)].append((b - a) / 1e3)
        steps[(band, "tail")].append((marks[-1] - marks[0]) / 1e3)
    for band in sorted({band for band, _ in steps}):
        parts = [f"{name} {statistics.median(steps[(band, name)]):.2f}" for name in names + ["tail"]
                 if (band, name) in steps]
        print(f"  last program, {band} ({len(steps[(band, 'tail')])} clusters): " + ", ".join(parts))


def shared_by_tiles(starts, ends, tiles):
    """When the programs of a cluster (first tile in hand, loop end; us) would end their loops
    had they taken the cluster's tiles one at a time, each with one tile in flight ahead of
    the one in use, at their own pace."""
    pace = [(e - s) / tiles for s, e in zip(starts, ends)]
    left = len(starts) * tiles - 2 * len(starts)  # each starts with a tile in use and one in flight
    queue = [(s + t, i) for i, (s, t) in enumerate(zip(starts, pace))]  # next finish of a tile
    held = [2] * len(starts)
    heapq.heapify(queue)
    finish = list(starts)
    while queue:
        t, i = heapq.heappop(queue)
        held[i] -= 1
        if left > 0:
            held[i] += 1
            left -= 1
        finish[i] = t
        if held[i] > 0:
            heapq.heappush(queue, (t + pace[i], i))
    return max(finish)


def stolen_from_the_back(starts, ends, tiles, overhead, free_after, lookahead=2, merge_cost=0.2):
    """When the programs (first tile in hand, loop end; us) would end their loops, stolen
    partials merged, had programs that are done taken other programs' tiles from the back:
    an owner claims its tiles from the front `lookahead` tiles ahead of the one it starts and
    stops at the first tile already stolen; a program `free_after` us past its own loop end
    (its cluster's merge) takes the last unclaimed tile of the program with the most left,
    each such tile costing it `overhead` us beyond its own pace (its claim, the victim's q and
    table, the tile's latency, the partial's write), again until none is left; the owner then
    waits for the stolen partials and merges each in `merge_cost` us. Paces stay as measured
    (programs do not speed up as others finish, here or in the measured ends)."""
    n = len(starts)
    pace = [(e - s) / tiles for s, e in zip(starts, ends)]
    claimed = [0] * n  # tiles claimed from the front so far
    stopped = [False] * n
    back = [0] * n  # tiles taken from the back
    delivered = [0.0] * n  # last stolen partial's arrival
    loop_end = list(ends)
    events = [(s + max(0, k - lookahead) * p, 0, i, k) for i, (s, p) in enumerate(zip(starts, pace))
              for k in range(tiles)]
    events += [(e + free_after, 1, i, 0) for i, e in enumerate(ends)]  # 0: its own loop's end
    heapq.heapify(events)
    while events:
        t, kind, i, k = heapq.heappop(events)
        if kind == 0:  # owner i claims its tile k
            if stopped[i]:
                continue
            if k >= tiles - back[i]:
                stopped[i] = True
                loop_end[i] = starts[i] + k * pace[i]
                # Free earlier than measured: its last tiles went to others.
                heapq.heappush(events, (max(t, loop_end[i]) + free_after, 1, i, 1))
            else:
                claimed[i] = k + 1
            continue
        if k == 0 and stopped[i]:
            continue  # the measured loop end no longer holds (pushed again above)
        # program i is free: the victim with the most unclaimed tiles
        left, victim = max((tiles - claimed[v] - back[v], v) for v in range(n) if not stopped[v] and v != i)
        if left < 1:
            continue
        back[victim] += 1
        done = t + overhead + pace[i]
        delivered[victim] = max(delivered[victim], done)
        heapq.heappush(events, (done, 1, i, 1))
    return max(max(loop_end[v], delivered[v]) + (merge_cost if back[v] else 0.0) for v in range(n)), sum(back)


def explained_share(values, group_of):
    """Share of the variance of `values` (key -> number) explained by the means of the groups
    group_of(key), and the share groups of those sizes explain by chance."""
    groups = collections.defaultdict(list)
    for key, v in values.items():
        groups[group_of(key)].append(v)
    mean = statistics.fmean(values.values())
    total = sum((v - mean) ** 2 for v in values.values())
    between = sum(len(g) * (statistics.fmean(g) - mean) ** 2 for g in groups.values())
    return between / total, (len(groups) - 1) / (len(values) - 1)


def launches(path):
    opener = gzip.open if path.endswith(".gz") else open
    found = []
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith("#"):
                found.append({"header": line[1:].strip(), "programs": []})
            elif found and (program := parse(line)):
                found[-1]["programs"].append(program)
    return found


def correlation(a, b):
    keys = [k for k in a if k in b]
    try:
        return statistics.correlation([a[k] for k in keys], [b[k] for k in keys])
    except statistics.StatisticsError:  # fewer than two SMs in common, or one side constant
        return float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("raw")
    parser.add_argument("--cluster", type=int, default=2, help="programs per cluster along grid axis 2")
    parser.add_argument("--steps", action="store_true", help="the last program's merge, step by step")
    parser.add_argument("--coupling", action="store_true", help="loop-time variance explained by grid axes")
    parser.add_argument("--tiles", type=int, default=0, help="tiles per program's loop: also share by whole tiles")
    parser.add_argument("--steal", type=float, default=None,
                        help="with --tiles: simulate stealing from the back at this cost (us) per stolen tile")
    args = parser.parse_args()
    if args.steal is not None and args.tiles <= 0:
        parser.error("--steal needs --tiles N (the tiles of each program's loop)")
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
        # Each program's first tile in hand (us after the launch's first entry).
        first = {p["key"]: (p["entry"] - t0 + p["points"][WAIT1]) / 1e3 for p in programs}
        if args.tiles:
            by_tiles = max(shared_by_tiles([first[k] for k in ks], [loop_end[k] for k in ks], args.tiles)
                           for ks in clusters.values())
            grid = shared_by_tiles([first[k] for k in loop_end], list(loop_end.values()), args.tiles)
            print(f"  shared by whole tiles ({args.tiles} per program, one in flight): last loop end"
                  f" {by_tiles:.2f} ({last - by_tiles:.2f} earlier); across the whole grid (any program"
                  f" any tile) {grid:.2f} ({last - grid:.2f} earlier)")
        if args.steal is not None:
            keys = list(loop_end)
            for lookahead, free_after in ((2, 0.0), (2, 1.0), (1, 0.0)):
                end, taken = stolen_from_the_back([first[k] for k in keys], [loop_end[k] for k in keys],
                                                  args.tiles, args.steal, free_after, lookahead)
                print(f"  stolen from the back ({args.steal:.1f} us per stolen tile, owners claiming"
                      f" {lookahead} ahead, thieves free {free_after:.1f} us after their loop): last end"
                      f" {end:.2f} ({last - end:.2f} earlier), {taken} tiles stolen")
        if args.coupling:
            loop_time = {p["key"]: (p["points"][EPILOGUE] - p["points"][WAIT1]) / 1e3 for p in programs}
            axes = {"x": (0,), "y": (1,), "z": (2,), "x,y": (0, 1), "x,z": (0, 2), "y,z": (1, 2)}
            shares = []
            for name, picked in axes.items():
                share, chance = explained_share(loop_time, lambda k, picked=picked: tuple(k[a] for a in picked))
                shares.append(f"{name} {share:.2f} ({chance:.2f})")
            print(f"  loop time sd {statistics.pstdev(loop_time.values()):.2f} us; share explained by"
                  f" grid axes (by chance): " + ", ".join(shares))
        if args.steps:
            merge_steps(clusters, {p["key"]: p for p in programs})
        by_sm = collections.defaultdict(list)
        for p in programs:
            by_sm[p["sm"]].append(loop_end[p["key"]])
        per_sm_runs.append({sm: max(v) for sm, v in by_sm.items()})
    for i in range(1, len(per_sm_runs)):
        print(f"per-SM last loop end, launch {i - 1} against {i}: correlation "
              f"{correlation(per_sm_runs[i - 1], per_sm_runs[i]):.2f}")


if __name__ == "__main__":
    main()
