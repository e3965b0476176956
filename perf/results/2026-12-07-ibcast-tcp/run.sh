#!/bin/bash
# MPI_Ibcast across emulated TCP hosts without a machine file: stock (libnbc) against two
# builds of ours, interleaved rounds (E-TCP-6).  Needs root (contrib/cluster).
#   run.sh BEFORE AFTER [ROUNDS] [SETTINGS] > raw.txt
#   BEFORE, AFTER: configured trees (ompi/.libs); the benchmark is AFTER's perf/osu_style_ibcast
#   SETTINGS: "HOSTSxRANKS ..." (default "4x1 8x1"), unshaped links; $SIZES: -m (1:1048576)
# raw.txt: setting round contender size pure_us (osu_style_ibcast's Pure column: MPI_Ibcast +
# MPI_Wait, the slowest rank's average)
set -u
BEFORE=$1 AFTER=$2 ROUNDS=${3:-5} SETTINGS=${4:-"4x1 8x1"}
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CLUSTER=$TOP/contrib/cluster/cluster
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
export MCQ_PREFIX=${MCQ_PREFIX:-ibq}
trap '"$CLUSTER" down >/dev/null 2>&1' EXIT
for setting in $SETTINGS; do
    hosts=${setting%x*} ppn=${setting#*x}
    "$CLUSTER" up "$hosts" --no-shape >/dev/null || exit 1
    for round in $(seq "$ROUNDS"); do
        for who in stock before after; do
            case $who in
                stock) a=(--mca coll ^kbinomial,pathmc) ;;
                before) a=(--mca mca_base_component_path "$BEFORE/ompi/.libs:$P") ;;
                after) a=(--mca mca_base_component_path "$AFTER/ompi/.libs:$P") ;;
            esac
            "$CLUSTER" run --timeout 600 -- -np $((hosts * ppn)) --map-by ppr:"$ppn":node \
                "${a[@]}" "$AFTER/perf/osu_style_ibcast" -m "${SIZES:-1:1048576}" 2>/dev/null |
                grep -v '^#' | awk -v s="$setting" -v r="$round" -v w="$who" 'NF >= 2 {print s, r, w, $1, $2}'
        done
    done
    "$CLUSTER" down >/dev/null
done
