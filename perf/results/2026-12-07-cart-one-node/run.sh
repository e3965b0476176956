#!/bin/bash
# A periodic Cartesian communicator on one node (E-CART-1): stock Open MPI, BEFORE and
# AFTER (configured trees: ompi/.libs, perf/), 3 interleaved rounds per configuration,
# perf/osu_style_bcast -t and perf/osu_style_ibcast -t (periodic 2-D, MPI_Dims_create),
# ranks on 2 cores, their default method (the same bytes every call), AFTER's benchmarks
# for all three; then coll/pathmc's verbose plan lines of BEFORE and AFTER at 4 ranks.
# usage: run.sh BEFORE AFTER > raw.txt   (raw: round, operation, ranks, contender, the line)
B=$1 A=$2
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
R=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader --mca pml ob1)
comp() {
    case $1 in
    stock) echo --mca coll ^kbinomial,pathmc ;;
    before) echo --mca mca_base_component_path "$B/ompi/.libs:$P" ;;
    after) echo --mca mca_base_component_path "$A/ompi/.libs:$P" ;;
    esac
}
for round in 1 2 3; do
    for cfg in "bcast 4 4194304" "bcast 8 4194304" "ibcast 4 1048576"; do
        set -- $cfg
        for who in stock before after; do
            "${R[@]}" -np "$2" $(comp $who) "$A/perf/osu_style_$1" -t -m 1:"$3" 2>/dev/null |
                grep -v '^#' | sed "s/^/$round $1 $2 $who /"
        done
    done
done
for who in before after; do
    "${R[@]}" -np 4 $(comp $who) --mca coll_pathmc_verbose 1 --mca coll_kbinomial_verbose 1 \
        "$A/perf/osu_style_bcast" -t -m 1:4194304 2>&1 >/dev/null |
        grep -E '^coll:[a-z]*: comm=[1-9]' | sed -E 's/ (window|max_sends|discipline)=[^ ]*//g' |
        sed "s/^/plan $who /"
done
