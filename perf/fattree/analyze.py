#!/usr/bin/env python3
"""Tables and plots of a perf/fattree/run.sh result directory.

    analyze.py RESULT_DIR

Reads RESULT_DIR/results.csv (sim_fattree rows), averages the draws and writes
summary.md (the seed's qualitative claims next to ours, with the per-link loads
that explain them) and, per fat-tree, completion-*.png (the seed's Figs. 8-16:
time against group size per case), speedup-*.png (Fig. 17: OpenSM time / cyclic
time) and loads-*.png (largest per-link load, switch-to-switch and ejection).
"""
import csv
import os
import sys
from collections import defaultdict
from statistics import mean

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SCHEMES = ["cyclic", "cyclic-group", "opensm", "unicast"]
STYLE = {"cyclic": ("#1f77b4", "o"), "cyclic-group": ("#17becf", "x"), "opensm": ("#d62728", "s"),
         "unicast": ("#7f7f7f", "^")}
CASES = ["one-to-many", "many-to-many", "all-to-many", "many-to-all"]
SEED = {
    "one-to-many": "cyclic = OpenSM (same time), both far better than unicast",
    "many-to-many": "cyclic better than OpenSM, most for small groups (10 %, 40 %); ~1 at 100 %",
    "all-to-many": "like many-to-many, longer times",
    "many-to-all": "cyclic a little better than OpenSM",
}


def load(path):
    rows = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            key = (r["fattree"], r["case"], r["groups"], int(r["sources"]), int(r["members"]), r["scheme"],
                   int(r["size_bytes"]))
            rows[key].append(r)
    agg = {}
    for key, rs in rows.items():
        agg[key] = {
            "nodes": int(rs[0]["nodes"]),
            "time": mean(float(r["completion_us"]) for r in rs),
            "core": mean(int(r["max_core_load"]) for r in rs),
            "eject": mean(int(r["max_eject_load"]) for r in rs),
            "inject": mean(int(r["max_inject_load"]) for r in rs),
            "total": mean(int(r["total_load"]) for r in rs),
            "spurious": mean(int(r["spurious"]) for r in rs),
            "draws": len(rs),
        }
    return agg


def configs(agg, ft, case, groups):
    """(sources, members) pairs of one case, sorted by the x value."""
    out = sorted({(k[3], k[4]) for k in agg if k[0] == ft and k[1] == case and k[2] == groups},
                 key=lambda sm: (sm[0], sm[1]) if case == "many-to-all" else (sm[1], sm[0]))
    return out


def xval(case, nodes, sm):
    return round(100.0 * (sm[0] if case == "many-to-all" else sm[1]) / nodes)


def tag(ft):
    return ft.replace("IBFT(", "IBFT").replace(";", "").replace(")", "")


def fmt_ratio(x):
    return f"{x:.2f}"


def plot_completion(agg, ft, sizes, outdir):
    small, large = sizes[0], sizes[-1]
    fig, axes = plt.subplots(len(CASES), 2, figsize=(10, 13), squeeze=False)
    for i, case in enumerate(CASES):
        for j, size in enumerate((small, large)):
            ax = axes[i][j]
            for groups, ls in (("per-source", "-"), ("shared", ":")):
                cf = configs(agg, ft, case, groups)
                if not cf:
                    continue
                for sc in SCHEMES:
                    if groups == "shared" and sc in ("cyclic-group", "unicast"):
                        continue
                    pts = [(xval(case, agg[(ft, case, groups, s, m, sc, size)]["nodes"], (s, m)),
                            agg[(ft, case, groups, s, m, sc, size)]["time"])
                           for s, m in cf if (ft, case, groups, s, m, sc, size) in agg]
                    if not pts:
                        continue
                    col, mk = STYLE[sc]
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], ls, color=col, marker=mk,
                            label=f"{sc}{' (shared group)' if groups == 'shared' else ''}")
            ax.set_title(f"{case}, {size} B", fontsize=10)
            ax.set_xlabel("sources (% of nodes)" if case == "many-to-all" else "group size (% of nodes)")
            ax.set_ylabel("completion (us)")
            ax.grid(alpha=0.3)
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    fig.suptitle(f"{ft.replace(';', ',')}: time until the last member has every message "
                 "(solid: a group per source; dotted: one shared group)", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, f"completion-{tag(ft)}.png"), dpi=110)
    plt.close(fig)


def plot_speedup(agg, ft, sizes, outdir):
    small, large = sizes[0], sizes[-1]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), squeeze=False)
    colors = {"one-to-many": "#2ca02c", "many-to-many": "#1f77b4", "all-to-many": "#9467bd", "many-to-all": "#ff7f0e"}
    for j, size in enumerate((small, large)):
        ax = axes[0][j]
        for case in CASES:
            for groups, ls in (("per-source", "-"), ("shared", ":")):
                pts = []
                for s, m in configs(agg, ft, case, groups):
                    c, o = (agg.get((ft, case, groups, s, m, sc, size)) for sc in ("cyclic", "opensm"))
                    if c and o:
                        pts.append((xval(case, c["nodes"], (s, m)), o["time"] / c["time"]))
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], ls, marker="o", color=colors[case],
                            label=f"{case}{' (shared)' if groups == 'shared' else ''}")
        ax.axhline(1.0, color="black", lw=0.8)
        ax.set_title(f"{size} B", fontsize=10)
        ax.set_xlabel("group size (% of nodes; many-to-all: sources %)")
        ax.set_ylabel("speedup = OpenSM time / cyclic time")
        ax.grid(alpha=0.3)
        if j == 0:
            ax.legend(fontsize=7)
    fig.suptitle(f"{ft.replace(';', ',')}: speedup of the cyclic scheme over OpenSM's tree (seed Fig. 17)", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, f"speedup-{tag(ft)}.png"), dpi=110)
    plt.close(fig)


def plot_loads(agg, ft, sizes, outdir):
    size = sizes[-1]
    labels, data = [], defaultdict(lambda: defaultdict(list))
    for case in CASES:
        for s, m in configs(agg, ft, case, "per-source"):
            k0 = (ft, case, "per-source", s, m, "cyclic", size)
            if k0 not in agg:
                continue
            labels.append(f"{case}\n{xval(case, agg[k0]['nodes'], (s, m))} %")
            for sc in ("cyclic", "opensm", "unicast"):
                a = agg.get((ft, case, "per-source", s, m, sc, size))
                for what in ("core", "eject", "inject"):
                    data[what][sc].append(a[what] if a else 0)
    if not labels:
        return
    fig, axes = plt.subplots(2, 1, figsize=(max(10, len(labels) * 0.8), 8), squeeze=False)
    width = 0.27
    for i, (what, title) in enumerate((("core", "largest switch-to-switch link load"),
                                       ("eject", "largest ejection (switch-to-node) link load"))):
        ax = axes[i][0]
        for k, sc in enumerate(("cyclic", "opensm", "unicast")):
            xs = [x + (k - 1) * width for x in range(len(labels))]
            ax.bar(xs, data[what][sc], width, color=STYLE[sc][0], label=sc)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylabel("packets per link\n(one per source)")
        ax.set_title(title, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        if i == 0:
            ax.legend(fontsize=8)
    fig.suptitle(f"{ft.replace(';', ',')}: per-link loads when every source sends one packet (a group per source)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, f"loads-{tag(ft)}.png"), dpi=110)
    plt.close(fig)


def bound(a):
    """Largest per-link load: with long messages a link that carries L packets per source round
    needs L message times, so the completion time ratio of two schemes approaches the ratio
    of their largest loads."""
    return max(a["core"], a["eject"], a["inject"])


def verdict(case, speedups, unicast_ratios):
    lo, hi = min(speedups), max(speedups)
    if case == "one-to-many":
        ours = "equal" if hi - lo < 1e-9 and abs(hi - 1) < 1e-9 else f"OpenSM/cyclic {fmt_ratio(lo)}-{fmt_ratio(hi)}"
    else:
        ours = f"OpenSM/cyclic {fmt_ratio(lo)}-{fmt_ratio(hi)}"
    uni = f"unicast/cyclic {fmt_ratio(min(unicast_ratios))}-{fmt_ratio(max(unicast_ratios))}"
    return ours, uni


def summary(agg, outdir):
    fts = sorted({k[0] for k in agg}, key=lambda f: (len(f), f))
    lines = ["# Seed 004 reproduction: cyclic multicast vs OpenSM's tree vs unicast", ""]
    lines += ["Completion = simulated time until the last member holds every message (us, mean over the draws).",
              "Loads = packets on the busiest directed link when every source sends one packet: `core` switch-to-",
              "switch, `eject` switch-to-node, `inject` node-to-switch.  `per-source`: every source has its own",
              "random group (the seed's many one-to-many multicasts, one MLID each); `shared`: one group for all.",
              "`cyclic-group` is what the OpenSM plugin installs (one MLID per group); with a group per source",
              "it is the source's cyclic tree, with one shared group of many sources usually one tree.",
              "`max-load OpenSM/cyclic` = ratio of the largest per-link loads (any link): the bound that long",
              "messages approach; compare it with `OpenSM/cyclic`, the ratio of the simulated times.", ""]
    for ft in fts:
        sizes = sorted({k[6] for k in agg if k[0] == ft})
        small, large = sizes[0], sizes[-1]
        lines += [f"## {ft.replace(';', ',')}", ""]
        lines += ["### The seed's claims next to ours (a group per source)", "",
                  "| case | seed (sec 4) | ours, " + f"{small} B | ours, {large} B | largest loads at {large} B "
                  "(core cyclic / OpenSM / unicast; eject) |", "|---|---|---|---|---|"]
        for case in CASES:
            cells = []
            for size in (small, large):
                sp, ur = [], []
                for s, m in configs(agg, ft, case, "per-source"):
                    c, o, u = (agg.get((ft, case, "per-source", s, m, sc, size)) for sc in ("cyclic", "opensm", "unicast"))
                    if c and o:
                        sp.append(o["time"] / c["time"])
                    if c and u:
                        ur.append(u["time"] / c["time"])
                cells.append("; ".join(verdict(case, sp, ur)) if sp and ur else "-")
            ld = []
            for s, m in configs(agg, ft, case, "per-source"):
                c, o, u = (agg.get((ft, case, "per-source", s, m, sc, large)) for sc in ("cyclic", "opensm", "unicast"))
                if c and o and u:
                    ld.append(f"{xval(case, c['nodes'], (s, m))}%: {c['core']:.0f}/{o['core']:.0f}/{u['core']:.0f}; "
                              f"{c['eject']:.0f}")
            lines.append(f"| {case} | {SEED[case]} | {cells[0]} | {cells[1]} | {'<br>'.join(ld)} |")
        lines += ["", f"### Every configuration ({small} B and {large} B)", "",
                  "| case | groups | sources | members | size | cyclic | cyclic-group | opensm | unicast | "
                  "OpenSM/cyclic | max-load OpenSM/cyclic | unicast/cyclic | core c/o/u | eject c/o/u | spurious o |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for case in CASES:
            for groups in ("per-source", "shared"):
                for s, m in configs(agg, ft, case, groups):
                    for size in (small, large):
                        a = {sc: agg.get((ft, case, groups, s, m, sc, size)) for sc in SCHEMES}
                        if not a["cyclic"] or not a["opensm"]:
                            continue
                        t = {sc: (f"{a[sc]['time']:.1f}" if a[sc] else "-") for sc in SCHEMES}
                        uc = f"{a['unicast']['time'] / a['cyclic']['time']:.2f}" if a["unicast"] else "-"
                        core = "/".join(f"{a[sc]['core']:.0f}" if a[sc] else "-" for sc in ("cyclic", "opensm", "unicast"))
                        ej = "/".join(f"{a[sc]['eject']:.0f}" if a[sc] else "-" for sc in ("cyclic", "opensm", "unicast"))
                        lines.append(f"| {case} | {groups} | {s} | {m} | {size} | {t['cyclic']} | {t['cyclic-group']} | "
                                     f"{t['opensm']} | {t['unicast']} | {a['opensm']['time'] / a['cyclic']['time']:.2f} | "
                                     f"{bound(a['opensm']) / bound(a['cyclic']):.2f} | "
                                     f"{uc} | {core} | {ej} | {a['opensm']['spurious']:.0f} |")
        lines += ["", f"![completion]({'completion-' + tag(ft)}.png)", f"![speedup]({'speedup-' + tag(ft)}.png)",
                  f"![loads]({'loads-' + tag(ft)}.png)", ""]
        plot_completion(agg, ft, sizes, outdir)
        plot_speedup(agg, ft, sizes, outdir)
        plot_loads(agg, ft, sizes, outdir)
    with open(os.path.join(outdir, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    summary(load(os.path.join(argv[1], "results.csv")), argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
