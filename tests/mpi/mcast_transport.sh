#!/bin/bash
# tests/mpi/mcast_transport.sh -- the multicast transports driven directly
# (mcast_udp_check), 4 ranks on one emulated host: a private network namespace with a
# veth pair (multicast loops back between the ranks of the host; nothing leaves the
# namespace).  Multi-host runs with loss and a foreign sender: tests/cluster/mcast.sh.
#
#   1. IP multicast: sizes 0 B .. 1 MB from every root, data checked on every rank, and
#      two halves of the communicator broadcasting at once on their own groups;
#   2. InfiniBand UD multicast (when built): must decline at open with a reason (no
#      active IB port on this machine), on every rank alike.
# Needs root (ip netns), else skips (exit 77).  Last line: "N passed, M failed".
# SPDX-License-Identifier: BSD-3-Clause
set -u
BUILD_DIR=${BUILD_DIR:-$(cd "$(dirname "$0")" && pwd)}
MPIRUN=${MPIRUN:-mpirun}
CHECK=$BUILD_DIR/mcast_udp_check
NS=mct-$$
pass=0; fail=0
skip() { echo "SKIP: $*"; echo "0 passed, 0 failed"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespace)"
command -v ip >/dev/null || skip "ip (iproute2) not found"
[ -x "$CHECK" ] || { echo "FAIL: $CHECK not built"; echo "0 passed, 1 failed"; exit 1; }
cleanup() { ip netns del "$NS" 2>/dev/null; rm -f "${OUT:-}"; }
trap cleanup EXIT
OUT=$(mktemp /tmp/mct-out.XXXXXX)
ip netns add "$NS" && ip -n "$NS" link set lo up &&
    ip -n "$NS" link add v0 type veth peer name v1 &&
    ip -n "$NS" addr add 10.77.251.1/24 dev v0 &&
    ip -n "$NS" link set v0 up && ip -n "$NS" link set v1 up || skip "cannot build the namespace"
run() { # label expect-regex mpirun-args...
    local label=$1 re=$2; shift 2
    if ip netns exec "$NS" timeout 300 "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 \
        --mca mpi_yield_when_idle 1 "$@" >"$OUT" 2>&1 && grep -Eq "$re" "$OUT"; then
        pass=$((pass + 1)); echo "PASS: $label: $(grep -E "$re" "$OUT" | tail -1)"
    else
        fail=$((fail + 1)); echo "FAIL: $label"; tail -20 "$OUT"
    fi
}
run "ip multicast, 4 ranks, every root, split communicators" "^mcast_udp_check: ok" \
    "$CHECK" --roots all --split --sizes 0,1,1403,1404,1405,1432,65536,1000000
if grep -q "MCAST_HAVE_VERBS 1" "$BUILD_DIR/../../config/mcast_build_config.h" 2>/dev/null; then
    run "ib multicast declines without an active IB port" "^mcast_udp_check: ok, declined:" \
        "$CHECK" --transport ib --expect-decline
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
