#!/usr/bin/env python3
"""raw.txt -> per operation and size: the medians over rounds of before/stock and
after/stock (each round's ratio), their ranges, and at 512 KiB - 1 MiB how often each
build's verdict handed the class to Open MPI."""
import collections, statistics, sys

t = collections.defaultdict(dict)       # (op, size) -> {(who, round): avg_us}
verdicts = collections.Counter()        # (op, who, class, verdict)
for line in open(sys.argv[1] if len(sys.argv) > 1 else 'raw.txt'):
    f = line.split()
    rnd, op, who = f[0], f[1], f[2]
    if f[3].isdigit():
        t[(op, int(f[3]))][(who, rnd)] = float(f[4])
    elif f[3].startswith('class_bytes='):
        cls = int(f[3].split('=')[1].rstrip(':'))
        v = 'module below' if 'module below runs' in line or 'without the segment' in line.split(':')[-1] else 'ours'
        verdicts[(op, who, cls, v)] += 1
for (op, size) in sorted(t):
    d = t[(op, size)]
    rounds = sorted({r for (_, r) in d})
    out = [op, str(size)]
    for who in ('before', 'after'):
        r = [d[(who, x)] / d[('stock', x)] for x in rounds if (who, x) in d and ('stock', x) in d]
        out.append('%s %.2f (%.2f - %.2f)' % (who, statistics.median(r), min(r), max(r)))
    print('  '.join(out))
print()
for k in sorted(verdicts):
    print(*k, verdicts[k])
