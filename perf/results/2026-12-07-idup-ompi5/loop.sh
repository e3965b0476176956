#!/bin/bash
# loop.sh N ALG [mpirun args...]: run tests/mpi/ibcast_idup N times on 3 ranks (in the Debian 13
# root of contrib/ompi5-stage, checkout in /root/repo; PROGARGS=-I leaves the
# intercommunicator stage out); a run still going after 15 s gets every rank's stacks, our
# active list of MPI_Ibcast requests and its memory written to /root/hang.N.txt (needs gdb),
# then is killed.  Stock: ALG anything, args `--mca coll ^kbinomial,pathmc`.
n=$1; alg=$2; shift 2
cd /root/repo/tests/mpi
export PMIX_MCA_mca_base_component_show_load_errors=none
ok=0; bad=0
for i in $(seq $n); do
  ( ulimit -v 4000000; exec mpirun --allow-run-as-root -np 3 --oversubscribe --bind-to none \
    --mca mca_base_component_path /root/repo/ompi/.libs:/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi40 \
    --mca btl_vader_single_copy_mechanism none --mca coll_kbinomial_compare_previous 0 \
    --mca coll_kbinomial_fallback error --mca coll_pathmc_fallback error \
    --mca pml ob1 --mca btl self,vader --mca coll_kbinomial_algorithm $alg "$@" ./ibcast_idup $PROGARGS ) >/tmp/li.out 2>/tmp/li.err &
  mp=$!
  for t in $(seq 30); do sleep 0.5; kill -0 $mp 2>/dev/null || break; done
  if kill -0 $mp 2>/dev/null; then
    bad=$((bad+1)); f=/root/hang.$i.txt; echo "run $i still running: $f"
    for p in $(pgrep -x ibcast_idup); do
      { echo "=== pid $p"; grep -E 'VmRSS' /proc/$p/status;
        gdb -batch -p $p -ex 'thread apply all bt 30' -ex "p &'mcast_pml.c'::active" -ex "p 'mcast_pml.c'::active" -ex "info sharedlibrary mca_coll" -ex "p *'mcast_pml.c'::active" -ex "p 'mcast_pml.c'::progress_registered" 2>&1 | grep -v '^\[\|^Download\|^warning'; 
        sleep 1; grep -E 'VmRSS' /proc/$p/status; } >>$f
    done
    kill -9 $mp; pkill -9 -x ibcast_idup; wait $mp 2>/dev/null
  else
    wait $mp; rc=$?
    if [ $rc = 0 ]; then ok=$((ok+1)); else bad=$((bad+1)); echo "run $i rc=$rc"; tail -3 /tmp/li.err; fi
  fi
  [ $((i % 25)) = 0 ] && echo "after $i: ok=$ok bad=$bad"
done
echo "alg=$alg $* ok=$ok bad=$bad"
