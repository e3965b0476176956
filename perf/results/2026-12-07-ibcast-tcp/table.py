#!/usr/bin/env python3
"""Per setting and size: the medians over rounds, before / stock and after / stock."""
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 5:
        d[(f[0], int(f[3]), f[2])].append(float(f[4]))
for s in sorted({k[0] for k in d}):
    print(f"## {s}\n| size | stock us | before / stock | after / stock |\n|---|---|---|---|")
    for m in sorted({k[1] for k in d if k[0] == s}):
        st = statistics.median(d[(s, m, 'stock')])
        b = statistics.median(d[(s, m, 'before')]) / st
        a = statistics.median(d[(s, m, 'after')]) / st
        print(f"| {m} | {st:.1f} | {b:.2f} | {a:.2f} |")
