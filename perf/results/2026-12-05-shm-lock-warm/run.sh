#!/bin/bash
# Interleaved rounds of stock Open MPI, the components of BEFORE and of COMP, 2 ranks
# bound to the cores of one node: the real osu_bcast / osu_ibcast (OSU=directory holding
# them) and tb (8-byte MPI_Bcast with a barrier between calls, each rank's mean).
#   OSU=... BEFORE=WT/ompi/.libs COMP=BUILD/ompi/.libs TB=./tb ROUNDS=4 bash run.sh > raw.txt
set -u
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
ROUNDS=${ROUNDS:-4}
run() { # contender bench args...
    local c=$1; shift
    local x
    case $c in
        stock) x="--mca coll ^kbinomial,pathmc" ;;
        before) x="--mca mca_base_component_path $BEFORE:$P" ;;
        ours) x="--mca mca_base_component_path $COMP:$P" ;;
    esac
    mpirun --allow-run-as-root -np 2 --bind-to core $x "$@" 2>&1 | grep -v '^#' | grep -v '^$'
}
for r in $(seq "$ROUNDS"); do
    for b in osu_bcast osu_ibcast; do
        for c in stock before ours; do
            run $c "$OSU/$b" -m 1:4194304 | sed "s/^/$b $c $r /"
        done
    done
    for c in stock before ours; do
        run $c "$TB" 8 200000 | sed "s/^/tb $c $r /"
    done
done
