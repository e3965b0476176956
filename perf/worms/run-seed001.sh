#!/bin/sh
# Seed 001 sec. 6.4-6.5 on the flit-level simulator: every experiment of the
# seed, CSV per experiment into OUTDIR, then the plots (plot.py).
#
#   perf/worms/run-seed001.sh OUTDIR [quick]
#
# quick: 2 topologies, 2 samples, short load windows (a smoke run, ~1 min).
# The full run uses 10 topologies (generator seeds 1-10) x 4 sources and
# destination sets per point for single multicasts and 3 topologies for the
# load sweeps (~15 min on one core).  SIM overrides the binary (default:
# perf/worms-sim of this build tree), PYTHON the interpreter with matplotlib.
set -eu
out=${1:?usage: run-seed001.sh OUTDIR [quick]}
mode=${2:-full}
here=$(cd "$(dirname "$0")" && pwd)
SIM=${SIM:-$here/../worms-sim}
PYTHON=${PYTHON:-python3}
mkdir -p "$out"

if [ "$mode" = quick ]; then
    single="--topos 2 --samples 2"
    topos=1 warmup=20000 measure=60000
else
    single="--topos 10 --samples 4"
    topos=3 warmup=50000 measure=300000
fi
# load windows grow with the message length (as many multicasts per point), at most 4x
window() {
    f=$(( $1 / 128 )); [ $f -gt 4 ] && f=4; [ $f -lt 1 ] && f=1
    echo "--topos $topos --warmup $(( warmup * f )) --measure $(( measure * f )) --drain $(( 2 * measure * f ))"
}
dests="--dests 2,4,8,12,16,20,24,28,31"

# run LABEL CSV ARGS...: append one run to CSV, header once
run() {
    csv=$out/$1.csv
    shift
    if [ -s "$csv" ]; then "$SIM" "$@" | tail -n +2 >>"$csv"; else "$SIM" "$@" >"$csv"; fi
}
rm -f "$out"/*.csv

# 6.4.1 R = t_hs / t_ns (t_ns = 2000, 1000, 500, 200), and a fine scan for the crossover
for R in 0.5 1 2 5; do run single_R single $single $dests --R $R --label R --value $R; done
# sec. 5.2.6: Greedy vs LG, SSR vs path-based worms, at the defaults
run single_variants single $single $dests --schemes ni-kbinomial,path-lg,path-greedy,ssr-lg,tree --label R --value 1
for R in 0.5 0.75 1 1.25 1.5 1.75 2 2.5 3 3.5 4 5 6; do
    run crossover_R single $single --dests 8,16,31 --R $R --label R --value $R
    run crossover_R_step single $single --dests 8,16,31 --R $R --ni-step 1 --label R --value $R
done
# 6.4.2 host software overhead at R = 1
for ths in 250 500 1000 2000 4000; do run single_ths single $single $dests --ths $ths --label t_hs --value $ths; done
# 6.4.3 system size (80% connectivity, 8-port switches, half the ports to hosts)
for sz in 32:8 64:16 128:32 256:64; do
    run single_size single $single $dests --hosts "${sz%%:*}" --switches "${sz##*:}" --label hosts --value "${sz%%:*}"
done
# 6.4.4 switch size at 32 hosts and a constant port count (8x8, 4x16, 2x32)
for sw in 8:8 16:4 32:2; do
    run single_ports single $single $dests --ports "${sw%%:*}" --switches "${sw##*:}" --label ports --value "${sw%%:*}"
done
# 6.4.5 number of 8-port switches at 32 hosts
for s in 8 12 16 24; do run single_switches single $single $dests --switches $s --label switches --value $s; done
# 6.4.6 message length (128-flit packets) and 6.4.7 packet size (128-flit message), both NI models
for step in 0 1; do
    for m in 128 256 512 1024; do
        run single_msg_step$step single $single $dests --msg $m --ni-step $step --label message_flits --value $m
    done
    for p in 32 64 128; do
        run single_pkt_step$step single $single $dests --pkt $p --ni-step $step --label packet_flits --value $p
    done
done

# 6.5 latency versus effective applied load, 3-way and 15-way multicasts
loads="--loads 0.005,0.01,0.02,0.03,0.04,0.05,0.06,0.07,0.08,0.09,0.10,0.11,0.12,0.13,0.14,0.16,0.18,0.20"
for deg in 3 15; do
    for R in 0.5 1 2; do run load_R load $(window 128) $loads --degree $deg --R $R --label R --value $R; done
    for s in 8 12 16; do
        run load_switches load $(window 128) $loads --degree $deg --switches $s --label switches --value $s
    done
    for m in 128 512 1024; do
        run load_msg load $(window $m) $loads --degree $deg --msg $m --label message_flits --value $m
    done
done

"$PYTHON" "$here/plot.py" "$out"
