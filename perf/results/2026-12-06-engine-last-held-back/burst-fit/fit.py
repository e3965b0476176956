#!/usr/bin/env python3
"""The two-tree's burst term scaled by f: model = no_burst + f (burst - no_burst) against
the simulated time, per f (twotree.csv: perf/sim runs of the forced two-tree, the term as
before and set to 0; the engine of E-LAST-1)."""
import csv
import os
import statistics as st

rows = list(csv.DictReader(open(os.path.join(os.path.dirname(__file__), "twotree.csv"))))
for f in (0.0, 0.25, 0.33, 0.4, 0.5, 0.6, 0.75, 1.0):
    errs = []
    for r in rows:
        sim, b, n = float(r["sim_us"]), float(r["model_burst_us"]), float(r["model_no_burst_us"])
        errs.append((int(r["size_bytes"]), (n + f * (b - n) - sim) / sim))
    mid = [e for s, e in errs if s in (32768, 65536)]
    print(f"f={f:4}: |err| median all {100 * st.median(abs(e) for _, e in errs):5.1f} %, "
          f"32-64 KiB median {100 * st.median(map(abs, mid)):5.1f} %, worst {100 * max(map(abs, mid)):5.1f} %, "
          f"mean {100 * st.mean(mid):+5.1f} %")
