#!/bin/sh
# 4 ranks on 2 cores (oversubscribed), 2 rounds of stock, before and ours: OSU=... BEFORE=... COMP=... sh run-np4.sh > raw-np4.txt
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
OSU=${OSU:?}
for r in 1 2; do for b in osu_bcast osu_ibcast; do for c in stock before ours; do
  case $c in stock) X="--mca coll ^kbinomial,pathmc";; before) X="--mca mca_base_component_path $BEFORE:$P";; ours) X="--mca mca_base_component_path $COMP:$P";; esac
  mpirun --allow-run-as-root --oversubscribe -np 4 $X $OSU/$b -m 1:4194304 2>&1 | grep -v '^#' | grep -v '^$' | sed "s/^/$b $c $r /"
done; done; done
