#!/usr/bin/env python3
"""Plots and a summary of the seed 001 sec. 6.4-6.5 reproduction.

    plot.py OUTDIR

Reads the CSV files run-seed001.sh wrote into OUTDIR, writes one PNG per
experiment and summary.md (the numbers the README quotes, computed here).
"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"ni-kbinomial": "tab:blue", "path-lg": "tab:orange", "tree": "tab:green",
          "path-greedy": "tab:red", "ssr-lg": "tab:purple"}
TITLES = {
    "single_R": "6.4.1 effect of R = t_hs / t_ns (Fig. 19)",
    "single_variants": "5.2.6 LG vs Greedy, path-based vs SSR worms, defaults",
    "single_ths": "6.4.2 host software overhead t_hs, R = 1 (Fig. 20)",
    "single_size": "6.4.3 system size (8-port switches, Fig. 21)",
    "single_ports": "6.4.4 switch size, 32 hosts (Fig. 22)",
    "single_switches": "6.4.5 number of 8-port switches, 32 hosts (Fig. 23)",
    "single_msg_step0": "6.4.6 message length, 128-flit packets, pipelined NI (Fig. 24)",
    "single_msg_step1": "6.4.6 message length, 128-flit packets, step NI model (Fig. 24)",
    "single_pkt_step0": "6.4.7 packet size, 128-flit message, pipelined NI (Fig. 25)",
    "single_pkt_step1": "6.4.7 packet size, 128-flit message, step NI model (Fig. 25)",
    "load_R": "6.5.1 load, effect of R (Fig. 26)",
    "load_switches": "6.5.2 load, number of switches (Fig. 27)",
    "load_msg": "6.5.3 load, message length (Fig. 28)",
}


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def num(v):
    return float(v)


def order(values):
    return sorted(set(values), key=num)


def single_plot(out, name, rows, lines):
    values = order(r["value"] for r in rows)
    schemes = list(dict.fromkeys(r["scheme"] for r in rows))
    label = rows[0]["label"]
    n = len(values) + 1
    fig, axes = plt.subplots(1, n, figsize=(3.2 * n, 3.3), sharey=False)
    for ax, v in zip(axes, values):
        for s in schemes:
            pts = sorted((int(r["dests"]), num(r["latency_us"])) for r in rows if r["value"] == v and r["scheme"] == s)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", ms=3, color=COLORS.get(s), label=s)
        ax.set_title(f"{label} = {v}", fontsize=9)
        ax.set_xlabel("destinations")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("latency (us)")
    axes[0].legend(fontsize=7)
    ax = axes[-1]
    for s in schemes:
        pts = [(num(v), num(r["latency_us"])) for v in values for r in rows
               if r["value"] == v and r["scheme"] == s and r["dests"] == "31"]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "s-", ms=4, color=COLORS.get(s), label=s)
    ax.set_title("31 destinations", fontsize=9)
    ax.set_xlabel(label)
    if label in ("t_hs", "message_flits", "hosts"):
        ax.set_xscale("log", base=2)
    ax.grid(alpha=0.3)
    fig.suptitle(TITLES.get(name, name), fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, name + ".png"), dpi=110)
    plt.close(fig)
    lines.append(f"\n## {TITLES.get(name, name)}\n")
    lines.append(f"mean latency (us) at 31 / 8 destinations, mean phases at 31 ({name}.csv)\n")
    lines.append("| " + label + " | " + " | ".join(schemes) + " | NI / path-lg at 31 |")
    lines.append("|---" * (len(schemes) + 2) + "|")
    for v in values:
        cells = []
        at31 = {}
        for s in schemes:
            r31 = [r for r in rows if r["value"] == v and r["scheme"] == s and r["dests"] == "31"]
            r8 = [r for r in rows if r["value"] == v and r["scheme"] == s and r["dests"] == "8"]
            if r31 and r8:
                at31[s] = num(r31[0]["latency_us"])
                cells.append(f"{num(r31[0]['latency_us']):.1f} / {num(r8[0]['latency_us']):.1f} "
                             f"({num(r31[0]['phases']):.2f} ph)")
            else:
                cells.append("-")
        ratio = at31["ni-kbinomial"] / at31["path-lg"] if "ni-kbinomial" in at31 and "path-lg" in at31 else float("nan")
        lines.append(f"| {v} | " + " | ".join(cells) + f" | {ratio:.2f} |")
    lines.append("\ndestination counts where NI-based is faster than path-based LG (NI us / path us):\n")
    for v in values:
        lat = {(r["dests"], r["scheme"]): num(r["latency_us"]) for r in rows if r["value"] == v}
        ds = sorted({int(r["dests"]) for r in rows if r["value"] == v})
        wins = [f"{d} ({lat[(str(d), 'ni-kbinomial')]:.1f} / {lat[(str(d), 'path-lg')]:.1f})" for d in ds
                if (str(d), "ni-kbinomial") in lat and (str(d), "path-lg") in lat
                and lat[(str(d), "ni-kbinomial")] < lat[(str(d), "path-lg")]]
        lines.append(f"- {label} = {v}: " + (", ".join(wins) if wins else "none"))


def crossover(out, lines):
    fig, ax = plt.subplots(figsize=(6, 4))
    lines.append("\n## R at which the path-based LG scheme stops beating the NI-based scheme\n")
    lines.append("ratio = NI-based / path-based LG latency; crossover = R where the ratio falls through 1 "
                 "(linear interpolation; crossover_R*.csv)\n")
    lines.append("| NI model | destinations | ratio at R = 0.5 / 1 / 2 / 5 | crossover R |")
    lines.append("|---|---|---|---|")
    for fname, model, style in (("crossover_R", "pipelined", "-"), ("crossover_R_step", "step", "--")):
        path = os.path.join(out, fname + ".csv")
        if not os.path.exists(path):
            continue
        rows = read(path)
        for d in ("8", "16", "31"):
            lat = defaultdict(dict)
            for r in rows:
                if r["dests"] == d:
                    lat[num(r["value"])][r["scheme"]] = num(r["latency_cycles"])
            Rs = sorted(lat)
            ratio = [lat[R]["ni-kbinomial"] / lat[R]["path-lg"] for R in Rs]
            ax.plot(Rs, ratio, "o" + style, ms=3, label=f"{d} dests, {model} NI")
            cross = "none in range"
            for i in range(1, len(Rs)):
                if ratio[i - 1] >= 1.0 > ratio[i]:
                    r0, r1 = Rs[i - 1], Rs[i]
                    cross = f"{r0 + (ratio[i - 1] - 1.0) * (r1 - r0) / (ratio[i - 1] - ratio[i]):.2f}"
                    break
            pick = " / ".join(f"{ratio[Rs.index(R)]:.2f}" if R in Rs else "-" for R in (0.5, 1.0, 2.0, 5.0))
            lines.append(f"| {model} | {d} | {pick} | {cross} |")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xlabel("R = t_hs / t_ns")
    ax.set_ylabel("NI-based / path-based LG latency")
    ax.set_title("crossover: above 1 path-based wins", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "crossover_R.png"), dpi=110)
    plt.close(fig)


def load_plot(out, name, rows, lines):
    degrees = order(r["degree"] for r in rows)
    values = order(r["value"] for r in rows)
    schemes = list(dict.fromkeys(r["scheme"] for r in rows))
    label = rows[0]["label"]
    styles = ["-", "--", ":", "-."]
    fig, axes = plt.subplots(1, len(degrees), figsize=(5.5 * len(degrees), 4))
    if len(degrees) == 1:
        axes = [axes]
    lines.append(f"\n## {TITLES.get(name, name)}\n")
    lines.append(f"highest effective applied load whose mean latency stays below 3x the scheme's latency at the "
                 f"lowest load ({name}.csv)\n")
    lines.append("| degree | " + label + " | " + " | ".join(schemes) + " |")
    lines.append("|---" * (len(schemes) + 2) + "|")
    for ax, deg in zip(axes, degrees):
        for vi, v in enumerate(values):
            cells = []
            for s in schemes:
                pts = sorted((num(r["load"]), num(r["latency_us"]), int(r["saturated"])) for r in rows
                             if r["degree"] == deg and r["value"] == v and r["scheme"] == s)
                if not pts:
                    cells.append("-")
                    continue
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o" + styles[vi % 4], ms=3, color=COLORS.get(s),
                        label=f"{s}, {label}={v}")
                base = pts[0][1]
                ok = [p[0] for p in pts if p[1] <= 3 * base and not p[2]]
                cells.append(f"{max(ok):.3f}" if ok else "-")
            lines.append(f"| {deg} | {v} | " + " | ".join(cells) + " |")
        ax.set_title(f"{deg}-way multicasts", fontsize=9)
        ax.set_xlabel("effective applied load (flits/cycle/host x degree)")
        ax.set_ylabel("mean latency (us)")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    fig.suptitle(TITLES.get(name, name), fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, name + ".png"), dpi=110)
    plt.close(fig)


def main():
    out = sys.argv[1]
    lines = ["# Summary (generated by perf/worms/plot.py from the CSV files here)"]
    for name in TITLES:
        path = os.path.join(out, name + ".csv")
        if not os.path.exists(path):
            continue
        rows = read(path)
        if name.startswith("single"):
            single_plot(out, name, rows, lines)
        else:
            load_plot(out, name, rows, lines)
    crossover(out, lines)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
