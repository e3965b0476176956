#!/bin/bash
# 2 ranks bound to the VM's 2 cores, stock Open MPI against two builds of ours (BEFORE,
# AFTER: build trees), 10 interleaved rounds: perf/osu_style_bcast to 4 MiB and
# perf/osu_style_ibcast to 1 MiB (their default method), with coll_kbinomial_verbose 1
# so that the verdicts are in the raw file.
# usage: run.sh BEFORE AFTER > raw.txt   (raw: round, operation, contender, the line)
BEFORE=$1 AFTER=$2
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
for round in $(seq 10); do
    for cfg in "bcast 4194304" "ibcast 1048576"; do
        set -- $cfg
        for who in stock before after; do
            case $who in
            stock) a=(--mca coll ^kbinomial,pathmc) ;;
            before) a=(--mca mca_base_component_path "$BEFORE/ompi/.libs:$P") ;;
            after) a=(--mca mca_base_component_path "$AFTER/ompi/.libs:$P") ;;
            esac
            mpirun --allow-run-as-root --bind-to core --mca btl self,vader --mca pml ob1 \
                --mca coll_kbinomial_verbose 1 -np 2 "${a[@]}" "$AFTER/perf/osu_style_$1" \
                -m 1:"$2" 2>&1 | grep -E '^[0-9]|verified' | grep -v '^#' |
                sed 's/^coll:kbinomial: comm=[0-9]* size=2 //' | sed "s/^/$round $1 $who /"
        done
    done
done
