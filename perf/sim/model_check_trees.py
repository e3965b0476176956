#!/usr/bin/env python3
"""perf/sim/model_check_trees.py: the planner's prediction of knomial trees against
their simulated times, re-predicted by a given mcast-inspect (so two builds of the
planner can be compared on the same simulations).

    perf/sim/model_check_trees.py RUN_DIR [--inspect PATH]

RUN_DIR is a perf/sim/run.sh output (its <platform>.raw.csv and platforms/) whose
contenders include ours-knomial:k=K (forced radix, the planner's segment) and, for
Open MPI's own tree on rank order, smpi-ompi where the auto row names previous=knomial
(tuned's knomial of radix 4: SMPI's `ompi` runs the same tree, sim_bcast's
--ours knomial:k=4 without --topology takes the same time).  Each ours-knomial row
is predicted by `mcast-inspect --algorithm knomial --k K --segment-bytes S` with S the
simulated plan's segment (the message size if it was sent whole); smpi-ompi by the
same with K 4, the whole message and --ordering identity.  Prints one line per plan
and the median / 90th percentile / worst |model - simulated| / simulated, for the
plans sent whole and for the segmented ones.
"""
import argparse
import csv
import glob
import os
import re
import statistics
import subprocess
import sys


def predicted(inspect, plat, platform, k, size, segment, ordering=None):
    env = dict(l.strip().split("=", 1) for l in open(os.path.join(plat, platform + ".env"))
               if "=" in l)
    topo = env["TOPOLOGY"].strip('"')
    cmd = [inspect, "--topology", os.path.join(plat, topo),
           "--hosts", "@" + os.path.join(plat, platform + ".hosts"),
           "--machine", os.path.join(plat, platform + ".machine"),
           "--bytes", str(size), "--algorithm", "knomial", "--k", str(k),
           "--segment-bytes", str(segment)]
    if ordering:
        cmd += ["--ordering", ordering]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    m = re.search(r"^plan: .*predicted_us=([0-9.]+)", out, re.M)
    return float(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("--inspect", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "../../contrib/mcast-inspect/mcast-inspect"))
    a = ap.parse_args()
    plat = os.path.join(a.run_dir, "platforms")
    rows = []  # platform, size, contender, whole, simulated, predicted
    for f in sorted(glob.glob(os.path.join(a.run_dir, "*.raw.csv"))):
        p = os.path.basename(f)[:-len(".raw.csv")]
        data = {}
        for r in csv.reader(open(f)):
            if r and r[0].isdigit():
                data[(int(r[0]), r[1])] = r
        for (size, c), r in sorted(data.items()):
            if c.startswith("ours-knomial:k="):
                k = int(c.split("k=")[1].split(":")[0])
                seg = re.search(r"segment_bytes=(\w+)", r[6]).group(1)
                whole = seg == "whole"
                rows.append((p, size, c, whole, float(r[2]),
                             predicted(a.inspect, plat, p, k, size, size if whole else seg)))
            elif c == "smpi-ompi" and (size, "ours-auto") in data:
                prev = re.search(r"previous=(\w+)", data[(size, "ours-auto")][6])
                if prev and prev.group(1) == "knomial":
                    rows.append((p, size, "ompi-knomial4@rank", True, float(r[2]),
                                 predicted(a.inspect, plat, p, 4, size, size, "identity")))
    if not rows:
        sys.exit("no ours-knomial:k=K or smpi-ompi rows in " + a.run_dir)
    print("| platform | size | plan | whole | simulated us | predicted us | error |")
    print("|---|---|---|---|---|---|---|")
    for p, s, c, w, t, m in rows:
        e = "" if m is None else f"{(m - t) / t * 100:+.1f} %"
        print(f"| {p} | {s} | {c} | {'yes' if w else 'no'} | {t:.3f} | {m if m is not None else 'n/a'} | {e} |")
    print()
    for label, sel in (("sent whole", True), ("segmented", False)):
        errs = sorted(abs(m - t) / t * 100 for p, s, c, w, t, m in rows if w == sel and m is not None)
        if errs:
            print(f"{label}: {len(errs)} plans, |error| median {statistics.median(errs):.1f} %, "
                  f"90th percentile {errs[int(0.9 * len(errs))]:.1f} %, worst {errs[-1]:.1f} %")


if __name__ == "__main__":
    main()
