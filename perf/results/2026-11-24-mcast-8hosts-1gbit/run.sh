#!/bin/bash
cd /work/main
export MCQ_PREFIX=leadb2
for loss in 0 5; do
  contrib/cluster/cluster up 8 --mcast-loss $loss >/dev/null 2>&1
  chrt -r 10 perf/bcast-compare --launcher cluster --np 8 --sizes 65536,262144,1048576,4194304,16777216 --quick \
    --contenders default,ours-auto,ours-kbinomial \
    --define "ours-mcast=@COMPONENTS@ --mca coll_pathmc_algorithm mcast --mca coll_pathmc_mcast_transport ip --mca coll_pathmc_mcast_interface eth0 --mca coll_pathmc_fallback error" \
    --no-plan-check --out /tmp/mcb-loss$loss -- --mca coll_kbinomial_machine_file /work/main/contrib/cluster/cluster-1gbit.machine
  contrib/cluster/cluster mcast-drops > /tmp/mcb-loss$loss/mcast-drops.txt 2>&1
  contrib/cluster/cluster down >/dev/null 2>&1
done
