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
#   4. loss-free: root uplink bytes per 4 MiB bcast (the root's tx_bytes) <= 1.085 x M
#      (the MTU-1500 floor is 1514/1404 = 1.0783: 40 bytes of header and 28 of
#      authentication per datagram) on 2, 4 and N hosts, and the same on each (spread
#      < 0.5 %);
#   5. the product: MPI_Bcast through coll/pathmc with `coll_pathmc_algorithm mcast`,
#      `coll_pathmc_mcast_transport ip`, fallback error, 4 hosts at 5 % loss: the datatype
#      matrix of tests/mpi/bcast_check (every root, non-contiguous types) and
#      osu_style_bcast -c (rotating roots, 1 B..4 MiB); the plan line says transport=ip;
#      and MPI_Ibcast over the same group (the communicator's first call an Ibcast: the
#      group opens from the progress engine), at 0 % and 5 % loss: the datatype matrix
#      with 4 Ibcasts outstanding completed out of order (bcast_check -n -k 4: every root,
#      contiguous and non-contiguous types) and osu_style_ibcast -c; every Ibcast's plan
#      line says algorithm=mcast transport=ip (none went to the module below);
#   6. the product under attack: host N runs no rank and runs contrib/cluster/mcast-forge,
#      which learns the job's groups, ids and epochs from the traffic it sniffs and sends
#      random bytes, replays of captured datagrams, DATA for future epochs, STATUS and
#      ABORT forgeries and out-of-range fields (valid CRC) into them, loss-free and at
#      5 % loss: MPI_Bcast (the datatype matrix, and MCQ_FORGE_BCASTS (200) validated
#      4 MiB broadcasts with rotating roots) and MPI_Ibcast over the attacked group (the
#      datatype matrix, 4 outstanding, fallback error) end with 0 wrong bytes and 0 failed
#      calls, and every rank counted forged datagrams.
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
        if awk -v r="$r" 'BEGIN { exit !(r > 0 && r <= 1.085) }'; then
            ok "$np hosts: root uplink $r x M per 4 MiB bcast (floor 1514/1404 = 1.0783 at MTU 1500)"
        else
            bad "$np hosts: root uplink $r x M per 4 MiB bcast, expected <= 1.085"
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
OURS_BASE=(--mca mca_base_component_path "$BUILD/ompi/.libs:$PKGLIB" --mca coll_pathmc_algorithm mcast
           --mca coll_pathmc_mcast_transport ip --mca coll_pathmc_mcast_interface eth0)
OURS=("${OURS_BASE[@]}" --mca coll_pathmc_fallback error --mca coll_pathmc_verbose 1)
for prog in "$BUILD/tests/mpi/bcast_check -l 200000" "$BUILD/perf/osu_style_bcast -c -m 1:4194304 -i 3 -x 1 -r rotate"; do
    set -- $prog
    [ -x "$1" ] || { bad "$1 not built"; continue; }
    if "$CLUSTER" run -- -np 4 "${OURS[@]}" "$@" >"$WORK/out" 2>&1 &&
        grep -q "^coll:pathmc: comm=0 size=4 .*algorithm=mcast .*transport=ip" "$WORK/out" &&
        { [ "$(basename "$1")" != bcast_check ] || grep -q "np=4 .* 0 failures" "$WORK/out"; }; then
        ok "MPI_Bcast via coll/pathmc mcast over IP, 4 hosts, 5% loss: $(basename "$1") data checked ($(grep -m1 -o 'MPI_Bcast [0-9]* cases, 0 failures' "$WORK/out" || echo "1 B..4 MiB, rotating roots"))"
    else
        bad "MPI_Bcast via coll/pathmc mcast: $(basename "$1")"; grep -a -v "^coll:pathmc: comm=[0-9]* size" "$WORK/out" | tail -15
    fi
done
# MPI_Ibcast over the group, 0 % and 5 % loss
for loss in 0 5; do
    "$CLUSTER" mcast-loss "$loss"
    for prog in "$BUILD/tests/mpi/bcast_check -n -k 4 -l 200000" "$BUILD/perf/osu_style_ibcast -c -m 1:4194304 -i 3 -x 1"; do
        set -- $prog
        [ -x "$1" ] || { bad "$1 not built"; continue; }
        d0=$(drops)
        if "$CLUSTER" run -- -np 4 "${OURS[@]}" "$@" >"$WORK/out" 2>&1 &&
            grep -q "^coll:pathmc: ibcast comm=0 size=4 .*algorithm=mcast .*transport=ip" "$WORK/out" &&
            ! grep -q "^coll:pathmc: ibcast .*algorithm=[^m]" "$WORK/out" &&
            { [ "$(basename "$1")" != bcast_check ] || grep -q "np=4 .* 0 failures" "$WORK/out"; }; then
            ok "MPI_Ibcast via coll/pathmc mcast over IP, 4 hosts, ${loss}% loss: $(basename "$1") data checked ($(grep -m1 -o 'MPI_Ibcast([0-9]* outstanding) [0-9]* cases, 0 failures' "$WORK/out" || echo "1 B..4 MiB"), $(grep -c '^coll:pathmc: ibcast .*algorithm=mcast' "$WORK/out") plan lines all mcast); $(( $(drops) - d0 )) multicast packets dropped by the loss program"
        else
            bad "MPI_Ibcast via coll/pathmc mcast, ${loss}% loss: $(basename "$1")"; grep -a -v "^coll:pathmc: \(ibcast \)\{0,1\}comm=[0-9]* size" "$WORK/out" | tail -15
        fi
    done
done
set --

# 6. under attack from host N (runs no rank): every forgery kind, loss-free and at 5 % loss
FORGE=$BUILD/contrib/cluster/mcast-forge
if [ -x "$FORGE" ]; then
    BCASTS=${MCQ_FORGE_BCASTS:-200}
    for loss in 0 5; do
        "$CLUSTER" mcast-loss "$loss"
        rm -f "$WORK/forge.stop"
        "$CLUSTER" exec "$N" -- "$FORGE" --interface eth0 --rate 3000 --duration 600 \
            --stop "$WORK/forge.stop" >"$WORK/forge" 2>&1 &
        forger=$!
        for run in "bcast_check -l 200000|error" "bcast_check -n -k 4 -l 200000|error" \
                   "osu_style_bcast -c -m 4194304:4194304 -i $BCASTS -I $BCASTS -x 0 -X 0 -r rotate|error"; do
            prog=${run%|*} policy=${run#*|}
            set -- $prog
            case $1 in bcast_check) exe=$BUILD/tests/mpi/$1 ;; *) exe=$BUILD/perf/$1 ;; esac
            shift
            what="$(basename "$exe") $*"
            if "$CLUSTER" run -- -np 4 "${OURS_BASE[@]}" --mca coll_pathmc_fallback "$policy" \
                --mca coll_pathmc_verbose 2 "$exe" "$@" >"$WORK/out" 2>&1 &&
                { [ "$(basename "$exe")" != bcast_check ] || grep -q "np=4 .* 0 failures" "$WORK/out"; }; then
                forged=$(sed -n 's/^mcast:ip: comm=0 rank=[0-9]* closed: .* forged=\([0-9]*\) .*/\1/p' "$WORK/out" |
                         awk '{ n++; if ($1 > 0) k++ } END { print k + 0 "/" n + 0 }')
                failed=$(sed -n 's/^mcast:ip: comm=[0-9]* rank=[0-9]* closed: .* failures=\([0-9]*\) .*/\1/p' "$WORK/out" |
                         awk '{ s += $1 } END { print s + 0 }')
                if [ "$failed" = 0 ] && [ "$forged" = 4/4 ] &&
                    ! grep -q "^coll:pathmc: ibcast .*algorithm=[^m]" "$WORK/out"; then
                    ok "under attack, ${loss}% loss: $what: data checked, 0 failed calls, ranks that counted forged datagrams: $forged"
                else
                    bad "under attack, ${loss}% loss: $what: failed collectives $failed, ranks that counted forged datagrams $forged"
                    grep -a -E "^mcast:ip: .*closed" "$WORK/out" | head -8
                fi
            else
                bad "under attack, ${loss}% loss: $what"
                grep -a -v "^coll:pathmc: \(ibcast \)\{0,1\}comm=[0-9]* \(size\|root\)" "$WORK/out" | tail -15
            fi
        done
        set --
        touch "$WORK/forge.stop"
        wait "$forger"
        if grep -q "learned group" "$WORK/forge" && grep -Eq "sent random=[1-9].* replay=[1-9].* future=[1-9].* status=[1-9].* abort=[1-9].* oversize=[1-9]" "$WORK/forge"; then
            ok "the forger (${loss}% loss) learned the job's groups from the traffic and sent every kind: $(tail -1 "$WORK/forge" | sed 's/^mcast-forge: //')"
        else
            bad "the forger (${loss}% loss) did not attack every kind"; tail -5 "$WORK/forge"
        fi
    done
else
    bad "$FORGE not built (make -C contrib check builds it)"
fi
echo "elapsed $((SECONDS - start)) s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
