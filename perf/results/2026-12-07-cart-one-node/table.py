#!/usr/bin/env python3
"""Ratios of run.sh's raw output: per operation and ranks, the median of the rounds per
size, before / stock and after / stock, and after / before."""
import collections
import statistics
import sys

t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 6 or not f[0].isdigit():
        continue
    t[(f[1], int(f[2]), f[3], int(f[4]))].append(float(f[5]))
cfgs = sorted({(k[0], k[1]) for k in t})
for op, n in cfgs:
    print(f"\n{op}, {n} ranks: size, stock us, before/stock, after/stock, after/before")
    for s in sorted({k[3] for k in t if k[:2] == (op, n)}):
        m = {w: statistics.median(t[(op, n, w, s)]) for w in ("stock", "before", "after")}
        print(f"{s:>8} {m['stock']:9.2f} {m['before'] / m['stock']:6.2f} "
              f"{m['after'] / m['stock']:6.2f} {m['after'] / m['before']:6.2f}")
