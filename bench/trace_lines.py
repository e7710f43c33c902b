"""The lines a kernel compiled with the device library's trace switch prints (-DTJ_TRACE=1,
templates/device/cuda/tj/trace.h), one per program:

    tj-trace <kernel> <x> <y> <z> <smid> <entry> <POINTS, ns after entry; 0: not reached> <exit>

Shared by bench/decode_timeline.py (which records them) and bench/timeline_tail.py (which reads
them back); no torch here, so the reader runs anywhere.
"""

POINTS = ["scalar", "lookup", "wait1", "wait2", "epilogue", "merge_copies_done", "merge_staged", "merge_written"]


def parse(line):
    """One program's line as a dict (kernel, key (x, y, z), sm, entry, points, exit; ns), or
    None where the line is not a trace line of this format."""
    fields = line.split()
    if len(fields) != 8 + len(POINTS) or fields[0] != "tj-trace":
        return None
    x, y, z, sm, entry = (int(v) for v in fields[2:7])
    return {"kernel": fields[1], "key": (x, y, z), "sm": sm, "entry": entry,
            "points": [int(v) for v in fields[7:-1]], "exit": int(fields[-1])}
