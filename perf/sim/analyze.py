#!/usr/bin/env python3
"""perf/sim/analyze.py RESULT_DIR [--peers-from DIR]: per-platform CSV, PNG plots and summary.md from the raw
sim_bcast output (RESULT_DIR/<platform>.raw.csv) and the platform facts
(RESULT_DIR/platforms/<platform>.env).

Per platform, RESULT_DIR/<platform>.csv:
    size_bytes,contender,time_us,model_us,predicted_us,check,lower_bound_us,ratio_to_lower_bound
and <platform>.plans.csv (the plan each of our contenders ran).

summary.md:
  - auto vs the best SMPI algorithm and vs the best of our forced plans, per size;
  - the model check: |model_us - time_us| / time_us of every plan of ours (model_us is the
    planner's prediction at the exact size), median per platform and overall;
  - every contender's time / lower bound.
Lower bound (make_platforms.py states and derives it): LB(M) = max(FAR, NEAR + M / B_root,
M / B_agg) from the platform's LB_FAR_US, LB_NEAR_US, LB_ROOT_GBPS, LB_AGG_GBPS.  No
simulated plan may beat it: exits 1 when one does, or when a data check failed.  Result
directories older than the bound (their .env without LB_*) are analysed with the old
single-port reference max(alpha * ceil(log2 p), M / B) and say so; it is not a bound.
--peers-from DIR: SMPI's rows (smpi-*) of the sizes RESULT_DIR ran, taken from DIR/<platform>.csv
(an earlier run's analysis of the same platforms: SMPI's algorithms do not depend on our
model, and the simulation is deterministic), for a run of ours alone (run.sh --peers none);
summary.md names DIR.
"""
import csv
import math
import os
import statistics
import sys
from collections import defaultdict


def read_env(path):
    env = {}
    for line in open(path):
        line = line.strip()
        if "=" in line:
            k, v = line.split("=", 1)
            env[k] = v.strip('"')
    return env


def fmt_size(b):
    if b >= 1 << 20 and b % (1 << 20) == 0:
        return f"{b >> 20} MiB"
    if b >= 1024 and b % 1024 == 0:
        return f"{b >> 10} KiB"
    return f"{b} B"


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def read_raw(path):
    rows = []
    for line in open(path):
        if line.startswith("#") or line.startswith("size_bytes") or not line.strip():
            continue
        parts = line.rstrip("\n").split(",", 6)
        if len(parts) < 7:
            continue
        rows.append({"size": int(parts[0]), "cont": parts[1], "t": float(parts[2]),
                     "model": num(parts[3]), "pred": num(parts[4]), "check": parts[5],
                     "plan": parts[6]})
    return rows


def plan_alg(plan):
    for tok in plan.split():
        if tok.startswith("algorithm="):
            return tok[len("algorithm="):]
    return "?"


def lower_bound(env):
    """(LB(M) in us, its formula): make_platforms.py's bound, or for an old .env without it
    the single-port reference max(alpha * ceil(log2 p), M / B) (not a bound)."""
    if "LB_FAR_US" in env:
        far, near = float(env["LB_FAR_US"]), float(env["LB_NEAR_US"])
        b_root = float(env["LB_ROOT_GBPS"]) * 1e3  # bytes per us
        b_agg = float(env["LB_AGG_GBPS"]) * 1e3
        return (lambda m: max(far, near + m / b_root, m / b_agg),
                "LB = max(FAR, NEAR + M/B_root, M/B_agg)")
    n, alpha, bw = int(env["NP"]), float(env["ALPHA_US"]), float(env["LINK_GBPS"]) * 1e3
    return (lambda m: max(alpha * math.ceil(math.log2(n)), m / bw),
            "reference max(alpha*ceil(log2 p), M/B)")


def peers_from(path, sizes):
    """SMPI's rows of `sizes` from an analysed <platform>.csv (no plan column there)."""
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["contender"].startswith("smpi-") and int(r["size_bytes"]) in sizes:
                rows.append({"size": int(r["size_bytes"]), "cont": r["contender"],
                             "t": float(r["time_us"]), "model": None, "pred": None,
                             "check": r["check"], "plan": ""})
    return rows


def main():
    args = sys.argv[1:]
    peers_dir = None
    if "--peers-from" in args:
        i = args.index("--peers-from")
        peers_dir = args[i + 1]
        del args[i:i + 2]
    out = args[0]
    platforms = [f[:-8] for f in sorted(os.listdir(out)) if f.endswith(".raw.csv")]
    order = ["torus-8x8", "fattree-128", "flat-1024", "irregular-64", "torus-16x16"]
    platforms.sort(key=lambda p: order.index(p) if p in order else 99)
    summary = ["# SimGrid/SMPI broadcast simulation: summary", "",
               "Simulated microseconds (max over ranks, all ranks start together).  Ours run the",
               "core's planner and engine as the components do (sim_bcast.cpp); `ours-auto` is",
               "what users get, `ours-<name>` a registry algorithm forced (the model's k and",
               "segment).  LB = max(FAR, NEAR + M/B_root, M/B_agg) (make_platforms.py).", ""]
    if peers_dir is not None:
        summary += [f"SMPI's rows from {peers_dir} (analyze.py --peers-from).", ""]
    headline = ["## auto vs the best SMPI algorithm and vs our best forced plan", "",
                "| platform | p | size | auto runs | auto us | best forced ours | us | best SMPI | us | "
                "auto / SMPI | auto / forced |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
    model_lines = ["## Model check: |model - simulated| / simulated, plans of ours", "",
                   "| platform | plans | median | 90th pct | worst (contender, size, model, sim) |",
                   "|---|---|---|---|---|"]
    details = []
    all_err = []
    failures = 0
    bound_failures = 0
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa
        plt = None
        print("matplotlib missing, no plots:", e, file=sys.stderr)

    for p in platforms:
        env = read_env(os.path.join(out, "platforms", p + ".env"))
        n = int(env["NP"])
        alpha = float(env["ALPHA_US"])
        rows = read_raw(os.path.join(out, p + ".raw.csv"))
        if not rows:
            continue
        if peers_dir is not None:
            rows += peers_from(os.path.join(peers_dir, p + ".csv"), {r["size"] for r in rows})
        lb, lb_text = lower_bound(env)
        if "LB_FAR_US" not in env:
            summary.append(f"{p}: no LB_* facts in its .env: ratios are to the old single-port "
                           f"reference {lb_text}, which is not a lower bound.")
        beaten = [r for r in rows if r["t"] < lb(r["size"]) * (1 - 1e-6)]
        for r in beaten:
            print(f"{p}: {r['cont']} at {r['size']} B: {r['t']:.3f} us beats the lower bound "
                  f"{lb(r['size']):.3f} us", file=sys.stderr)
        bound_failures += len(beaten) if "LB_FAR_US" in env else 0

        with open(os.path.join(out, p + ".csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["size_bytes", "contender", "time_us", "model_us", "predicted_us", "check",
                        "lower_bound_us", "ratio_to_lower_bound"])
            for r in rows:
                w.writerow([r["size"], r["cont"], f"{r['t']:.3f}",
                            "" if r["model"] is None else f"{r['model']:.3f}",
                            "" if r["pred"] is None else f"{r['pred']:.3f}", r["check"],
                            f"{lb(r['size']):.3f}", f"{r['t'] / lb(r['size']):.3f}"])
        with open(os.path.join(out, p + ".plans.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["size_bytes", "contender", "plan"])
            for r in rows:
                if r["cont"].startswith("ours-"):
                    w.writerow([r["size"], r["cont"], r["plan"]])
        failures += sum(1 for r in rows if r["check"].startswith("FAIL"))

        by_size = defaultdict(dict)
        plan_of = {}
        for r in rows:
            by_size[r["size"]][r["cont"]] = r["t"]
            plan_of[(r["size"], r["cont"])] = r["plan"]
        sizes = sorted(by_size)
        conts = []
        for r in rows:
            if r["cont"] not in conts:
                conts.append(r["cont"])

        for s in sizes:
            d = by_size[s]
            auto = d.get("ours-auto")
            forced = {c: t for c, t in d.items() if c.startswith("ours-") and c != "ours-auto"}
            peers = {c: t for c, t in d.items() if c.startswith("smpi-")}
            if auto is None:
                continue
            bf = min(forced, key=forced.get) if forced else None
            bp = min(peers, key=peers.get) if peers else None
            headline.append(
                f"| {p} | {n} | {fmt_size(s)} | {plan_alg(plan_of[(s, 'ours-auto')])} | {auto:.1f} | "
                + (f"{bf[5:]} | {forced[bf]:.1f} | " if bf else "– | – | ")
                + (f"{bp[5:]} | {peers[bp]:.1f} | {auto / peers[bp]:.2f} | " if bp else "– | – | – | ")
                + (f"{auto / forced[bf]:.2f} |" if bf else "– |"))

        errs = []
        for r in rows:
            if r["cont"].startswith("ours-") and r["model"] is not None and r["t"] > 0:
                errs.append((abs(r["model"] - r["t"]) / r["t"], r))
        if errs:
            es = sorted(e for e, _ in errs)
            worst = max(errs, key=lambda x: x[0])
            wr = worst[1]
            model_lines.append(
                f"| {p} | {len(es)} | {100 * statistics.median(es):.1f} % | "
                f"{100 * es[min(len(es) - 1, int(0.9 * len(es)))]:.1f} % | "
                f"{wr['cont']} {fmt_size(wr['size'])}: {wr['model']:.1f} vs {wr['t']:.1f} |")
            all_err += es

        details += [f"## {p} (p = {n}, alpha = {alpha} us)", "",
                    "time us (ratio to LB); **bold** = best of the size", "",
                    "| contender | " + " | ".join(fmt_size(s) for s in sizes) + " |",
                    "|---|" + "---|" * len(sizes),
                    "| *LB us* | " + " | ".join(f"{lb(s):.1f}" for s in sizes) + " |"]
        best_of = {s: min(by_size[s].values()) for s in sizes}
        for c in conts:
            cells = []
            for s in sizes:
                if c in by_size[s]:
                    t = by_size[s][c]
                    cell = f"{t:.1f} ({t / lb(s):.2f})"
                    cells.append(f"**{cell}**" if t == best_of[s] else cell)
                else:
                    cells.append("–")
            details.append(f"| {c} | " + " | ".join(cells) + " |")
        details.append("")

        if plt:
            fig, ax = plt.subplots(1, 1, figsize=(10, 5.5))
            for c in conts:
                xs = [s for s in sizes if c in by_size[s]]
                rs = [by_size[s][c] / lb(s) for s in xs]
                style = "-" if c.startswith("ours-") else "--"
                lw = 2.5 if c == "ours-auto" else 1
                ax.plot(xs, rs, style, marker="o" if c.startswith("ours-") else "s", ms=3, lw=lw, label=c)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("message size (bytes)")
            ax.set_ylabel("simulated time / lower bound")
            ax.set_title(f"{p}: broadcast (p={n}); {lb_text}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=6, ncol=2, loc="upper left", bbox_to_anchor=(1.01, 1.0))
            fig.tight_layout()
            fig.savefig(os.path.join(out, p + ".png"), dpi=110)
            plt.close(fig)

    if all_err:
        model_lines.append(f"| all | {len(all_err)} | {100 * statistics.median(all_err):.1f} % | "
                           f"{100 * sorted(all_err)[int(0.9 * (len(all_err) - 1))]:.1f} % | |")
    checks = [f"Data checks failed: {failures}", f"Plans beating the lower bound: {bound_failures}", ""]
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(summary + checks + headline + [""] + model_lines + [""] + details) + "\n")
    print("\n".join(headline + [""] + model_lines + [""] + checks))
    return 1 if failures or bound_failures else 0


if __name__ == "__main__":
    sys.exit(main())
