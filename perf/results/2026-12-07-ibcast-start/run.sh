#!/bin/bash
# The start of a nonblocking call over the PML, 2 ranks bound, our plan forced to
# `linear` (one message: what the verification's other candidate is with 2 ranks):
#  1. instructions per MPI_Ibcast and per MPI_Wait of each rank (callgrind, perf/call_cost.c:
#     1000 untimed calls, then CALLS counted, a barrier after each), stock / BEFORE / AFTER;
#  2. ../2026-12-05-ibcast-verified/ibs.c (the call alone and call + wait), 3 alternating rounds, under chrt -r 10.
# usage: run.sh BEFORE_BUILD AFTER_BUILD > raw.txt
B=$1 A=$2 CALLS=2000
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mpicc -O2 -o "$W/call_cost" "$A/perf/call_cost.c"
mpicc -O2 -o "$W/ibs" "$(dirname "$0")/../2026-12-05-ibcast-verified/ibs.c"
R=(mpirun --allow-run-as-root --bind-to core -np 2)
args() {
    case $1 in
    stock) echo --mca coll ^kbinomial,pathmc ;;
    before) echo --mca mca_base_component_path "$B/ompi/.libs:$P" --mca coll_kbinomial_algorithm linear --mca coll_kbinomial_verify_trials 0 ;;
    after) echo --mca mca_base_component_path "$A/ompi/.libs:$P" --mca coll_kbinomial_algorithm linear --mca coll_kbinomial_verify_trials 0 ;;
    esac
}
for bytes in 8 16384; do
    for who in stock before after; do
        d="$W/$who-$bytes"
        mkdir -p "$d"
        (cd "$d" && "${R[@]}" $(args $who) valgrind --tool=callgrind --callgrind-out-file=cg.%p.out \
            "$W/call_cost" "$bytes" "$CALLS" n >/dev/null 2>&1)
        rank=0
        for f in $(ls "$d"/cg.*.out.1 | sort -t. -k2 -n); do
            incl=$(callgrind_annotate --inclusive=yes "$f" 2>/dev/null)
            ib=$(echo "$incl" | grep -E '[?:]PMPI_Ibcast ' | head -1 | awk '{gsub(",", "", $1); print $1}')
            wt=$(echo "$incl" | grep -E '[?:]PMPI_Wait ' | head -1 | awk '{gsub(",", "", $1); print $1}')
            echo "callgrind $who $bytes rank $rank ibcast $((ib / CALLS)) wait $((wt / CALLS))"
            rank=$((rank + 1))
        done
    done
done
for round in 1 2 3; do
    for who in stock before after; do
        echo "ibs $round $who $(chrt -r 10 "${R[@]}" $(args $who) "$W/ibs" 16384 200000 2>&1 | sort | tr '\n' ' ')"
    done
done
