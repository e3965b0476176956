#!/usr/bin/env python3
"""Medians (ranges) over the rounds of raw.txt, and the ratios to stock (run.sh)."""
import collections
import statistics
import sys

osu = collections.defaultdict(list)
tb = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == 'tb' and 'mean' in f:
        tb[f[1]].append(tuple(float(f[i]) for i in (7, 9, 11)))
    elif f[0].startswith('osu') and len(f) >= 5:
        try:
            # osu_bcast: the latency; osu_ibcast: "Pure Comm." (its 4th column)
            osu[(f[0], f[1], int(f[3]))].append(float(f[6] if f[0] == 'osu_ibcast' else f[4]))
        except ValueError:
            pass

C = ('stock', 'before', 'ours')
for bench in ('osu_bcast', 'osu_ibcast'):
    print('\n### %s%s\n' % (bench, ' (Pure Comm.)' if bench == 'osu_ibcast' else ''))
    print('| bytes | stock | before | ours | before / stock | ours / stock |')
    print('|---|---|---|---|---|---|')
    for s in sorted({k[2] for k in osu if k[0] == bench}):
        v = {c: osu[(bench, c, s)] for c in C}
        m = {c: statistics.median(v[c]) for c in C}
        cell = lambda c: '%.2f (%.2f - %.2f)' % (m[c], min(v[c]), max(v[c]))
        print('| %d | %s | %s | %s | %.2f | %.2f |' % (s, cell('stock'), cell('before'), cell('ours'),
                                                     m['before'] / m['stock'], m['ours'] / m['stock']))
if not tb:
    sys.exit(0)
print('\n### tb 8 B (us per call: root, rank 1, their mean; median of the rounds, 3 runs each)\n')
print('| contender | root | rank 1 | mean (range) |')
print('|---|---|---|---|')
for c in C:
    v = tb[c]
    print('| %s | %.3f | %.3f | %.3f (%.3f - %.3f) |' % (c, statistics.median(x[0] for x in v),
          statistics.median(x[1] for x in v), statistics.median(x[2] for x in v),
          min(x[2] for x in v), max(x[2] for x in v)))
