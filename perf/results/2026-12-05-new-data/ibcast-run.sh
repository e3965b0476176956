#!/bin/bash
# perf/osu_style_ibcast, new data (-c) and the same bytes, stock vs ours, 3 alternating rounds under chrt -r 10
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
B=${BENCH:?}; COMP=${COMP:?}
for round in 1 2 3; do
 for data in new same; do
  C=(); [ $data = new ] && C=(-c)
  for who in stock ours; do
   case $who in stock) X=(--mca coll ^kbinomial,pathmc);; ours) X=(--mca mca_base_component_path $COMP:$P);; esac
   chrt -r 10 mpirun --allow-run-as-root -np 2 --bind-to core "${X[@]}" $B -m 8192:4194304 "${C[@]}" 2>&1 | awk -v r=$round -v d=$data -v w=$who '/^[0-9]/ {print "round=" r, "data=" d, "who=" w, "size=" $1, "pure=" $2}'
  done
 done
done
