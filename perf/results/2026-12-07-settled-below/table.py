#!/usr/bin/env python3
"""raw.txt -> the callgrind lines, then per size the medians over rounds of before/stock and
after/stock (each round's ratio, with the range), and the verdicts per build at 8 KiB - 1 MiB."""
import collections, statistics, sys

t = collections.defaultdict(dict)
verdicts = collections.Counter()
for line in open(sys.argv[1] if len(sys.argv) > 1 else 'raw.txt'):
    f = line.split()
    if f[0] == 'callgrind':
        print(line.rstrip())
        continue
    rnd, who = f[0], f[1]
    if f[2].isdigit():
        t[int(f[2])][(who, rnd)] = float(f[3])
    elif f[2].startswith('class_bytes='):
        cls = int(f[2].split('=')[1].rstrip(':'))
        verdicts[(who, cls, 'below' if 'module below runs' in line else 'ours')] += 1
for size in sorted(t):
    d = t[size]
    rounds = sorted({r for (_, r) in d})
    out = ['%8d' % size]
    for who in ('before', 'after'):
        r = [d[(who, x)] / d[('stock', x)] for x in rounds if (who, x) in d and ('stock', x) in d]
        out.append('%s %.2f (%.2f - %.2f)' % (who, statistics.median(r), min(r), max(r)))
    print('  '.join(out))
for who in ('before', 'after'):
    print(who, ' '.join('%d:%d/%d' % (c, verdicts[(who, c, 'below')], verdicts[(who, c, 'below')] + verdicts[(who, c, 'ours')])
                        for c in sorted({c for (w, c, _) in verdicts if w == who}) if c >= 8192))
