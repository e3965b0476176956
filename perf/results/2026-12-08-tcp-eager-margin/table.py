#!/usr/bin/env python3
"""table.py RAW...: per raw file, the median over rounds per size and contender, and before / stock,
after / stock (rows "round contender size us"; other lines ignored)."""
import collections, statistics, sys
for path in sys.argv[1:]:
    d = collections.defaultdict(list)
    for line in open(path):
        p = line.split()
        if len(p) == 4 and p[2].isdigit():
            d[(p[1], int(p[2]))].append(float(p[3]))
    print(f"## {path}\n| size | stock | before | after | before / stock | after / stock |\n|---|---|---|---|---|---|")
    for s in sorted({k[1] for k in d}):
        if any(not d[(w, s)] for w in ("stock", "before", "after")):
            print(f"| {s} | (a contender has no row: its runs timed out) |||||")
            continue
        m = {w: statistics.median(d[(w, s)]) for w in ("stock", "before", "after")}
        print(f"| {s} | {m['stock']:.1f} | {m['before']:.1f} | {m['after']:.1f} | "
              f"{m['before'] / m['stock']:.2f} | {m['after'] / m['stock']:.2f} |")
    print()
