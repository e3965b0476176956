# The medians of raw.txt's 3 rounds per size and contender, and the ratios to stock.
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1] if len(sys.argv) > 1 else "raw.txt"):
    f = line.split()
    if len(f) >= 4 and f[2].isdigit():
        d[(f[1], int(f[2]))].append(float(f[3]))
print("| bytes | stock | before | after | before / stock | after / stock |")
print("|---|---|---|---|---|---|")
for s in sorted({k[1] for k in d}):
    m = {w: statistics.median(d[(w, s)]) for w in ("stock", "before", "after")}
    print(f"| {s} | {m['stock']:.2f} | {m['before']:.2f} | {m['after']:.2f} | "
          f"{m['before'] / m['stock']:.2f} | {m['after'] / m['stock']:.2f} |")
