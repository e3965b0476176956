#!/usr/bin/env python3
"""auto against the best of a coarse search over segment sizes (and k), per platform and size.
usage: search.py DIR  (DIR holds perf/sim/run.sh's <platform>.csv files)"""
import csv, glob, os, sys

d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
worst = 0.0
for f in sorted(glob.glob(os.path.join(d, '*.csv'))):
    if f.endswith('.plans.csv') or f.endswith('.raw.csv'):
        continue
    p = os.path.basename(f)[:-4]
    by = {}
    for r in csv.DictReader(open(f)):
        by.setdefault(int(r['size_bytes']), []).append((float(r['time_us']), r['contender']))
    for s in sorted(by):
        l = sorted(by[s])
        auto = [t for t, c in l if c == 'ours-auto'][0]
        ratio = auto / l[0][0]
        worst = max(worst, ratio)
        print(f"{p:12s} {s:8d}  auto {auto:8.1f}  best {l[0][1]:28s} {l[0][0]:8.1f}  auto/best {ratio:.3f}")
print(f"largest auto / best: {worst:.3f}")
