#!/bin/bash
# run.sh BEFORE AFTER ROUNDS OUT [MPIRUN-ARGS...]: stock / BEFORE / AFTER on 4 emulated hosts x 1 rank
# (the cluster already up: contrib/cluster/cluster up 4 --no-shape, or --rate 1gbit), perf/osu_style_bcast
# 64 KiB - 4 MiB, ROUNDS interleaved rounds (the order reversed every other round); BEFORE / AFTER: directories
# holding mca_coll_kbinomial.so and mca_coll_pathmc.so (only the .so files: a copied .la makes Open MPI 5.0
# load nothing from there); extra arguments (a machine file) go to ours.  Rows "round contender size us" to
# OUT, the plan lines (coll_kbinomial_verbose 1) to OUT.plans.  Run from a built tree.
set -u
BEFORE=$1 AFTER=$2 ROUNDS=$3 OUT=$4; shift 4
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
X=$(ls -d /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix 2>/dev/null)   # Open MPI 5.0 (docs/openmpi5.md)
C="$P${X:+:$X}"
: > "$OUT"; : > "$OUT.plans"
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 0 ]; then L="after before stock"; else L="stock before after"; fi
  for who in $L; do
    case $who in
      stock) a=(--mca coll ^kbinomial,pathmc);;
      before) a=(--mca mca_base_component_path "$BEFORE:$C" --mca coll_kbinomial_verbose 1 "$@");;
      after) a=(--mca mca_base_component_path "$AFTER:$C" --mca coll_kbinomial_verbose 1 "$@");;
    esac
    contrib/cluster/cluster run --timeout 300 -- -np 4 "${a[@]}" "$PWD/perf/osu_style_bcast" -m 65536:4194304 \
        2>/tmp/run-err.$$ | grep -E '^[0-9]+ ' | awk -v w=$who -v r=$r '{print r, w, $1, $2}' >> "$OUT"
    grep -h 'self-cal\|not used\|algorithm=' /tmp/run-err.$$ | sed "s/^/# $r $who /" | cut -c1-260 >> "$OUT.plans"
  done
done
rm -f /tmp/run-err.$$
