#!/bin/bash
# The same Cartesian communicator across emulated hosts (E-CART-1, "Measure again"):
# 4 hosts at 1 Gbit/s (contrib/cluster/cluster up 4 --rate 1gbit), 8 ranks (--map-by node:
# two per host, grid neighbours on other hosts), no machine file, 2 interleaved rounds of
# stock / BEFORE / AFTER, AFTER's perf/osu_style_bcast -t -m 1:1048576 -i 200; coll/pathmc's
# verbose lines of each run counted by kind.  Needs root and the cluster up.
# usage: run-cluster.sh BEFORE AFTER > raw-cluster.txt   (raw: round, contender, size, us)
B=$1 A=$2
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
for r in 1 2; do
    for who in stock before after; do
        case $who in
        stock) a=(--mca coll ^kbinomial,pathmc) ;;
        before) a=(--mca mca_base_component_path "$B/ompi/.libs:$P") ;;
        after) a=(--mca mca_base_component_path "$A/ompi/.libs:$P") ;;
        esac
        timeout 300 "$A/contrib/cluster/cluster" run -- -np 8 "${a[@]}" --mca coll_pathmc_verbose 1 \
            "$A/perf/osu_style_bcast" -t -m 1:1048576 -i 200 2>"$W/err" |
            grep -v '^#' | awk -v r=$r -v w=$who '{print r, w, $1, $2}'
        grep '^coll:pathmc: comm=[1-9]' "$W/err" |
            sed -E -e 's/.*the module below serves.* (algorithm=[a-z_]*).*/deferred (kbinomial: \1)/' \
                -e 's/^coll:pathmc: comm=[0-9]* size=[0-9]* root=.* (algorithm=[a-z_]*) .*/pathmc plan \1/' |
            sort | uniq -c | sed "s/^/pathmc $r $who /"
    done
done
