#!/bin/bash
# On the Debian 12 host (Open MPI 4.1.4, glibc 2.36): perf/osu_style_bcast -c (new data),
# 64 KiB - 4 MiB, 2 ranks bound, verification off (every call the segment), stock and the
# components of BEFORE (eabd02a: the libc's memcpy) and COMP (a14c255: mcast_shm_copy),
# with glibc's own tunables and with rep movsb turned off as Debian 13's glibc 2.41 turns
# it off on this CPU (its x86_rep_movsb_threshold, glibc-tunables.txt); ROUNDS rounds.
#   BEFORE=WT/ompi/.libs COMP=BUILD/ompi/.libs ROUNDS=2 bash host.sh > host-raw.txt
P=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
B=${BENCH:-perf/osu_style_bcast}
for r in $(seq "${ROUNDS:-2}"); do
  for tun in glibc no-rep; do
    T=(); [ $tun = no-rep ] && T=(-x GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=0x17d00000)
    for who in stock before ours; do
      case $who in
        stock) X=(--mca coll ^kbinomial,pathmc) ;;
        before) X=(--mca mca_base_component_path "$BEFORE:$P" --mca coll_kbinomial_verify_trials 0) ;;
        ours) X=(--mca mca_base_component_path "$COMP:$P" --mca coll_kbinomial_verify_trials 0) ;;
      esac
      mpirun --allow-run-as-root -np 2 --bind-to core "${T[@]}" "${X[@]}" "$B" -M osu -m 65536:4194304 -c 2>&1 |
        awk -v r=$r -v t=$tun -v w=$who '/^[0-9]/ {print "round=" r, "glibc=" t, "who=" w, "size=" $1, "us=" $2}'
    done
  done
done
