#!/usr/bin/env python3
"""perf/sim/analyze.py RESULT_DIR: per-platform CSV, PNG plots and summary.md from the raw
sim_bcast output (RESULT_DIR/<platform>.raw.csv) and the platform model
(RESULT_DIR/platforms/<platform>.env).

Lower bound (the reference of every ratio):
    LB(M) = max(alpha * ceil(log2 p), M / B)
alpha = o_send + o_recv + mean wire latency of the platform (ALPHA_US in the .env, the same
alpha the cost models get), B = link bandwidth 12.5 GB/s.  It is a bound for single-port
store-and-forward trees.  On the tori a node's limiter admits 2B (in+out), so algorithms
that receive from two neighbours at once could in principle go below M/B there.
"""
import csv
import math
import os
import sys
from collections import defaultdict

ABLATION_MARKS = ("+serial", "+nofifo")


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


def main():
    out = sys.argv[1]
    platforms = [f[:-8] for f in sorted(os.listdir(out)) if f.endswith(".raw.csv")]
    order = ["torus-8x8", "fattree-128", "flat-1024", "irregular-64", "torus-16x16"]
    platforms.sort(key=lambda p: order.index(p) if p in order else 99)
    summary = ["# SimGrid/SMPI broadcast simulation: summary", "",
               "Times are simulated microseconds (max over ranks, all ranks start together).",
               "LB = max(alpha*ceil(log2 p), M/B), B = 12.5 GB/s; ratio = time / LB.",
               "'ours' = best of our executor-faithful contenders (ablations `+serial`/`+nofifo` excluded);",
               "'peer' = best SMPI built-in algorithm; ours/peer < 1 means we win.", ""]
    headline = ["## Headline: ours vs best SMPI peer", "",
                "| platform | p | size | LB us | best ours | us | ratio LB | ours-kbinomial us | best SMPI peer | us | ratio LB | ours/peer | best ablation (us) |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    details = []
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
        bw = float(env["LINK_GBPS"]) * 1e3  # bytes per us
        rows, plans = [], {}
        for line in open(os.path.join(out, p + ".raw.csv")):
            if line.startswith("#") or line.startswith("size_bytes") or not line.strip():
                continue
            parts = line.rstrip("\n").split(",", 3)
            if len(parts) < 3:
                continue
            size, cont, t = int(parts[0]), parts[1], float(parts[2])
            plans[(size, cont)] = parts[3] if len(parts) > 3 else ""
            rows.append((size, cont, t))
        if not rows:
            continue

        def lb(m):
            return max(alpha * math.ceil(math.log2(n)), m / bw)

        with open(os.path.join(out, p + ".csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["size_bytes", "contender", "time_us", "lower_bound_us", "ratio_to_lower_bound"])
            for size, cont, t in rows:
                w.writerow([size, cont, f"{t:.3f}", f"{lb(size):.3f}", f"{t / lb(size):.3f}"])
        with open(os.path.join(out, p + ".plans.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["size_bytes", "contender", "plan"])
            for (size, cont), plan in plans.items():
                w.writerow([size, cont, plan])

        by_size = defaultdict(dict)
        for size, cont, t in rows:
            by_size[size][cont] = t
        sizes = sorted(by_size)
        conts = []
        for _, c, _ in rows:
            if c not in conts:
                conts.append(c)

        extra = "; ".join(x for x in (env.get("GEN", ""), env.get("ROUTES", "")) if x)
        details += [f"## {p} (p = {n}, alpha = {alpha} us" + (f"; {extra}" if extra else "") + ")", "",
                    "ratio to LB per contender (time us in parentheses); **bold** = best of the size", "",
                    "| contender | " + " | ".join(fmt_size(s) for s in sizes) + " |",
                    "|---|" + "---|" * len(sizes),
                    "| *LB us* | " + " | ".join(f"{lb(s):.1f}" for s in sizes) + " |"]
        best_of = {s: min(by_size[s].values()) for s in sizes}
        for c in conts:
            cells = []
            for s in sizes:
                if c in by_size[s]:
                    t = by_size[s][c]
                    cell = f"{t / lb(s):.2f} ({t:.1f})"
                    cells.append(f"**{cell}**" if t == best_of[s] else cell)
                else:
                    cells.append("–")
            details.append(f"| {c} | " + " | ".join(cells) + " |")
        details.append("")

        for s in sizes:
            d = by_size[s]
            ours = {c: t for c, t in d.items() if c.startswith("ours-") and not any(m in c for m in ABLATION_MARKS)}
            abl = {c: t for c, t in d.items() if c.startswith("ours-") and any(m in c for m in ABLATION_MARKS)}
            peers = {c: t for c, t in d.items() if c.startswith("smpi-")}
            if not ours or not peers:
                continue
            bo = min(ours, key=ours.get)
            bp = min(peers, key=peers.get)
            kb = d.get("ours-kbinomial")
            ba = min(abl, key=abl.get) if abl else None
            headline.append(
                f"| {p} | {n} | {fmt_size(s)} | {lb(s):.1f} | {bo[5:]} | {ours[bo]:.1f} | {ours[bo] / lb(s):.2f} | "
                f"{kb:.1f} | {bp[5:]} | {peers[bp]:.1f} | {peers[bp] / lb(s):.2f} | {ours[bo] / peers[bp]:.2f} | "
                + (f"{ba[5:]} ({abl[ba]:.1f})" if ba else "–") + " |")

        if plt:
            fig, ax = plt.subplots(1, 2, figsize=(13, 5.5))
            for c in conts:
                xs = [s for s in sizes if c in by_size[s]]
                ys = [by_size[s][c] for s in xs]
                rs = [by_size[s][c] / lb(s) for s in xs]
                style = "-" if c.startswith("ours-") else "--"
                if any(m in c for m in ABLATION_MARKS):
                    style = ":"
                marker = "o" if c.startswith("ours-") else "s"
                ax[0].plot(xs, ys, style, marker=marker, ms=3, label=c)
                ax[1].plot(xs, rs, style, marker=marker, ms=3, label=c)
            ax[0].plot(sizes, [lb(s) for s in sizes], "k-", lw=2, label="lower bound")
            for a in ax:
                a.set_xscale("log", base=2)
                a.set_xlabel("message size (bytes)")
                a.grid(True, which="both", alpha=0.3)
            ax[0].set_yscale("log")
            ax[0].set_ylabel("simulated time (us)")
            ax[1].set_yscale("log")
            ax[1].set_ylabel("time / lower bound")
            ax[0].set_title(f"{p}: broadcast time (p={n})")
            ax[1].set_title("ratio to max(alpha*ceil(log2 p), M/B)")
            ax[1].legend(fontsize=6, ncol=2, loc="upper left", bbox_to_anchor=(1.01, 1.0))
            fig.tight_layout()
            fig.savefig(os.path.join(out, p + ".png"), dpi=110)
            plt.close(fig)

    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(summary + headline + [""] + details) + "\n")
    print("\n".join(headline))


if __name__ == "__main__":
    main()
