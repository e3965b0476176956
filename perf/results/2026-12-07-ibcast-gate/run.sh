#!/bin/bash
# Stock Open MPI / ours before (BEFORE) / ours after (AFTER), MPI_Ibcast, 2 ranks bound to
# the 2 cores, 3 interleaved rounds; usage: run.sh BEFORE_BUILD AFTER_BUILD > raw.txt
# (a build is a configured tree with ompi/.libs; perf/osu_style_ibcast from AFTER).
B=$1 A=$2
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
R=(mpirun --allow-run-as-root --oversubscribe --bind-to core --mca btl self,vader --mca pml ob1 -np 2)
for round in 1 2 3; do
    for who in stock before after; do
        case $who in
        stock) args=(--mca coll ^kbinomial,pathmc) ;;
        before) args=(--mca mca_base_component_path "$B/ompi/.libs:$P" --mca coll_kbinomial_verbose 1) ;;
        after) args=(--mca mca_base_component_path "$A/ompi/.libs:$P" --mca coll_kbinomial_verbose 1) ;;
        esac
        "${R[@]}" "${args[@]}" "$A/perf/osu_style_ibcast" -m 1:1048576 2>&1 |
            grep -v '^#' | sed "s/^/$round $who /"
    done
done
