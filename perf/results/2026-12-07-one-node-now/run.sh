#!/bin/bash
# One node, stock Open MPI against ours (BUILD), 5 interleaved rounds per configuration:
# perf/osu_style_bcast / _ibcast (their default method; the same bytes every call).
# usage: run.sh BUILD > raw.txt   (raw: round, operation, ranks, contender, the line)
B=$1
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
for round in 1 2 3 4 5; do
    for cfg in "bcast 2 core 4194304" "bcast 4 none 4194304" "bcast 8 none 4194304" "ibcast 2 core 1048576" "ibcast 4 none 1048576"; do
        set -- $cfg
        for who in stock ours; do
            if [ $who = stock ]; then a=(--mca coll ^kbinomial,pathmc); else a=(--mca mca_base_component_path "$B/ompi/.libs:$P"); fi
            mpirun --allow-run-as-root --oversubscribe --bind-to "$3" --mca btl self,vader --mca pml ob1 \
                -np "$2" "${a[@]}" "$B/perf/osu_style_$1" -m 1:"$4" 2>/dev/null | grep -v '^#' |
                sed "s/^/$round $1 $2 $who /"
        done
    done
done
