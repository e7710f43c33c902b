"""Where a kernel's warps wait, from Nsight Compute's source page: the stall reasons summed
over each kernel of the report, and the instructions that collect the most samples.

    ncu --section WarpStateStats --section SourceCounters -o prof python3 bench/ncu_decode_cells.py
    ncu -i prof.ncu-rep --page source --csv --print-source sass > sass.csv
    python3 bench/ncu_stalls.py sass.csv [KERNEL_INDEX [TOP]]

One line per profiled kernel (index, name, samples, instructions executed, the largest stall
reasons as shares of all samples); with KERNEL_INDEX, that kernel's TOP (default 25)
instructions by samples, each with the stall reasons that make up over 10 % of its samples.
"""
import csv
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def kernels(rows):
    """(name, header, instruction rows) per kernel section of the CSV."""
    starts = [i for i, row in enumerate(rows) if row and row[0] == "Kernel Name"]
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(rows)
        yield rows[start][1], rows[start + 1], rows[start + 2:end]


def main():
    rows = list(csv.reader(open(sys.argv[1])))
    detail = int(sys.argv[2]) if len(sys.argv) > 2 else None
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 25
    for k, (name, header, body) in enumerate(kernels(rows)):
        column = {h: n for n, h in enumerate(header)}
        samples_col = column["Warp Stall Sampling (All Samples)"]
        reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
        samples = sum(number(r[samples_col]) for r in body) or 1.0
        executed = sum(number(r[column["Instructions Executed"]]) for r in body)
        totals = {s: sum(number(r[column[s]]) for r in body if len(r) > column[s]) for s in reasons}
        largest = sorted(totals.items(), key=lambda kv: -kv[1])[:7]
        print(f"[{k}] {name}: samples {samples:.0f}, inst {executed:.3g}, "
              + ", ".join(f"{s[6:]} {v / samples * 100:.0f}%" for s, v in largest))
        if detail != k:
            continue
        for r in sorted(body, key=lambda r: -number(r[samples_col]))[:top]:
            share = number(r[samples_col])
            parts = " ".join(f"{s[6:]}={number(r[column[s]]):.0f}" for s in reasons
                             if number(r[column[s]]) > 0.1 * share)
            print(f"  {r[0]:>6} {share / samples * 100:5.1f}% {r[1][:90]}  {parts}")


if __name__ == "__main__":
    main()
