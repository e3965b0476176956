#!/usr/bin/env python3
# Median |model - simulated| / simulated over the ours-* rows of a model check's CSVs,
# all plans and per algorithm.  python3 medians.py DIR
import collections, csv, statistics, sys
d = sys.argv[1] if len(sys.argv) > 1 else "."
per, every = collections.defaultdict(list), []
for p in ["torus-8x8", "fattree-128", "irregular-64"]:
    for r in csv.DictReader(open(f"{d}/{p}.csv")):
        if r["contender"].startswith("ours-") and r["model_us"]:
            e = abs(float(r["model_us"]) - float(r["time_us"])) / float(r["time_us"])
            per[r["contender"]].append(e)
            every.append(e)
print(f"{len(every)} plans, median {100 * statistics.median(every):.2f} %")
for k, v in sorted(per.items(), key=lambda x: -statistics.median(x[1])):
    print(f"{k} {len(v)} {100 * statistics.median(v):.2f} %")
