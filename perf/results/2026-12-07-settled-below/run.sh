#!/bin/bash
# A size class settled on the module below, handed on at the module's entry (E-CALL-2):
#  1. instructions of one blocking 8-byte MPI_Bcast per rank (callgrind, perf/call_cost.c:
#     1000 untimed calls, then CALLS counted, a barrier after each), 2 ranks bound, stock /
#     BEFORE / AFTER; ours with the segment off and verification off, where the model
#     hands the class to the module below (selected_by=previous);
#  2. perf/osu_style_bcast -m 1:1048576 at the defaults (verification on: 16 - 512 KiB
#     settle on the module below here, E-VERIFY-7), 2 ranks bound, 10 interleaved rounds.
# usage: run.sh BEFORE_BUILD AFTER_BUILD > raw.txt
B=$1 A=$2 CALLS=2000
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mpicc -O2 -o "$W/call_cost" "$A/perf/call_cost.c"
R=(mpirun --allow-run-as-root --bind-to core -np 2 --mca btl self,vader --mca pml ob1)
comp() {
    case $1 in
    stock) echo --mca coll ^kbinomial,pathmc ;;
    before) echo --mca mca_base_component_path "$B/ompi/.libs:$P" ;;
    after) echo --mca mca_base_component_path "$A/ompi/.libs:$P" ;;
    esac
}
for who in stock before after; do
    d="$W/$who"
    mkdir -p "$d"
    (cd "$d" && "${R[@]}" $(comp $who) --mca coll_kbinomial_shm_chunk_bytes 0 \
        --mca coll_kbinomial_verify_trials 0 valgrind --tool=callgrind \
        --callgrind-out-file=cg.%p.out "$W/call_cost" 8 "$CALLS" b >/dev/null 2>&1)
    rank=0
    for f in $(ls "$d"/cg.*.out.1 | sort -t. -k2 -n); do
        b=$(callgrind_annotate --inclusive=yes "$f" 2>/dev/null | grep -E '[?:]PMPI_Bcast ' | head -1 |
            awk '{gsub(",", "", $1); print $1}')
        echo "callgrind $who rank $rank bcast $((b / CALLS))"
        rank=$((rank + 1))
    done
done
for round in $(seq 10); do
    for who in stock before after; do
        "${R[@]}" $(comp $who) --mca coll_kbinomial_verbose 1 "$A/perf/osu_style_bcast" \
            -m 1:1048576 2>&1 | grep -E '^[0-9]|verified' |
            sed 's/^coll:kbinomial: comm=[0-9]* size=2 //' | sed "s/^/$round $who /"
    done
done
