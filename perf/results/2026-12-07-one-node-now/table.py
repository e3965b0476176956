# Ours / stock per size: the medians of the rounds; the range over each column's sizes.
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1] if len(sys.argv) > 1 else "raw.txt"):
    f = line.split()
    if len(f) >= 6 and f[4].isdigit():
        d[(f[1], f[2], f[3], int(f[4]))].append(float(f[5]))
cols = [("1 B - 64 B", 1, 64), ("128 B - 4 KiB", 128, 4096), ("8 - 64 KiB", 8192, 65536),
        ("128 - 512 KiB", 131072, 524288), ("1 - 4 MiB", 1048576, 4194304)]
print("| operation | ranks | " + " | ".join(c[0] for c in cols) + " |")
print("|---" * (len(cols) + 2) + "|")
for op, n in [("bcast", "2"), ("bcast", "4"), ("bcast", "8"), ("ibcast", "2"), ("ibcast", "4")]:
    cells = []
    for _, lo, hi in cols:
        r = [statistics.median(d[(op, n, "ours", s)]) / statistics.median(d[(op, n, "stock", s)])
             for s in sorted({k[3] for k in d if k[:2] == (op, n)}) if lo <= s <= hi]
        cells.append(f"{min(r):.2f} - {max(r):.2f}" if r else "")
    name = "MPI_Bcast" if op == "bcast" else "MPI_Ibcast"
    ranks = "2, bound" if n == "2" else n + " on 2 cores"
    print(f"| {name} | {ranks} | " + " | ".join(cells) + " |")
