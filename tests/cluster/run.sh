#!/bin/bash
# tests/cluster/run.sh -- functional test of our broadcast on an emulated
# multi-host cluster (contrib/cluster/cluster, network namespaces, 4 hosts).
#
#   MCAST_COMPONENT_DIR=/work/main/ompi/.libs tests/cluster/run.sh
#
# Checks (twolevel also with its node segments: bcast_check, MPI_Bcast and MPI_Ibcast):
#   1. every rank runs on its own emulated host (distinct hostnames);
#   2. bcast correctness across hosts: osu_style_bcast -c (data validated on every
#      rank, root 0 and rotating roots) with each of our algorithms, and the
#      coll:kbinomial plan line shows the forced algorithm;
#      MPI_Ibcast under auto without a machine file (osu_style_ibcast -c): every plan line
#      selected_by=unmodelled, up to 4 hosts libnbc's linear tree at every size (E-TCP-6);
#   3. root link byte counters (tx_bytes of the root host's link) for ONE broadcast
#      of M bytes (perf/bcast_once), minus a 1-byte baseline run:
#        linear            ~ (n-1) * M
#        kbinomial, k = K  ~ min(K, n-1) * M
#      within TOL (default 10 %: TCP/IP headers, ACKs, wire-up), leaving out the frames of
#      the segments TCP resent (a loaded machine drops on the shaped links);
#   4. mcast-calibrate on two hosts, auto with its file, and every forced algorithm at
#      256 KiB - 1 MiB within 3x the time the planner predicts with that file (the slowest
#      rank, the least over the three sizes, a second run before it fails);
#   5. self-calibration (coll_kbinomial_self_calibrate 1): what it measured within the
#      link's bounds, the data right, measured once at a blocking first call and taken
#      by later communicators from the exchange, none at a nonblocking first call; with
#      a topology file of two switches it reports what its route latency pairs, its
#      switch links' streams at once and its host links' streams from one host gave;
#      mcast-calibrate --probe keeps the same measurement as a machine file.  A check whose
#      measurement was refused as noise in each of its 3 runs (a loaded machine) did not
#      run: it counts as such, with the refusal (never as passed).
#
# Environment:
#   MCAST_COMPONENT_DIR  dir with mca_coll_kbinomial.so (unset: skip, exit 77)
#   MCQ_TEST_HOSTS (4)  MCQ_TEST_BYTES (4194304)  MCQ_TEST_K (2)  MCQ_TEST_TOL (0.10)
#   MCQ_TEST_STOCK=1     also run stock Open MPI controls of the counter method
#                        (tuned linear / binomial); with no component dir, run only them
#   MCQ_PREFIX (mcqt)    namespace prefix of the test cluster
#   MCQ_TEST_PRED_MAX (3) bound of check 4: slowest rank / predicted
#   MCQ_TIMEOUT (120)    seconds per mpirun
#
# Exit: 0 none failed, 1 a failure, 77 skipped. Last line: "N passed, M failed, K did not run".
# SPDX-License-Identifier: BSD-3-Clause
set -u
set -o pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLUSTER=$TOP/contrib/cluster/cluster
N=${MCQ_TEST_HOSTS:-4}
M=${MCQ_TEST_BYTES:-4194304}
K=${MCQ_TEST_K:-2}
TOL=${MCQ_TEST_TOL:-0.10}
STOCK=${MCQ_TEST_STOCK:-0}
COMP=${MCAST_COMPONENT_DIR:-}
MPICC=${MCAST_MPICC:-mpicc}
export MCQ_PREFIX=${MCQ_PREFIX:-mcqt}
export MCQ_TIMEOUT=${MCQ_TIMEOUT:-120}
export MCQ_QUIET=1

pass=0; fail=0; notrun=0
ok()  { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
skip() { echo "SKIP: $*"; echo "0 passed, 0 failed"; exit 77; }

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
command -v mpirun >/dev/null || skip "mpirun not found"
if [ -z "$COMP" ]; then
    [ "$STOCK" = 1 ] || skip "MCAST_COMPONENT_DIR not set (dir with mca_coll_kbinomial.so); set MCQ_TEST_STOCK=1 for the stock controls only"
elif [ ! -f "$COMP/mca_coll_kbinomial.so" ]; then
    echo "FAIL: MCAST_COMPONENT_DIR=$COMP has no mca_coll_kbinomial.so"
    echo "0 passed, 1 failed"
    exit 1
fi

WORK=$(mktemp -d /tmp/mcq-cluster-test.XXXXXX)
cleanup() { "$CLUSTER" down >/dev/null 2>&1; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

# benchmark programs: the in-tree build if fresh, else compile them here
prog() {
    local name=$1 src=$TOP/perf/$1.c
    if [ -x "$TOP/perf/$name" ] && [ "$TOP/perf/$name" -nt "$src" ]; then
        echo "$TOP/perf/$name"
    else
        "$MPICC" -O2 -o "$WORK/$name" "$src" || return 1
        echo "$WORK/$name"
    fi
}
BCHECK=$WORK/bcast_check
"$MPICC" -O2 -o "$BCHECK" "$TOP/tests/mpi/bcast_check.c" || BCHECK=""
OSU=$(prog osu_style_bcast) || { echo "FAIL: cannot build osu_style_bcast"; echo "0 passed, 1 failed"; exit 1; }
ONCE=$(prog bcast_once) || { echo "FAIL: cannot build bcast_once"; echo "0 passed, 1 failed"; exit 1; }
OSUI=$(prog osu_style_ibcast) || OSUI=""

PKGLIB=$(ompi_info --path pkglibdir --parsable 2>/dev/null | sed -n 's/^path:pkglibdir://p')
PKGLIB=${PKGLIB:-/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3}
ours() { # alg -> mpirun args forcing our algorithm
    echo --mca mca_base_component_path "$COMP:$PKGLIB" \
         --mca coll_kbinomial_algorithm "$1" --mca coll_kbinomial_fallback error
}
STOCKGUARD=""
[ -f "$PKGLIB/mca_coll_kbinomial.so" ] && STOCKGUARD="--mca coll ^kbinomial,pathmc"

"$CLUSTER" up "$N" || { echo "FAIL: cluster up $N"; echo "0 passed, 1 failed"; exit 1; }

# 1. one hostname per rank
names=$("$CLUSTER" run -- -np "$N" hostname 2>"$WORK/err" | sort -u | wc -l)
if [ "$names" = "$N" ]; then ok "$N ranks on $N distinct emulated hosts"
else bad "distinct hostnames: $names of $N ($(cat "$WORK/err"))"; fi

# root host tx bytes (h0 is the root's host: --map-by node puts rank 0 there)
root_tx() { "$CLUSTER" counters | awk -v h="${MCQ_PREFIX}-h0" '$1 == h { print $3 }'; }
# TCP segments the root's host retransmitted so far (its namespace's /proc/net/snmp): on
# a loaded machine the shaped links drop and TCP resends (CI: 1.113 x 2*M for k = 2 where
# an idle run reads 1.046); each resent segment is a full frame on the link
root_retrans() {
    ip netns exec "${MCQ_PREFIX}-h0" cat /proc/net/snmp 2>/dev/null |
        awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "RetransSegs") c = i; h = 1 } else print $c + 0 }'
}
FRAME=1514 # bytes on the link of a full TCP segment at MTU 1500 (timestamps on)

once() { # label bytes mpirun-args... -> prints delta of root tx bytes and of its
         # retransmitted segments; fails on error
    local label=$1 bytes=$2; shift 2
    local b a rb ra
    b=$(root_tx); rb=$(root_retrans)
    if ! "$CLUSTER" run -- -np "$N" "$@" "$ONCE" "$bytes" >"$WORK/once.out" 2>&1 \
        || ! grep -q "bcast_once: ok" "$WORK/once.out"; then
        echo "--- $label output:" >&2; tail -20 "$WORK/once.out" >&2
        return 1
    fi
    a=$(root_tx); ra=$(root_retrans)
    echo "$((a - b)) $((${ra:-0} - ${rb:-0}))"
}

check_bytes() { # label factor mpirun-args...
    local label=$1 factor=$2; shift 2
    local base full net expect verdict bt br ft fr resent
    base=$(once "$label baseline" 1 "$@") || { bad "$label: bcast_once (1 B) failed"; return; }
    full=$(once "$label" "$M" "$@") || { bad "$label: bcast_once ($M B) failed"; return; }
    read -r bt br <<<"$base"
    read -r ft fr <<<"$full"
    local segs=$((fr > br ? fr - br : 0)) # the 1 B run's resends are in its baseline
    resent=$((segs * FRAME))
    net=$((ft - bt - resent))
    expect=$((factor * M))
    verdict=$(awk -v n="$net" -v e="$expect" -v t="$TOL" \
        'BEGIN { r = n / e; printf "%s %.3f", (r >= 1 - t && r <= 1 + t) ? "ok" : "bad", r }')
    if [ "${verdict%% *}" = ok ]; then
        ok "$label: root link tx $net B = ${verdict#* } x ${factor}*M (M=$M, baseline $bt B, $segs resent segments left out)"
    else
        bad "$label: root link tx $net B = ${verdict#* } x ${factor}*M, expected within ${TOL} (M=$M, baseline $bt B, $segs resent segments left out)"
    fi
}

nm1=$((N - 1))
kk=$(( K < nm1 ? K : nm1 ))

# ---- stock controls of the counter method (optional)
if [ "$STOCK" = 1 ]; then
    tuned() { echo $STOCKGUARD --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_bcast_algorithm "$1" \
                   --mca coll_tuned_bcast_algorithm_segmentsize 0; }
    # shellcheck disable=SC2046
    check_bytes "stock tuned linear" "$nm1" $(tuned 1)
    # binomial tree: the root sends ceil(log2 n) copies
    lg=0; p=1; while [ $p -lt "$N" ]; do p=$((p * 2)); lg=$((lg + 1)); done
    # shellcheck disable=SC2046
    check_bytes "stock tuned binomial" "$lg" $(tuned 6)
    # shellcheck disable=SC2046
    if "$CLUSTER" run -- -np "$N" $(tuned 6) "$OSU" -c -m 1:1M -i 10 -r rotate >"$WORK/osu.out" 2>&1; then
        ok "stock tuned binomial: osu_style_bcast -c across hosts"
    else
        bad "stock tuned binomial: osu_style_bcast -c"; tail -20 "$WORK/osu.out"
    fi
fi

# ---- ours
if [ -n "$COMP" ]; then
    # coll/kbinomial's algorithms from the registry (twolevel needs several ranks per host:
    # its row follows; shm needs every rank on one host: refused below)
    ALGS=$("$TOP/contrib/mcast-inspect/mcast-inspect" --list-algorithms |
           awk '/\[coll\/kbinomial/ && $1 != "twolevel" && $1 != "shm" {print $1}')
    [ -n "$ALGS" ] || bad "cannot list the algorithms (mcast-inspect --list-algorithms)"
    for alg in $ALGS; do
        for root in 0 rotate; do
            # shellcheck disable=SC2046
            if "$CLUSTER" run -- -np "$N" $(ours "$alg") --mca coll_kbinomial_verbose 1 \
                "$OSU" -c -m 1:"$M" -i 10 -x 2 -r "$root" >"$WORK/osu.out" 2>&1; then
                if [ "$alg" = auto ] && grep -q "coll:kbinomial:.*algorithm=" "$WORK/osu.out" \
                    || grep -q "coll:kbinomial:.*algorithm=$alg" "$WORK/osu.out"; then
                    ok "ours $alg root=$root: data validated on $N hosts, 1..$M B"
                else
                    bad "ours $alg root=$root: no plan line 'coll:kbinomial: ... algorithm=$alg' (our component did not run)"
                    grep -m3 "coll:" "$WORK/osu.out"
                fi
            else
                bad "ours $alg root=$root: osu_style_bcast -c failed"; tail -20 "$WORK/osu.out"
            fi
        done
    done
    # shm forced across hosts: no shared segment there, the call fails with the reason
    # (fallback=error), no hang; auto's plan line above never says shm
    # shellcheck disable=SC2046
    if "$CLUSTER" run -- -np "$N" $(ours shm) "$OSU" -c -m 1:1024 -i 2 -x 1 >"$WORK/osu.out" 2>&1; then
        bad "ours shm across $N hosts: succeeded without a shared segment"
    elif grep -q "declined (shm: needs every rank on one node" "$WORK/osu.out"; then
        ok "ours shm forced across $N hosts: refused with the reason (fallback=error), no hang"
    else
        bad "ours shm forced across $N hosts: unexpected failure"; tail -8 "$WORK/osu.out"
    fi
    # MPI_Ibcast over TCP without a machine file (never handed down, no probe: only
    # nonblocking calls): the faster by the model of Open MPI's two choices, tuned's and
    # libnbc's (E-TCP-6), on rank order, whole messages; up to 4 hosts libnbc's linear tree
    # at every size (tuned's binary and binomial trees below 8 KiB are slower by the model),
    # above at least one size class libnbc's binomial tree; data checked at every call
    if [ -n "$OSUI" ]; then
        # shellcheck disable=SC2046
        if "$CLUSTER" run -- -np "$N" $(ours auto) --mca coll_kbinomial_verbose 1 \
            "$OSUI" -c -m 1:1048576 -i 5 -x 1 >"$WORK/ibc.out" 2>"$WORK/ibc.err"; then
            # (the plan lines on stderr alone: mpirun may cut a line of one stream with
            # the other's, as Open MPI 5's did here once)
            lines=$(grep -c "coll:kbinomial: ibcast comm=.* selected_by=unmodelled" "$WORK/ibc.err")
            other=$(grep "coll:kbinomial: ibcast comm=" "$WORK/ibc.err" | grep -vc "selected_by=unmodelled")
            if [ "$N" -le 4 ]; then
                want=$(grep "coll:kbinomial: ibcast comm=" "$WORK/ibc.err" | grep -vc " algorithm=linear ")
            else
                want=1
                grep -q "coll:kbinomial: ibcast comm=.* algorithm=binomial " "$WORK/ibc.err" && want=0
            fi
            if [ "$lines" -ge 21 ] && [ "$other" -eq 0 ] && [ "$want" -eq 0 ]; then
                ok "ours auto MPI_Ibcast over TCP, no machine file, $N hosts: Open MPI's nonblocking choice where the model says so ($lines plan lines selected_by=unmodelled), data validated 1 B - 1 MiB"
            else
                bad "ours auto MPI_Ibcast over TCP: $lines unmodelled plan lines (21 sizes), $other others, $want not the expected tree"
                grep "coll:kbinomial: ibcast" "$WORK/ibc.err" | grep -v " algorithm=linear .*selected_by=unmodelled" | head -5
            fi
        else
            bad "ours auto MPI_Ibcast over TCP: osu_style_ibcast -c failed"; tail -20 "$WORK/ibc.out" "$WORK/ibc.err"
        fi
    else
        bad "cannot build perf/osu_style_ibcast"
    fi
    # twolevel: two ranks per host, so node leaders run the plan between the hosts (a
    # k-binomial tree or a family: circulant, two-tree) and each host's second rank gets
    # every block from its leader as it arrives: through the host's shared segment
    # (intra=shm, transport pml+shm; by default), or over the PML (no segment: shm off)
    for intra in shm pml; do
        extra=""; want="transport=pml+shm"
        [ "$intra" = pml ] && { extra="--mca coll_kbinomial_shm_chunk_bytes 0"; want="transport=pml "; }
        # shellcheck disable=SC2046,SC2086
        if "$CLUSTER" run -- -np $((2 * N)) $(ours twolevel) --mca coll_kbinomial_verbose 1 $extra \
            "$OSU" -c -m 1:"$M" -i 5 -x 1 -r rotate >"$WORK/osu.out" 2>&1; then
            if grep -q "coll:kbinomial:.*algorithm=twolevel.*$want" "$WORK/osu.out" &&
                { [ "$intra" = shm ] || ! grep -q "pml+shm" "$WORK/osu.out"; }; then
                ok "ours twolevel intra=$intra, 2 ranks per host: data validated on $N hosts, 1..$M B ($(grep -c 'algorithm=twolevel inter=' "$WORK/osu.out") plans with a family between the hosts)"
            else
                bad "ours twolevel intra=$intra: no plan line 'algorithm=twolevel ... $want'"; grep -m3 "coll:" "$WORK/osu.out"
            fi
        else
            bad "ours twolevel intra=$intra, 2 ranks per host: osu_style_bcast -c failed"; tail -20 "$WORK/osu.out"
        fi
    done
    # twolevel through the hosts' segments with every datatype, root and communicator of
    # bcast_check (world, reversed, split, dup), MPI_Bcast and MPI_Ibcast, on 2N - 1 ranks
    # (one host has a single rank: no segment there); communicators with one rank per host
    # are not twolevel's (fallback silent: the module below serves them)
    if [ -n "$BCHECK" ]; then
        for mode in "" -n; do
            # shellcheck disable=SC2046,SC2086
            if "$CLUSTER" run -- -np $((2 * N - 1)) $(ours twolevel | sed 's/fallback error/fallback silent/') \
                --mca coll_kbinomial_verbose 1 "$BCHECK" -l 300000 $mode >"$WORK/bc.out" 2>&1 &&
                grep -q "bcast_check: .* 0 failures" "$WORK/bc.out" &&
                grep -q "transport=pml+shm" "$WORK/bc.out"; then
                ok "ours twolevel intra=shm, $((2 * N - 1)) ranks on $N hosts: $(grep -o 'MPI_I*[Bb]cast [0-9]* cases, 0 failures' "$WORK/bc.out")"
            else
                bad "ours twolevel intra=shm bcast_check $mode on $((2 * N - 1)) ranks"; grep -v '^coll:' "$WORK/bc.out" | tail -10
            fi
        done
    else
        bad "cannot build tests/mpi/bcast_check"
    fi
    # the two-tree where the machine model's flows share a link: the planner takes
    # synchronous sends with several in flight where its model says so (mcast_planner.h,
    # "Synchronous sends"); every datatype, root and communicator of bcast_check,
    # MPI_Bcast and MPI_Ibcast, with the PML's synchronous mode between the hosts
    if [ -n "$BCHECK" ]; then
        printf 'version 1\nnet.shared_flows 1\n' >"$WORK/flows.machine"
        for mode in "" -n; do
            # shellcheck disable=SC2046,SC2086
            if "$CLUSTER" run -- -np "$N" $(ours twotree) --mca coll_kbinomial_verbose 1 \
                --mca coll_kbinomial_machine_file "$WORK/flows.machine" \
                "$BCHECK" -l 300000 $mode >"$WORK/bc.out" 2>&1 &&
                grep -q "bcast_check: .* 0 failures" "$WORK/bc.out" &&
                grep -Eq "algorithm=twotree .*max_sends=([3-9]|1[0-6]) sends=sync" "$WORK/bc.out"; then
                ok "ours twotree, synchronous sends in flight (net.shared_flows 1), $N hosts: $(grep -o 'MPI_I*[Bb]cast [0-9]* cases, 0 failures' "$WORK/bc.out")"
            else
                bad "ours twotree synchronous (net.shared_flows 1) bcast_check $mode"; grep -v '^coll:' "$WORK/bc.out" | tail -10
                grep -m3 "^coll:" "$WORK/bc.out"
            fi
        done
    fi
    # shellcheck disable=SC2046
    check_bytes "ours linear" "$nm1" $(ours linear)
    # shellcheck disable=SC2046
    check_bytes "ours kbinomial k=$K" "$kk" $(ours kbinomial) --mca coll_kbinomial_k "$K"
fi

# ---- topology file: the chain our component builds on equals mcast-inspect's
INSPECT=$TOP/contrib/mcast-inspect/mcast-inspect
if [ -n "$COMP" ] && [ -x "$INSPECT" ]; then
    topo=$WORK/net.topo
    {   # two switches; even hosts on s1, odd on s0 (s0 is the up*/down* root): the chain
        # (ordering tour, which keeps POC's order here: its chain loads no link less) then
        # differs from rank order
        echo "switch s0"; echo "switch s1"; echo "link s0 s1"
        for i in $(seq 0 $((N - 1))); do echo "host ${MCQ_PREFIX}-h$i"; done
        for i in $(seq 0 $((N - 1))); do echo "link s$(( (i + 1) % 2 )) ${MCQ_PREFIX}-h$i"; done
    } >"$topo"
    "$CLUSTER" run -- -np "$N" sh -c 'echo "$OMPI_COMM_WORLD_RANK $(hostname)"' 2>/dev/null |
        sort -n | awk '{print $2}' | paste -sd, >"$WORK/hosts"
    # shellcheck disable=SC2046
    if "$CLUSTER" run -- -np "$N" $(ours kbinomial) --mca coll_kbinomial_verbose 2 \
        --mca coll_kbinomial_topology_file "$topo" "$ONCE" 65536 >"$WORK/topo.out" 2>&1; then
        ours_chain=$(sed -n 's/^coll:kbinomial: comm=0 root=0 chain=//p' "$WORK/topo.out" | head -1)
        ours_ord=$(sed -n 's/^coll:kbinomial: comm=0 size=.* algorithm=.* ordering=\([a-z-]*\).*/\1/p' "$WORK/topo.out" | head -1)
        insp_chain=$("$INSPECT" --topology "$topo" --hosts "$(cat "$WORK/hosts")" --root 0 \
            --algorithm kbinomial --bytes 65536 |
            awk '/^== ordering/ {f = 1; next} /^==/ {f = 0} f && /^ *[0-9]+: [0-9]+:/ {split($2, a, ":"); printf "%s%s", s, a[1]; s = ","}')
        if [ -n "$ours_chain" ] && [ "$ours_chain" = "$insp_chain" ] && [ "$ours_ord" = tour ]; then
            ok "topology file: component chain $ours_chain (ordering=$ours_ord) equals mcast-inspect's"
        else
            bad "topology file: component chain '$ours_chain' (ordering=$ours_ord) vs mcast-inspect '$insp_chain'"
            grep -m5 "coll:" "$WORK/topo.out"
        fi
    else
        bad "topology file: bcast_once failed"; tail -20 "$WORK/topo.out"
    fi
    # the two-tree on the same network: the planner places its positions (mcast_planner.h,
    # "Two-tree placement": at 4 hosts the tour's chain sends three edges over the
    # switches' link, the placed one two) and takes the placement where its model is the
    # faster (here from 1 MiB; the ordering below); every rank runs the plan's chain, the
    # one mcast-inspect shows, and the data arrive (MPI_Bcast, MPI_Ibcast)
    insp_placed=$("$INSPECT" --topology "$topo" --hosts "$(cat "$WORK/hosts")" --root 0 \
        --algorithm twotree --bytes 2000000 |
        awk '/^plan chain/ {f = 1; next} /^(==|[a-z])/ {f = 0} f && /^ *[0-9]+: [0-9]+:/ {split($2, a, ":"); printf "%s%s", s, a[1]; s = ","}')
    if [ -n "$BCHECK" ] && [ -n "$insp_placed" ]; then
        for mode in "" -n; do
            # 2 MB cases (the placement is taken from 1 MiB): 35 - 40 s each on a quiet
            # 2-core machine, so three times MCQ_TIMEOUT's default lest a loaded machine
            # (CI, two test roots at once) time out a run that is only slow
            # shellcheck disable=SC2046,SC2086
            if MCQ_TIMEOUT=$((3 * MCQ_TIMEOUT)) "$CLUSTER" run -- -np "$N" $(ours twotree) --mca coll_kbinomial_verbose 2 \
                --mca coll_kbinomial_topology_file "$topo" "$BCHECK" -l 2000000 $mode >"$WORK/tt.out" 2>&1 &&
                grep -q "bcast_check: .* 0 failures" "$WORK/tt.out"; then
                # the chains world's plans from root 0 ran: the placed one, else the ordering
                chains=$(sed -n 's/^coll:kbinomial: comm=0 root=0 chain=//p' "$WORK/tt.out" | sort -u | paste -sd' ')
                others=$(echo "$chains" | tr ' ' '\n' | grep -vx -e "$insp_placed" -e "$ours_chain")
                if [ "$insp_placed" != "$ours_chain" ] && echo "$chains" | tr ' ' '\n' | grep -qx "$insp_placed" &&
                    [ -z "$others" ]; then
                    ok "ours twotree on the topology file: the placed chain $insp_placed (ordering $ours_chain; ran: $chains), $(grep -o 'MPI_I*[Bb]cast [0-9]* cases, 0 failures' "$WORK/tt.out")"
                else
                    bad "ours twotree on the topology file $mode: chains '$chains', mcast-inspect's plan chain '$insp_placed', ordering '$ours_chain'"
                fi
            else
                bad "ours twotree on the topology file: bcast_check $mode"; grep -v '^coll:' "$WORK/tt.out" | tail -10
            fi
        done
    else
        bad "ours twotree on the topology file: no bcast_check or no placed chain from mcast-inspect"
    fi
    # pathlg: the Less-Greedy worm plan on the same two-switch network, rendered as chains
    if "$CLUSTER" run -- -np "$N" --mca mca_base_component_path "$COMP:$PKGLIB" \
        --mca coll_pathmc_algorithm pathlg --mca coll_pathmc_fallback error \
        --mca coll_pathmc_topology_file "$topo" --mca coll_pathmc_verbose 1 \
        "$OSU" -c -m 1:"$M" -i 5 -x 1 -r rotate >"$WORK/pathlg.out" 2>&1 &&
        grep -q "^coll:pathmc: comm=0 size=$N .*algorithm=pathlg" "$WORK/pathlg.out"; then
        ok "pathlg (worms rendered as chains) on the topology file: data validated on $N hosts, 1..$M B, rotating roots"
    else
        bad "pathlg on the topology file"; grep -v "^coll:pathmc: comm=[0-9]* size" "$WORK/pathlg.out" | tail -10
    fi
fi

# ---- mcast-calibrate across two emulated hosts: a machine file the components read
CAL=$TOP/contrib/mcast-calibrate/mcast-calibrate
if [ -n "$COMP" ] && [ -x "$CAL" ]; then
    # shellcheck disable=SC2086
    if "$CLUSTER" run -- -np 2 $STOCKGUARD "$CAL" --quick --out "$WORK/cal.machine" >"$WORK/cal.out" 2>&1 &&
        grep -q '^provenance .*net=measured' "$WORK/cal.machine"; then
        # the links are shaped to 1 Gbit/s (8 ns per byte): the per-byte cost of a transfer
        # (wire + receiver) must say so within TCP's overheads
        perbyte=$(awk '$1 == "net.wire_ns_per_byte" || $1 == "net.recv_ns_per_byte" { s += $2 } END { print s + 0 }' "$WORK/cal.machine")
        if awk -v b="$perbyte" 'BEGIN { exit !(b >= 6 && b <= 30) }'; then
            ok "mcast-calibrate on 2 hosts: net per-byte cost $perbyte ns/B at 1 Gbit/s ($(grep '^net:' "$WORK/cal.out" | head -1))"
        else
            bad "mcast-calibrate on 2 hosts: net per-byte cost $perbyte ns/B, expected 6-30 at 1 Gbit/s"; cat "$WORK/cal.out"
        fi
        # a TCP connection is FIFO: its four messages in flight arrive one after the other
        if grep -q '^net.shared_flows 0$' "$WORK/cal.machine"; then
            ok "mcast-calibrate on 2 hosts: net.shared_flows 0 (a TCP connection is FIFO)"
        else
            bad "mcast-calibrate on 2 hosts: expected net.shared_flows 0 over TCP"; grep '^net' "$WORK/cal.out"
        fi
        # the components read it (a file they reject is reported on stderr)
        # shellcheck disable=SC2046
        if "$CLUSTER" run -- -np "$N" --mca mca_base_component_path "$COMP:$PKGLIB" \
            --mca coll_kbinomial_machine_file "$WORK/cal.machine" --mca coll_kbinomial_verbose 1 \
            "$OSU" -c -m 1:"$M" -i 5 -x 1 >"$WORK/calrun.out" 2>&1 &&
            ! grep -q "machine file not used" "$WORK/calrun.out" &&
            grep -q "^coll:kbinomial: comm=0 size=$N " "$WORK/calrun.out"; then
            ok "the calibrated machine file drives auto on $N hosts (data validated, 1..$M B)"
        else
            bad "auto with the calibrated machine file"; grep -v "^coll:" "$WORK/calrun.out" | tail -10
        fi
        # each forced algorithm over TCP plans with the measured file, delivers the data
        # and takes at most PRED_MAX times its prediction (256 KiB - 1 MiB; issue 48's
        # regression row): the slowest rank's mean per call (OSU's method, a barrier
        # between calls) against the plan line's predicted_us, the least over the three
        # sizes (a stall the model does not know, a wait per block or per call, slows
        # every size; one size slowed by another tenant's burst on a shared machine does
        # not fail it), and above the bound the algorithm runs once more.  What it bounds
        # stays under 3x on quiet hosts and with a core busy (E-TCP-4); the closer fit is
        # a benchmark: perf/tcp-model-check.
        PRED_MAX=${MCQ_TEST_PRED_MAX:-3}
        for alg in $ALGS; do
            [ "$alg" = auto ] && continue
            r="" tries=0
            while [ $tries -lt 2 ]; do
                tries=$((tries + 1))
                # stdout (the rows) and stderr (the plan lines) into separate files: mpirun
                # may interleave the two streams of several ranks in one file
                # shellcheck disable=SC2046
                if ! "$CLUSTER" run -- -np "$N" $(ours "$alg") --mca coll_kbinomial_verbose 1 \
                    --mca coll_kbinomial_machine_file "$WORK/cal.machine" \
                    "$OSU" -c -m 262144:1048576 -i 4 -I 4 -x 1 -X 1 -M osu >"$WORK/pred.out" 2>"$WORK/pred.err"; then
                    r=failed; break
                fi
                # sizes whose row is in stdout and whose plan line (algorithm=$alg with a
                # prediction) is in stderr, and the least of their slowest rank / predicted;
                # the detail names what each file had
                r=$(awk -v alg="$alg" '{ f = (FILENAME == ARGV[1]) ? 1 : 2 }
                         f == 1 && /^coll:kbinomial: comm=0 / {
                             b = ""; p = ""; a = ""
                             for (i = 1; i <= NF; i++) {
                                 if ($i ~ /^bytes=/) b = substr($i, 7)
                                 if ($i ~ /^predicted_us=/) p = substr($i, 14)
                                 if ($i ~ /^algorithm=/) a = substr($i, 11)
                             }
                             lines = lines " " b "/" a "/" p
                             if (b != "" && p + 0 > 0 && a == alg && !(b in pred)) pred[b] = p
                         }
                         f == 2 && $1 ~ /^[0-9]+$/ && NF >= 4 {
                             rows = rows " " $1
                             if ($1 in pred) { q[n++] = $4 / pred[$1]; ratios = ratios sprintf(" %s:%.2f", $1, $4 / pred[$1]) }
                         }
                         END {
                             for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (q[j] < q[i]) { t = q[i]; q[i] = q[j]; q[j] = t }
                             printf "%d %.2f (slowest rank / predicted:%s; plan lines bytes/algorithm/prediction:%s; rows:%s)",
                                    n, n ? q[0] : 0, ratios, lines, rows }' \
                         "$WORK/pred.err" "$WORK/pred.out")
                med=$(echo "$r" | cut -d' ' -f2)
                awk -v m="$med" -v b="$PRED_MAX" 'BEGIN { exit !(m > b) }' || break
            done
            if [ "$r" = failed ]; then
                bad "forced $alg over TCP with the calibrated file: osu_style_bcast failed"; tail -5 "$WORK/pred.out" "$WORK/pred.err"
            elif [ "${r%% *}" != 3 ] || grep -q "machine file not used" "$WORK/pred.err"; then
                bad "forced $alg over TCP: ${r%% *} of 3 sizes with a plan line of algorithm=$alg and a prediction ${r#* }"
                grep '^coll:kbinomial: comm=0 ' "$WORK/pred.err" | head -3; grep -v '^coll:' "$WORK/pred.err" | tail -5
            elif awk -v m="$med" -v b="$PRED_MAX" 'BEGIN { exit !(m <= b) }'; then
                ok "forced $alg over TCP with the calibrated file: data validated, slowest rank / predicted at least $med <= $PRED_MAX at 256 KiB - 1 MiB ($(echo "$r" | sed 's/^[^(]*(\([^;]*\);.*/\1/'), run $tries)"
            else
                bad "forced $alg over TCP: slowest rank at least $med x its prediction (256 KiB - 1 MiB, twice), more than $PRED_MAX: ${r#* }"
            fi
        done
    else
        bad "mcast-calibrate on 2 hosts"; tail -10 "$WORK/cal.out"; cat "$WORK/cal.machine" 2>/dev/null
    fi
fi

# What self-calibration may measure on the 1 Gbit/s links: not what ping-pongs inside the
# token bucket's burst or unshaped hosts give (below 1 ns/B), not absurdly slow; loose
# both ways, as the probe is noisy with other work on the host (E-CAL-3 (9)) and a busy
# host's TCP is slower than its link.
SELFCAL_MIN=2 SELFCAL_MAX=400
SELFCAL_NS_PER_BYTE="$SELFCAL_MIN-$SELFCAL_MAX"
selfcal_plausible() { awk -v b="${1:-0}" -v lo=$SELFCAL_MIN -v hi=$SELFCAL_MAX 'BEGIN { exit !(b >= lo && b <= hi) }'; }
# The probe refuses a fit its own repetitions contradict (a busy host: E-CAL-3 (11)); CI's
# machine is busy, so a refused measurement is run again, up to SELFCAL_TRIES times in
# all: selfcal_try OUT CMD... runs CMD >OUT 2>&1 until OUT has no refusal (TRIES: how
# many runs), CMD's status.
SELFCAL_TRIES=3
SELFCAL_REFUSED="too noisy to fit|the time did not grow with the bytes"
selfcal_try() {
    local out=$1 rc=0
    shift
    for TRIES in $(seq $SELFCAL_TRIES); do
        "$@" >"$out" 2>&1
        rc=$?
        grep -qE "$SELFCAL_REFUSED" "$out" || break
    done
    return $rc
}
# selfcal_noise OUT WHAT: after selfcal_try, OUT still says the measurement was refused as
# noise (every run of it) and nothing was measured: what the check needs did not happen,
# so it did not run (counted as such, with the refusal, never as passed); status 0 then,
# else 1
selfcal_noise() {
    grep -qE "$SELFCAL_REFUSED" "$1" && ! grep -q "self-calibrated" "$1" || return 1
    notrun=$((notrun + 1))
    echo "SKIP: $2: each of $SELFCAL_TRIES runs refused its measurement as noise (the machine is too busy to measure): $(grep -m1 -E "$SELFCAL_REFUSED" "$1" | cut -c1-240)"
}

# ---- self-calibration (coll_kbinomial_self_calibrate, mcast_calib.h): no machine file,
# auto over TCP measures the network at a communicator's first blocking MPI_Bcast of at
# least coll_kbinomial_self_calibrate_from bytes (SELFCAL_FROM, its default), every rank
# plans the size classes from there on with what was measured (their plan lines leave the
# built-in rule for TCP: no selected_by=unmodelled), the smaller ones keep the rule (and
# were decided before the measurement), and the data is right
SELFCAL_FROM=65536
class_of() { sed -n 's/.* class_bytes=\([0-9]*\).*/\1/p'; }
if [ -n "$COMP" ]; then
    if selfcal_try "$WORK/self.err" "$CLUSTER" run -- -np "$N" --mca mca_base_component_path "$COMP:$PKGLIB" \
        --mca coll_kbinomial_self_calibrate 1 --mca coll_kbinomial_verbose 1 \
        "$OSU" -c -m 1:"$M" -i 5 -x 1; then
        line=$(grep -m1 "^coll:kbinomial: comm=0 size=$N: self-calibrated" "$WORK/self.err")
        # the links are shaped to 1 Gbit/s (8 ns per byte): within SELFCAL_NS_PER_BYTE
        perbyte=$(echo "$line" | sed -n 's/.* \([0-9.]*\) ns\/B.*/\1/p')
        if selfcal_noise "$WORK/self.err" "self-calibration on $N hosts"; then
            :
        elif [ -z "$line" ]; then
            bad "self-calibration on $N hosts ($TRIES runs): no verbose line saying what was measured"; grep -v ' algorithm=' "$WORK/self.err" | head -5
        elif ! selfcal_plausible "$perbyte"; then
            bad "self-calibration on $N hosts: per-byte cost ${perbyte:-none} ns/B, expected $SELFCAL_NS_PER_BYTE at 1 Gbit/s: $line"
        elif [ -n "$(grep "^coll:kbinomial: comm=0 .*selected_by=[a-z:]*unmodelled" "$WORK/self.err" | class_of | awk -v f=$SELFCAL_FROM '$1 >= f')" ]; then
            bad "self-calibration on $N hosts: a plan line from $SELFCAL_FROM B still says unmodelled"; grep -m3 unmodelled "$WORK/self.err"
        elif [ -n "$(grep "^coll:kbinomial: comm=0 .*selected_by=" "$WORK/self.err" | grep -v unmodelled | class_of | awk -v f=$SELFCAL_FROM '$1 < f')" ]; then
            bad "self-calibration on $N hosts: a class below $SELFCAL_FROM B planned on the measured model"; grep "selected_by=" "$WORK/self.err" | head -5
        elif [ "$(grep -n -m1 "self-calibrated" "$WORK/self.err" | cut -d: -f1)" -lt \
               "$(grep -n "class_bytes=$((SELFCAL_FROM / 2))[^0-9]" "$WORK/self.err" | tail -1 | cut -d: -f1)" ]; then
            bad "self-calibration on $N hosts: measured before the first call of $SELFCAL_FROM B"; grep "self-calib\|class_bytes=$((SELFCAL_FROM / 2))[^0-9]" "$WORK/self.err" | head -4
        else
            ok "self-calibration on $N hosts: data validated 1..$M B; ${line#coll:kbinomial: comm=0 } (run $TRIES)"
        fi
    else
        bad "self-calibration on $N hosts: osu_style_bcast failed"; tail -5 "$WORK/self.err"
    fi
    # with a topology file of two switches (the topology file row's): the probe adds its
    # route latency's pairs (mcast_probe_pairs_routed) and says what they gave: a latency
    # per link, or none (here every pair's route has the same links, so none); then its
    # switch links' pairs, streaming at once across the link between the switches (one
    # host of each switch's per pair: N / 2 of them, at most 8; none under 4 hosts), and
    # what they gave; then the host links' (the first host to 2 or 4 others, E-HOST-1)
    # and what they gave; the data is right
    if [ -f "$WORK/net.topo" ]; then
        if selfcal_try "$WORK/selftopo.err" "$CLUSTER" run -- -np "$N" --mca mca_base_component_path "$COMP:$PKGLIB" \
            --mca coll_kbinomial_self_calibrate 1 --mca coll_kbinomial_verbose 1 \
            --mca coll_kbinomial_topology_file "$WORK/net.topo" "$OSU" -c -m 65536:65536 -i 3 -x 1; then
            line=$(grep -m1 "^coll:kbinomial: comm=0 size=$N: self-calibrated" "$WORK/selftopo.err")
            trunks=$(( N / 2 > 8 ? 8 : N / 2 ))
            if selfcal_noise "$WORK/selftopo.err" "self-calibration with a topology file on $N hosts"; then
                :
            elif ! echo "$line" | grep -qE " us per link \(at [0-9.]+ links\)|no latency per link stood out \([1-9][0-9]* pairs? more\)"; then
                bad "self-calibration with a topology file on $N hosts: no route latency pairs in '${line:-no verbose line}'"
            elif [ "$N" -ge 4 ] && ! echo "$line" | grep -qE "(switch links [0-9.]+x|no switch links) \($trunks streams at once"; then
                bad "self-calibration with a topology file on $N hosts: no $trunks switch links' streams in '$line'"
            elif ! echo "$line" | grep -qE "(host links [0-9.]+x|no host links) \([24] streams from one host"; then
                bad "self-calibration with a topology file on $N hosts: no host links' streams in '$line'"
            else
                ok "self-calibration with a topology file on $N hosts: data validated; ${line#coll:kbinomial: comm=0 } (run $TRIES)"
            fi
        else
            bad "self-calibration with a topology file on $N hosts: osu_style_bcast failed"; tail -5 "$WORK/selftopo.err"
        fi
        # coll/pathmc given the same file measures too (E-SIM-5: its plans priced with the
        # network's numbers; coll/kbinomial's parameters): its own verbose line, once, at
        # the first call from SELFCAL_FROM; fitted, its plan lines from there leave the TCP
        # rule; the data is right
        if selfcal_try "$WORK/selfpm.err" "$CLUSTER" run -- -np "$N" --mca mca_base_component_path "$COMP:$PKGLIB" \
            --mca coll_pathmc_verbose 1 --mca coll_pathmc_topology_file "$WORK/net.topo" \
            "$OSU" -c -m 1:$((2 * SELFCAL_FROM)) -i 3 -x 1; then
            lines=$(grep -c "^coll:pathmc: comm=0 size=$N: self-calibrat" "$WORK/selfpm.err")
            line=$(grep -m1 "^coll:pathmc: comm=0 size=$N: self-calibrat" "$WORK/selfpm.err")
            first=$(grep -n -m1 "^coll:pathmc: comm=0 size=$N: self-calibrat" "$WORK/selfpm.err" | cut -d: -f1)
            below=$(grep -n "^coll:pathmc: comm=0 .*class_bytes=$((SELFCAL_FROM / 2))[^0-9]" "$WORK/selfpm.err" | tail -1 | cut -d: -f1)
            if [ "$lines" != 1 ]; then
                bad "coll/pathmc's self-calibration on $N hosts: $lines verbose lines of it (1 expected)"; grep -v ' algorithm=' "$WORK/selfpm.err" | head -5
            elif [ -z "$below" ] || [ "$first" -lt "$below" ]; then
                bad "coll/pathmc's self-calibration on $N hosts: not at the first call of $SELFCAL_FROM B (line $first, the last $((SELFCAL_FROM / 2)) B line ${below:-none})"
            elif echo "$line" | grep -q "self-calibrated" &&
                [ -n "$(grep "^coll:pathmc: comm=0 .*selected_by=[a-z:]*unmodelled" "$WORK/selfpm.err" | class_of | awk -v f=$SELFCAL_FROM '$1 >= f')" ]; then
                bad "coll/pathmc's self-calibration on $N hosts: fitted, but a plan line from $SELFCAL_FROM B still says unmodelled"; grep -m3 unmodelled "$WORK/selfpm.err"
            else
                ok "coll/pathmc's self-calibration on $N hosts: data validated 1..$((2 * SELFCAL_FROM)) B; ${line#coll:pathmc: comm=0 } (run $TRIES)"
            fi
        else
            bad "coll/pathmc's self-calibration on $N hosts: osu_style_bcast failed"; tail -5 "$WORK/selfpm.err"
        fi
    fi
    # the same measurement kept as a machine file (mcast-calibrate --probe runs the core's
    # method over MPI): net keys from it, the file read by the components
    if [ -x "$CAL" ] && selfcal_try "$WORK/probe.out" "$CLUSTER" run -- -np "$N" $STOCKGUARD "$CAL" --probe --out "$WORK/probe.machine" \
        && grep -q '^provenance mcast-calibrate --probe: self-calibrated' "$WORK/probe.machine"; then
        perbyte=$(awk '$1 == "net.wire_ns_per_byte" { print $2 }' "$WORK/probe.machine")
        if selfcal_plausible "$perbyte" &&
            "$CLUSTER" run -- -np "$N" --mca mca_base_component_path "$COMP:$PKGLIB" \
                --mca coll_kbinomial_machine_file "$WORK/probe.machine" --mca coll_kbinomial_verbose 1 \
                "$OSU" -c -m 1:65536 -i 3 -x 1 >"$WORK/proberun.out" 2>&1 &&
            ! grep -q "machine file not used" "$WORK/proberun.out"; then
            ok "mcast-calibrate --probe on $N hosts: a machine file of what self-calibration measures ($(head -1 "$WORK/probe.out"); run $TRIES), read by the components"
        else
            bad "mcast-calibrate --probe: per-byte ${perbyte:-none} ns/B ($SELFCAL_NS_PER_BYTE expected) or the file not read"; tail -5 "$WORK/proberun.out" 2>/dev/null
        fi
    elif [ -x "$CAL" ] && selfcal_noise "$WORK/probe.out" "mcast-calibrate --probe on $N hosts"; then
        :
    else
        bad "mcast-calibrate --probe on $N hosts"; tail -5 "$WORK/probe.out"
    fi
    # bcast_check's communicators on 2N - 1 ranks: world measures at its first call
    # (blocking), the others (reversed, the odd/even halves, a dup) take the job's model
    # from the exchange without measuring, and the datatype matrix is right; with
    # MPI_Ibcast first (-n) nothing is measured (a nonblocking call never waits for a
    # probe), nothing reused, and the data is right too
    if [ -n "$BCHECK" ]; then
        for mode in "" -n; do
            if selfcal_try "$WORK/selfbc.out" "$CLUSTER" run -- -np $((2 * N - 1)) --mca mca_base_component_path "$COMP:$PKGLIB" \
                --mca coll_kbinomial_self_calibrate 1 --mca coll_kbinomial_verbose 1 \
                "$BCHECK" -l 100000 $mode &&
                grep -q "bcast_check: .* 0 failures" "$WORK/selfbc.out"; then
                k=$(grep -c "^coll:kbinomial: comm=[0-9]* size=[0-9]*: self-calibrated" "$WORK/selfbc.out")
                u=$(grep -c "^coll:kbinomial: comm=[0-9]* size=[0-9]*: the job's model, measured on an earlier" "$WORK/selfbc.out")
                if [ -z "$mode" ] && selfcal_noise "$WORK/selfbc.out" "self-calibration, bcast_check on $((2 * N - 1)) ranks"; then
                    :
                elif { [ -z "$mode" ] && [ "$k" = 1 ] && [ "$u" -ge 3 ]; } ||
                    { [ -n "$mode" ] && [ "$k" = 0 ] && [ "$u" = 0 ]; }; then
                    ok "self-calibration, bcast_check $mode on $((2 * N - 1)) ranks: $(grep -o '[0-9]* cases, 0 failures' "$WORK/selfbc.out"), $k communicator measured, $u took the job's model (run $TRIES)"
                else
                    bad "self-calibration, bcast_check $mode: $k communicators measured, $u took the job's model"; grep "self-calib\|job's model" "$WORK/selfbc.out" | head -8
                fi
            else
                bad "self-calibration, bcast_check $mode on $((2 * N - 1)) ranks"; grep -v '^coll:' "$WORK/selfbc.out" | tail -10
            fi
        done
    fi
    # over UCX (pml ucx on the hosts' TCP: contrib/cluster/mpirun-ucx) the network is not the TCP
    # BTL's, and without a machine file the components measure it too (E-SIM-4): a verbose
    # line of what was measured, every size class from SELFCAL_FROM predicted with its
    # per-byte cost (at least half of class_bytes x that cost: the root sends the bytes
    # at least once; the built-in model's InfiniBand-class link predicts about a hundredth),
    # the smaller ones with the built-in model, the data right
    if ompi_info 2>/dev/null | grep -q "MCA pml: ucx"; then
        if MPIRUN_UCX=${MCAST_MPIRUN:-mpirun} MCAST_MPIRUN="$TOP/contrib/cluster/mpirun-ucx" selfcal_try "$WORK/selfucx.err" \
            "$CLUSTER" run -- -np "$N" --mca mca_base_component_path "$COMP:$PKGLIB" \
            --mca coll_kbinomial_verbose 1 "$OSU" -c -m 1:1048576 -i 3 -x 1; then
            line=$(grep -m1 "^coll:kbinomial: comm=0 size=$N: self-calibrated" "$WORK/selfucx.err")
            perbyte=$(echo "$line" | sed -n 's/.* \([0-9.]*\) ns\/B.*/\1/p')
            # plan lines from SELFCAL_FROM: "class_bytes predicted_us"; those under half
            # of class_bytes x the measured per-byte cost
            low=$(grep "^coll:kbinomial: comm=0 size=$N root=0 .*class_bytes=" "$WORK/selfucx.err" |
                  sed -n 's/.* predicted_us=\([0-9.]*\) class_bytes=\([0-9]*\).*/\2 \1/p' |
                  awk -v f=$SELFCAL_FROM -v g="${perbyte:-0}" '$1 >= f { n++; if ($2 < 0.5 * $1 * g / 1000) low = low " " $1 "B:" $2 "us" }
                                                            END { print n + 0, low }')
            if selfcal_noise "$WORK/selfucx.err" "self-calibration over pml ucx on $N hosts"; then
                :
            elif [ -z "$line" ]; then
                bad "self-calibration over pml ucx on $N hosts ($TRIES runs): no verbose line saying what was measured"; grep -v ' algorithm=' "$WORK/selfucx.err" | head -5
            elif ! selfcal_plausible "$perbyte"; then
                bad "self-calibration over pml ucx on $N hosts: per-byte cost ${perbyte:-none} ns/B, expected $SELFCAL_NS_PER_BYTE: $line"
            elif [ "${low%% *}" -lt 5 ] || [ -n "${low#* }" ]; then
                bad "self-calibration over pml ucx on $N hosts: of ${low%% *} plan lines from $SELFCAL_FROM B (5 expected) these predict less than half of the bytes at $perbyte ns/B:${low#* }"
            else
                ok "self-calibration over pml ucx on $N hosts: data validated 1..1048576 B, the ${low%% *} classes from $SELFCAL_FROM B planned with ${line#coll:kbinomial: comm=0 } (run $TRIES)"
            fi
        else
            bad "self-calibration over pml ucx on $N hosts: osu_style_bcast failed"; grep -v '^coll:' "$WORK/selfucx.err" | tail -8
        fi
    else
        notrun=$((notrun + 1)); echo "SKIP: self-calibration over pml ucx: this Open MPI has no pml ucx"
    fi
fi

echo "$pass passed, $fail failed, $notrun did not run"
[ "$fail" = 0 ]
