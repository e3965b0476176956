#!/usr/bin/env python3
"""perf/sim/check_bound.py ENV_DIR RESULT_DIR...: checks simulated times against the lower
bound of make_platforms.py (analyze.py's lower_bound) and prints, per platform, the smallest
time / LB ratio and every plan that beats the bound.  ENV_DIR holds the platforms' .env files
(make_platforms.py --out ENV_DIR); each RESULT_DIR/<platform>.csv (size_bytes, contender,
time_us, ...) whose platform has an .env there is read, in any subdirectory too.
Exits 1 when a plan beats the bound, 2 when nothing was checked.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze import lower_bound, read_env  # noqa: E402


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    envs = {f[:-4]: read_env(os.path.join(sys.argv[1], f))
            for f in os.listdir(sys.argv[1]) if f.endswith(".env")}
    checked = beaten = 0
    for top in sys.argv[2:]:
        for d, _, files in sorted(os.walk(top)):
            for f in sorted(files):
                p = f[:-4]
                if not f.endswith(".csv") or p not in envs or "LB_FAR_US" not in envs[p]:
                    continue
                lb, _ = lower_bound(envs[p])
                worst = None
                for r in csv.DictReader(open(os.path.join(d, f))):
                    try:
                        m, t = int(r["size_bytes"]), float(r["time_us"])
                    except (KeyError, ValueError, TypeError):
                        continue
                    checked += 1
                    ratio = t / lb(m)
                    if worst is None or ratio < worst[0]:
                        worst = (ratio, r["contender"], m, t)
                    if ratio < 1 - 1e-6:
                        beaten += 1
                        print(f"BEATEN {os.path.join(d, f)}: {r['contender']} {m} B {t:.3f} us < "
                              f"LB {lb(m):.3f} us")
                if worst:
                    print(f"{os.path.join(d, f)}: smallest time / LB {worst[0]:.3f} "
                          f"({worst[1]}, {worst[2]} B, {worst[3]:.1f} us)")
    print(f"{checked} simulated times checked, {beaten} beat the lower bound")
    return 1 if beaten else (0 if checked else 2)


if __name__ == "__main__":
    sys.exit(main())
