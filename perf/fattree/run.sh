#!/bin/bash
# perf/fattree/run.sh -- reproduce seed 004's evaluation (sec 4): cyclic multicast vs
# OpenSM's single spanning tree vs unicast on m-port n-tree fat-trees, packet-level
# simulation (sim_fattree.cpp), plus the per-link loads that explain the times.
#
#   perf/fattree/run.sh [--label L] [--quick] [--only 4,3|8,3|8,4]
#
# Cases (seed sec 4): one-to-many (1 source), many-to-many (40 % sources),
# all-to-many (every node a source) for destination groups of 10/40/70/100 % of the
# nodes, and many-to-all (40 % and 70 % sources).  "per-source": every source
# multicasts to its own random group of that size (the seed: a many-to-many is many
# one-to-many multicasts, one MLID each); "shared": all sources send to one group.
# Fat-trees: IBFT(4,3) (16 nodes), IBFT(8,3) (128, the seed's), IBFT(8,4) (512).
# Output: perf/results/<date>-seed-004-<label>/ (results.csv, summary.md, *.png,
# README.md with the command, commit, machine and run time).
# Needs: g++, python3-matplotlib.  Deterministic: same seed, same numbers.
set -eu
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
LABEL=sim
QUICK=0
ONLY=""
while [ $# -gt 0 ]; do
    case $1 in
    --label) LABEL=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --only) ONLY=$2; shift 2 ;;
    *) echo "usage: $0 [--label L] [--quick] [--only M,N]" >&2; exit 2 ;;
    esac
done
OUT=$TOP/perf/results/$(date +%Y-%m-%d)-seed-004-$LABEL
mkdir -p "$OUT"
BUILD=$(mktemp -d /tmp/sim-fattree.XXXXXX)
trap 'rm -rf "$BUILD"' EXIT
START=$(date +%s)
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

INC="-I$TOP/mcastcore -I$TOP/mcastcore/include"
g++ -O2 -std=c++17 $INC "$HERE/sim_fattree.cpp" $(ls "$TOP"/mcastcore/*/*.cpp | grep -v /sim/pm_wsim.cpp) \
    -o "$BUILD/sim_fattree"
SIM=$BUILD/sim_fattree

CSV=$OUT/results.csv
"$SIM" --header --sources 1 --group 1 --sizes 32 --schemes cyclic | head -1 >"$CSV"
CMDS=$OUT/commands.txt
: >"$CMDS"
run() { # run LABEL ARGS...: one sim_fattree invocation, logged
    local label=$1
    shift
    echo "sim_fattree --label $label $*" >>"$CMDS"
    "$SIM" --label "$label" "$@" >>"$CSV"
}

campaign() { # campaign M,N SIZES DRAWS MODES
    local ft=$1 sizes=$2 draws=$3 modes=$4 g s mode
    for g in 10 40 70 100; do
        run one-to-many --fat-tree "$ft" --sources 1 --group-pct $g --sizes "$sizes" --draws "$draws"
    done
    for mode in $modes; do
        for g in 10 40 70 100; do
            run many-to-many --fat-tree "$ft" --sources-pct 40 --group-pct $g --groups $mode --sizes "$sizes" --draws "$draws"
            run all-to-many --fat-tree "$ft" --sources-pct 100 --group-pct $g --groups $mode --sizes "$sizes" --draws "$draws"
        done
        for s in 40 70; do
            run many-to-all --fat-tree "$ft" --sources-pct $s --group-pct 100 --groups $mode --sizes "$sizes" --draws "$draws"
        done
    done
}

want() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }
if [ $QUICK = 1 ]; then
    want 4,3 && campaign 4,3 32,131072 1 "per-source shared"
    want 8,3 && campaign 8,3 32,131072 1 per-source
else
    want 4,3 && campaign 4,3 32,256,2048,16384,131072 3 "per-source shared"
    want 8,3 && campaign 8,3 32,256,2048,16384,131072 3 "per-source shared"
    want 8,4 && campaign 8,4 32,8192 1 per-source
fi

PY=${PYTHON:-python3}
$PY -c 'import matplotlib' 2>/dev/null || PY=/usr/bin/python3   # a pyenv shim may hide Debian's matplotlib
$PY "$HERE/analyze.py" "$OUT"
END=$(date +%s)
{
    echo "# seed 004 reproduction: $LABEL"
    echo
    echo "Packet-level simulation of multicast on IBFT(m, n) (perf/fattree/sim_fattree.cpp, tables from"
    echo "mcastcore/include/pm_fattree.h); analysis and plots by perf/fattree/analyze.py."
    echo "Read summary.md first."
    echo
    echo "- command: perf/fattree/run.sh --label $LABEL$([ $QUICK = 1 ] && echo ' --quick')$([ -n "$ONLY" ] && echo " --only $ONLY")"
    echo "- every simulation: commands.txt (sim_fattree flags; results.csv has one row per case, scheme, size, draw)"
    echo "- commit: $(git -C "$TOP" rev-parse HEAD)$(git -C "$TOP" diff --quiet HEAD -- mcastcore perf/fattree || echo ' (with uncommitted changes)')"
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ), wall time $((END - START)) s"
    echo "- machine: $(uname -srm), $(nproc) cores, load before $LOAD_BEFORE, after $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- compiler: $(g++ --version | head -1)"
    echo "- model: link 20 ns flight + 4 ns/byte, switch 100 ns per packet, MTU 2048 B, input buffers 4"
    echo "  packets, output queues 2 packets (sim_fattree defaults); simulated time is deterministic,"
    echo "  the machine's load does not enter the numbers."
} >"$OUT/README.md"
echo "results in $OUT"
