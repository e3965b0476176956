#!/bin/sh
# The planner's decisions, frozen (issue 45): mcast-inspect's plan line and a digest of its
# whole report (ordering, tree, conflicts, model) for auto on perf/sim's platforms (their machine files) and
# the emulated cluster's shape (4 hosts x 1 and 4 hosts x 2 on one switch, its 1 Gbit/s
# machine file), 8 B - 16 MiB, roots 0..3, compared with the lines saved in
# plan_lines.txt.  A restructuring of the core must leave every line as it is; a change
# of the model that moves a plan on purpose regenerates the file (--update) and says why
# in its commit.
#
#   INSPECT   the mcast-inspect binary (default: next to this script)
#   test_plan_lines.sh [--update]
#
# Prints "N passed, M failed, 0 did not run"; exits 1 on any difference.
# SPDX-License-Identifier: BSD-3-Clause

here=$(cd "$(dirname "$0")" && pwd)
INSPECT=${INSPECT:-$here/mcast-inspect}
INSPECT=$(cd "$(dirname "$INSPECT")" && pwd)/$(basename "$INSPECT") # (cases run in other directories)
PLAT=$here/../../perf/sim/platforms
CLUSTER_MACHINE=$here/../cluster/cluster-1gbit.machine
SAVED=$here/plan_lines.txt

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_plan_lines.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# the emulated cluster: one switch, hosts h0..h3 (as contrib/cluster/cluster names them)
{
    echo "switch s0"
    for i in 0 1 2 3; do echo "host h$i"; echo "link s0 h$i"; done
} >"$tmp/cluster.topo"
cp "$CLUSTER_MACHINE" "$tmp/cluster-1gbit.machine" || exit 1

# one case: NAME DIR TOPOLOGY HOSTS MACHINE BYTES ROOT -> "NAME BYTES ROOT plan: ... digest=..."
# (run in DIR with the files' names alone: the report quotes the paths it was given, and
# a machine file's source line is cut at 256 bytes, so a longer path would move the digest)
case_line() {
    if (cd "$2" && "$INSPECT" --topology "$3" --hosts "$4" --machine "$5" --bytes "$6" --root "$7") \
        >"$tmp/out" 2>"$tmp/err"; then
        plan=$(sed -n 's/^plan: //p' "$tmp/out")
        digest=$(md5sum <"$tmp/out" | cut -c1-12) # the whole report
        echo "$1 $6 $7 $plan digest=$digest"
    else
        echo "$1 $6 $7 refused: $(head -1 "$tmp/err")"
    fi
}

sizes_small="8 1024 65536 1048576 16777216"
sizes_large="8 1024 65536 1048576"
: >"$tmp/now"
for p in flat-64 irregular-64 torus-8x8 fattree-128 torus-16x16 flat-1024; do
    case $p in flat-64|irregular-64|torus-8x8) sizes=$sizes_small ;; *) sizes=$sizes_large ;; esac
    for b in $sizes; do
        for r in 0 1 2 3; do
            topo=$(sed -n 's/^TOPOLOGY="\(.*\)"$/\1/p' "$PLAT/$p.env")
            case_line "$p" "$PLAT" "$topo" "@$p.hosts" "$p.machine" "$b" "$r" >>"$tmp/now"
        done
    done
done
for b in 8 1024 65536 1048576 16777216; do
    for r in 0 1 2 3; do
        case_line cluster-4x1 "$tmp" cluster.topo h0,h1,h2,h3 cluster-1gbit.machine "$b" "$r" >>"$tmp/now"
        case_line cluster-4x2 "$tmp" cluster.topo h0,h0,h1,h1,h2,h2,h3,h3 cluster-1gbit.machine "$b" "$r" >>"$tmp/now"
    done
done

if [ "${1:-}" = --update ]; then
    cp "$tmp/now" "$SAVED"
    echo "plan_lines.txt: $(wc -l <"$SAVED") lines written"
    exit 0
fi
if [ ! -f "$SAVED" ]; then
    echo "FAIL: no $SAVED"
    echo "0 passed, 1 failed, 0 did not run"
    exit 1
fi
passed=0
failed=0
n=$(wc -l <"$tmp/now")
if [ "$n" -ne "$(wc -l <"$SAVED")" ]; then
    echo "FAIL: $n cases now, $(wc -l <"$SAVED") saved"
    failed=$((failed + 1))
fi
differ=$(diff "$SAVED" "$tmp/now" | grep -c '^>')
if [ "$differ" -eq 0 ]; then
    passed=$((passed + 1))
    echo "ok: $n plan lines (6 perf/sim platforms and the emulated cluster, 8 B - 16 MiB, roots 0..3) as saved"
else
    failed=$((failed + 1))
    echo "FAIL: $differ of $n plan lines differ from plan_lines.txt (< saved, > now):"
    diff "$SAVED" "$tmp/now" | head -40
fi
echo "$passed passed, $failed failed, 0 did not run"
[ "$failed" -eq 0 ]
