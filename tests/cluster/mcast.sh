#!/bin/bash
# tests/cluster/mcast.sh -- the IP multicast transport (ompi/mca/common/mcast/mcast_udp.h,
# driven directly by tests/mpi/mcast_udp_check) across emulated hosts with real IP
# multicast through the bridge and random loss of multicast packets per switch port
# (contrib/cluster/cluster up --mcast-loss: a tc bpf program).
#
#   1. 4 hosts, 5 % loss, every root, 1 B..4 MB, while a fifth host injects foreign
#      datagrams into the group (another job, another communicator, stale and far epochs,
#      corrupted CRC, truncated): data intact on every rank, each class dropped and counted;
#   2. N hosts (8), 20 % loss, rotating roots, 1 B..16 MiB, and the two halves of the
#      communicator broadcasting at the same time on their own groups;
#   3. N hosts, 1 % loss, every root, 1 B..1 MB;
#   4. loss-free: root uplink bytes per 4 MiB bcast (the root's tx_bytes) <= 1.065 x M
#      (the MTU-1500 floor is 1514/1432 = 1.0573) on 2, 4 and N hosts, and the same on
#      each (spread < 0.5 %);
#   5. the product: MPI_Bcast through coll/pathmc with `coll_pathmc_algorithm mcast`,
#      `coll_pathmc_mcast_transport ip`, fallback error, 4 hosts at 5 % loss: the datatype
#      matrix of tests/mpi/bcast_check (every root, non-contiguous types) and
#      osu_style_bcast -c (rotating roots, 1 B..4 MiB); the plan line says transport=ip.
#
# Environment: MCQ_MCAST_HOSTS (8), MCQ_PREFIX (mcqm), MCQ_TIMEOUT (240 s per mpirun),
# MCAST_BUILD_DIR (the build tree with tests/mpi/mcast_udp_check).  Needs root, clang
# (the bpf program), else skips (77).  Last line: "N passed, M failed".
# SPDX-License-Identifier: BSD-3-Clause
set -u
set -o pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${MCAST_BUILD_DIR:-$TOP}
CLUSTER=$TOP/contrib/cluster/cluster
CHECK=$BUILD/tests/mpi/mcast_udp_check
INJECT=$BUILD/tests/mpi/mcast_inject
N=${MCQ_MCAST_HOSTS:-8}
export MCQ_PREFIX=${MCQ_PREFIX:-mcqm}
export MCQ_TIMEOUT=${MCQ_TIMEOUT:-240}
export MCQ_QUIET=1
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
skip() { echo "SKIP: $*"; echo "0 passed, 0 failed"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
command -v mpirun >/dev/null || skip "mpirun not found"
command -v clang >/dev/null || skip "clang not found (the multicast loss program; apt-get install clang)"
for p in "$CHECK" "$INJECT"; do
    [ -x "$p" ] || { echo "FAIL: $p not built (make -C tests/mpi check builds it)"; echo "0 passed, 1 failed"; exit 1; }
done
WORK=$(mktemp -d /tmp/mcqm-test.XXXXXX)
cleanup() { "$CLUSTER" down >/dev/null 2>&1; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
start=$SECONDS

"$CLUSTER" up $((N + 1)) --mcast-loss 5 || { echo "FAIL: cluster up"; echo "0 passed, 1 failed"; exit 1; }
drops() { "$CLUSTER" mcast-drops | awk 'NR > 1 { s += $2 } END { print s + 0 }'; }

check() { # label expect-regex np args...
    local label=$1 re=$2 np=$3; shift 3
    local d0; d0=$(drops)
    if "$CLUSTER" run -- -np "$np" "$CHECK" "$@" >"$WORK/out" 2>&1 && grep -Eq "$re" "$WORK/out"; then
        ok "$label: $(grep -E "$re" "$WORK/out" | tail -1 | sed 's/^mcast_udp_check: //'); $(( $(drops) - d0 )) multicast packets dropped by the loss program"
        grep -E "counters:" "$WORK/out" | sed 's/^mcast_udp_check: /      /'
    else
        bad "$label"; tail -20 "$WORK/out"
    fi
}

# 1. foreign sender on host N while 4 hosts broadcast at 5 % loss
rm -f "$WORK"/ident*
"$CLUSTER" exec "$N" -- "$INJECT" "$WORK/ident" --rate 3000 --timeout 120 --interface eth0 >"$WORK/inject" 2>&1 &
injector=$!
check "4 hosts, 5% loss, every root, 1 B..4 MB, foreign sender" \
    "^mcast_udp_check: ok .*foreign datagrams dropped and counted" 4 \
    --roots all --sizes 1,1433,65536,1000000,4M --ident-file "$WORK/ident" --wait-injector 60 --expect-foreign
wait "$injector"
sed 's/^/      /' "$WORK/inject"

# 2. N hosts, 20 % loss, two communicators at once
"$CLUSTER" mcast-loss 20
check "$N hosts, 20% loss, rotating roots, 1 B..16 MiB, split halves at once" "^mcast_udp_check: ok" "$N" \
    --roots rotate --sizes 1,1433,65536,1000000,16M --split

# 3. N hosts, 1 % loss, every root
"$CLUSTER" mcast-loss 1
check "$N hosts, 1% loss, every root, 1 B..1 MB" "^mcast_udp_check: ok" "$N" --roots all --sizes 1,65536,1000000

# 4. root uplink bytes per bcast, loss-free, 2 / 4 / N hosts
"$CLUSTER" mcast-loss 0
ratios=""
for np in 2 4 "$N"; do
    if "$CLUSTER" run -- -np "$np" "$CHECK" --sizes 1 --time 4M --reps 3 --counter eth0 >"$WORK/out" 2>&1 &&
        grep -q "^mcast_udp_check: ok" "$WORK/out"; then
        r=$(sed -n 's/^mcast_udp_check: root uplink \([0-9.]*\) x M.*/\1/p' "$WORK/out")
        ratios="$ratios $r"
        if awk -v r="$r" 'BEGIN { exit !(r > 0 && r <= 1.065) }'; then
            ok "$np hosts: root uplink $r x M per 4 MiB bcast (floor 1514/1432 = 1.0573 at MTU 1500)"
        else
            bad "$np hosts: root uplink $r x M per 4 MiB bcast, expected <= 1.065"
        fi
    else
        bad "$np hosts: uplink run"; tail -20 "$WORK/out"
    fi
done
if [ "$(echo $ratios | wc -w)" = 3 ] &&
    echo $ratios | awk '{ lo = hi = $1; for (i = 2; i <= NF; i++) { lo = $i < lo ? $i : lo; hi = $i > hi ? $i : hi } exit !(hi - lo < 0.005) }'; then
    ok "root uplink independent of the number of hosts:$ratios"
else
    bad "root uplink depends on the number of hosts:$ratios"
fi
# 5. the product: MPI_Bcast through coll/pathmc on the multicast group
"$CLUSTER" mcast-loss 5
PKGLIB=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
OURS=(--mca mca_base_component_path "$BUILD/ompi/.libs:$PKGLIB" --mca coll_pathmc_algorithm mcast
      --mca coll_pathmc_fallback error --mca coll_pathmc_mcast_transport ip
      --mca coll_pathmc_mcast_interface eth0 --mca coll_pathmc_verbose 1)
for prog in "$BUILD/tests/mpi/bcast_check -l 200000" "$BUILD/perf/osu_style_bcast -c -m 1:4194304 -i 3 -x 1 -r rotate"; do
    set -- $prog
    [ -x "$1" ] || { bad "$1 not built"; continue; }
    if "$CLUSTER" run -- -np 4 "${OURS[@]}" "$@" >"$WORK/out" 2>&1 &&
        grep -q "^coll:pathmc: comm=0 size=4 .*algorithm=mcast .*transport=ip" "$WORK/out" &&
        { [ "$(basename "$1")" != bcast_check ] || grep -q "np=4 .* 0 failures" "$WORK/out"; }; then
        ok "MPI_Bcast via coll/pathmc mcast over IP, 4 hosts, 5% loss: $(basename "$1") data checked ($(grep -m1 -o 'MPI_Bcast [0-9]* cases, 0 failures' "$WORK/out" || echo "1 B..4 MiB, rotating roots"))"
    else
        bad "MPI_Bcast via coll/pathmc mcast: $(basename "$1")"; grep -v "^coll:pathmc: comm=[0-9]* size" "$WORK/out" | tail -15
    fi
done
set --
echo "elapsed $((SECONDS - start)) s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
