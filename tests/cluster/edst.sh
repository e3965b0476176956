#!/bin/bash
# tests/cluster/edst.sh -- pathmc's edst (four arc-disjoint spanning trees of a 2D torus)
# across 9 emulated hosts (contrib/cluster/cluster, network namespaces, unshaped), a 3 x 3
# torus given by a coordinates file, one rank per host:
#   1. coll_pathmc_sync_sends 1: every block a synchronous send (MCAST_XF_SYNC through the
#      PML): bcast_check -c -t (MPI_Bcast) and -n (MPI_Ibcast), 2 KiB blocks, every
#      datatype and root, data checked on every rank; the plan lines say edst with
#      sends=sync (communicators that are not the whole torus go to the module below:
#      fallback silent);
#   2. coll_pathmc_sync_sends 0: the same MPI_Bcast run with standard sends, no plan line
#      with sends=sync.
# On one node the planner never sends synchronously (a communicator of one node is
# all-local), so only a cluster of hosts exercises the synchronous path.
#
#   MCAST_COMPONENT_DIR=/work/main/ompi/.libs tests/cluster/edst.sh
#
# Environment: MCAST_COMPONENT_DIR (unset: skip, exit 77), MCAST_MPICC (mpicc),
# MCQ_PREFIX (mcqe), MCQ_TIMEOUT (240 s per mpirun).
# Exit: 0 all passed, 1 a failure, 77 skipped. Last line: "N passed, M failed".
# SPDX-License-Identifier: BSD-3-Clause
set -u
set -o pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLUSTER=$TOP/contrib/cluster/cluster
COMP=${MCAST_COMPONENT_DIR:-}
MPICC=${MCAST_MPICC:-mpicc}
export MCQ_PREFIX=${MCQ_PREFIX:-mcqe}
export MCQ_TIMEOUT=${MCQ_TIMEOUT:-240}
export MCQ_QUIET=1
N=9

pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
skip() { echo "SKIP: $*"; echo "0 passed, 0 failed"; exit 77; }

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
command -v mpirun >/dev/null || skip "mpirun not found"
[ -n "$COMP" ] || skip "MCAST_COMPONENT_DIR not set (dir with mca_coll_pathmc.so)"
if [ ! -f "$COMP/mca_coll_pathmc.so" ]; then
    echo "FAIL: MCAST_COMPONENT_DIR=$COMP has no mca_coll_pathmc.so"
    echo "0 passed, 1 failed"
    exit 1
fi

WORK=$(mktemp -d /tmp/mcq-edst-test.XXXXXX)
cleanup() { "$CLUSTER" down >/dev/null 2>&1; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

BCHECK=$WORK/bcast_check
"$MPICC" -O2 -o "$BCHECK" "$TOP/tests/mpi/bcast_check.c" ||
    { echo "FAIL: cannot build bcast_check"; echo "0 passed, 1 failed"; exit 1; }
PKGLIB=$(ompi_info --path pkglibdir --parsable 2>/dev/null | sed -n 's/^path:pkglibdir://p')
PKGLIB=${PKGLIB:-/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3}

"$CLUSTER" up "$N" --no-shape || { echo "FAIL: cluster up $N"; echo "0 passed, 1 failed"; exit 1; }
# the emulated hosts' names are <prefix>-h<i>; --map-by node puts rank i on host i
{
    echo "torus 3x3"
    for i in $(seq 0 $((N - 1))); do echo "host ${MCQ_PREFIX}-h$i $((i % 3)) $((i / 3))"; done
} >"$WORK/coords"

run_check() { # label sync extra-bcast_check-flags...
    local label=$1 sync=$2
    shift 2
    "$CLUSTER" run -- -np "$N" --mca mca_base_component_path "$COMP:$PKGLIB" \
        --mca coll_pathmc_verbose 1 --mca coll_kbinomial_compare_previous 0 \
        --mca coll_pathmc_algorithm edst --mca coll_pathmc_coords_file "$WORK/coords" \
        --mca coll_pathmc_segment_bytes 2048 --mca coll_pathmc_sync_sends "$sync" \
        "$BCHECK" -c -t "$@" -l 20000 >"$WORK/out" 2>"$WORK/err"
    local rc=$?
    local summary nsync nedst
    summary=$(grep -h "cases, 0 failures" "$WORK/out" | head -1)
    nedst=$(grep -c "^coll:pathmc: .*algorithm=edst" "$WORK/err")
    nsync=$(grep -c "^coll:pathmc: .*algorithm=edst.* sends=sync" "$WORK/err")
    if [ $rc -ne 0 ] || [ -z "$summary" ]; then
        bad "$label: exit $rc"
        { tail -5 "$WORK/out"; grep -v "^coll:" "$WORK/err" | tail -8; } | sed 's/^/    /'
    elif [ "$nedst" -eq 0 ]; then
        bad "$label: no plan line with algorithm=edst (coll/pathmc did not serve)"
    elif [ "$sync" = 1 ] && [ "$nsync" -ne "$nedst" ]; then
        bad "$label: $nsync of $nedst edst plan lines with sends=sync"
    elif [ "$sync" = 0 ] && [ "$nsync" -ne 0 ]; then
        bad "$label: $nsync edst plan lines with sends=sync under sync_sends 0"
    else
        ok "$label: $summary ($nedst edst plans, $nsync with sends=sync)"
    fi
}

run_check "edst sync_sends=1 MPI_Bcast" 1
run_check "edst sync_sends=1 MPI_Ibcast" 1 -n
run_check "edst sync_sends=0 MPI_Bcast" 0

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
