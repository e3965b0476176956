#!/bin/bash
# osu_ibcast 7.4 and perf/osu_style_ibcast (-c: new data; without: the same bytes), stock,
# before (the components of BEFORE) and ours, 3 alternating rounds under chrt -r 10
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
OI=${OSU_IBCAST:?}; SI=${STYLE_IBCAST:?}; BEFORE=${BEFORE:?}; COMP=${COMP:?}
for round in 1 2 3; do
 for np in 2 4; do
  B=(--bind-to core); [ $np = 4 ] && B=(--oversubscribe)
  for who in stock before ours; do
   case $who in stock) X=(--mca coll ^kbinomial,pathmc);; before) X=(--mca mca_base_component_path $BEFORE:$P);; ours) X=(--mca mca_base_component_path $COMP:$P);; esac
   chrt -r 10 mpirun --allow-run-as-root -np $np "${B[@]}" "${X[@]}" $OI -m 1:4194304 2>&1 | awk -v r=$round -v np=$np -v w=$who '/^[0-9]/ {print "bench=osu_ibcast round=" r, "np=" np, "who=" w, "size=" $1, "pure=" $4}'
   if [ $np = 2 ]; then
    for data in new same; do
     C=(); [ $data = new ] && C=(-c)
     chrt -r 10 mpirun --allow-run-as-root -np 2 "${B[@]}" "${X[@]}" $SI -m 8192:4194304 "${C[@]}" 2>&1 | awk -v r=$round -v d=$data -v w=$who '/^[0-9]/ {print "bench=style-" d, "round=" r, "np=2 who=" w, "size=" $1, "pure=" $2}'
    done
   fi
  done
 done
done
