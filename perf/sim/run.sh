#!/bin/bash
# perf/sim/run.sh: build the SimGrid broadcast simulator, generate the platforms, run every
# platform, write per-platform CSV + PNG + summary and provenance.
#
#   perf/sim/run.sh [--quick] [--out DIR] [--only p1,p2] [--build-dir DIR]
#
#   --quick   torus-8x8 only, fewer contenders/sizes, plus a data-checking run (< 3 min)
#   --out     result directory (default perf/results/<today>-simgrid[-quick])
#   --only    platforms to run (torus-8x8 fattree-128 flat-1024 irregular-64 torus-16x16)
#
# Needs: libsimgrid-dev simgrid (smpicxx, smpirun), g++, python3-matplotlib.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
TOP="$(cd "$HERE/../.." && pwd)"
ARGS="$*"
QUICK=0
OUT=""
ONLY=""
BUILD="${TMPDIR:-/tmp}/perf-sim-build"
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --out) OUT="$2"; shift ;;
        --only) ONLY="$2"; shift ;;
        --build-dir) BUILD="$2"; shift ;;
        -h|--help) sed -n 2,12p "$0"; exit 0 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
DATE="$(date +%Y-%m-%d)"
[ -n "$OUT" ] || OUT="$TOP/perf/results/$DATE-simgrid$([ $QUICK = 1 ] && echo -quick || true)"
mkdir -p "$OUT" "$BUILD/obj"
T0=$(date +%s)

# ---- build (core objects compiled once with smpicxx; helper with g++) -----------------
INC="-I$TOP/coll_kbinomial/include -I$TOP/coll_pathmc/include -I$TOP/coll_kbinomial/src"
for f in "$TOP"/coll_kbinomial/src/*.cpp "$TOP"/coll_pathmc/src/*.cpp; do
    o="$BUILD/obj/$(basename "$f" .cpp).o"
    [ "$o" -nt "$f" ] || smpicxx -O2 -std=c++17 $INC -c "$f" -o "$o"
done
[ "$BUILD/sim_bcast" -nt "$HERE/sim_bcast.cpp" ] ||
    smpicxx -O2 -std=c++17 $INC "$HERE/sim_bcast.cpp" "$BUILD"/obj/*.o -o "$BUILD/sim_bcast"
[ "$BUILD/topo_routes" -nt "$HERE/topo_routes.cpp" ] ||
    g++ -O2 -std=c++17 $INC "$TOP"/coll_kbinomial/src/*.cpp "$TOP"/coll_pathmc/src/*.cpp \
        "$HERE/topo_routes.cpp" -o "$BUILD/topo_routes"

# ---- platforms -------------------------------------------------------------------------
PLAT="$OUT/platforms"
mkdir -p "$PLAT"
/usr/bin/python3 "$HERE/make_platforms.py" --out "$PLAT" --topo-routes "$BUILD/topo_routes" >/dev/null

# ---- network model (the same for every platform; see README.md) ------------------------
CFG=(--cfg=smpi/simulate-computation:no
     --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1
     --cfg=smpi/os:0:0.5e-6:0 --cfg=smpi/ois:0:0.5e-6:0 --cfg=smpi/or:0:0.5e-6:0
     --cfg=network/crosstraffic:0 --cfg=network/weight-S:0
     --cfg=maxmin/precision:1e-4
     --log=root.thr:warning --log=xbt_cfg.thr:warning --log=smpi_config.thr:error)

PEERS_ALL="ompi,mpich,mvapich2,binomial_tree,scatter_LR_allgather,scatter_rdb_allgather,NTSL,NTSL_Isend,NTSB,flattree_pipeline,ompi_pipeline"
OURS_ALL="kbinomial,kbinomial+serial,binomial,binomial+serial,postal,chain,linear"
TORUS_OURS="pathmc-separate,pathmc-utorus,pathmc-storus,pathmc-mdtorus,pathmc-mutorus,pathmc-utorus-seg,pathmc-mdtorus-seg,pathmc-mutorus-seg"

# jobs: platform|sizes|ours|peers   (several jobs per platform keep 1024 ranks bounded)
jobs=()
if [ $QUICK = 1 ]; then
    jobs+=("torus-8x8|1K,64K,1M|kbinomial,kbinomial+serial,binomial,postal,pathmc-utorus,pathmc-mutorus-seg|ompi,mpich,mvapich2,binomial_tree,scatter_rdb_allgather,NTSL")
else
    # flattree_pipeline (the root sends every segment to every rank) and NTSB at 4 MiB cost
    # minutes of simulation CPU each (NTSB 4 MiB on torus-8x8: > 90 CPU-s without end):
    # small sizes only.
    PEERS_BIG="ompi,mpich,mvapich2,binomial_tree,scatter_LR_allgather,scatter_rdb_allgather,NTSL,NTSL_Isend,ompi_pipeline"
    jobs+=("torus-8x8|1K,64K|$OURS_ALL,$TORUS_OURS|$PEERS_ALL")
    jobs+=("torus-8x8|1M|$OURS_ALL,$TORUS_OURS|$PEERS_BIG,NTSB")
    jobs+=("torus-8x8|4M|$OURS_ALL,$TORUS_OURS|$PEERS_BIG")
    jobs+=("fattree-128|1K,64K|$OURS_ALL|$PEERS_ALL")
    jobs+=("fattree-128|1M,4M|$OURS_ALL|$PEERS_BIG")
    # 1024 ranks: scatter_LR_allgather, flattree_pipeline, linear/chain and the mvapich2
    # selector (scatter-allgather at large sizes) cost minutes of CPU per broadcast: small
    # sizes only (see README).
    jobs+=("flat-1024|1K,64K|$OURS_ALL|$PEERS_ALL")
    jobs+=("flat-1024|1M|kbinomial,kbinomial+serial,binomial,binomial+serial,postal|ompi,mpich,binomial_tree,scatter_rdb_allgather,NTSL,NTSB")
    jobs+=("irregular-64|1K,64K|$OURS_ALL,kbinomial-poc,kbinomial-poc+serial|$PEERS_ALL")
    jobs+=("irregular-64|1M,4M|$OURS_ALL,kbinomial-poc,kbinomial-poc+serial|$PEERS_BIG")
    jobs+=("torus-16x16|1K,64K,1M|kbinomial,kbinomial+serial,binomial,postal,chain,$TORUS_OURS|ompi,mpich,mvapich2,binomial_tree,scatter_rdb_allgather,NTSL,ompi_pipeline")
fi

run_job() {  # platform sizes ours peers [extra sim_bcast args...]
    local p="$1" sizes="$2" ours="$3" peers="$4"
    shift 4
    ( set -a; . "$PLAT/$p.env"; set +a
      local extra=()
      [ -n "${TORUS:-}" ] && extra+=(--torus "$TORUS")
      [ -n "${TOPOLOGY:-}" ] && extra+=(--topology "$PLAT/$TOPOLOGY")
      smpirun -platform "$PLAT/$p.xml" -hostfile "$PLAT/$p.hosts" -np "$NP" "${CFG[@]}" \
          "$BUILD/sim_bcast" --sizes "$sizes" --ours "$ours" --peers "$peers" \
          --alpha-us "$ALPHA_US" --beta-ns "$BETA_NS" --o-send-us "$O_SEND_US" \
          --o-recv-us "$O_RECV_US" --wire-us "$WIRE_US" --tag "platform=$p" "${extra[@]}" "$@" )
}

for p in torus-8x8 fattree-128 flat-1024 irregular-64 torus-16x16; do
    if [ -n "$ONLY" ] && [[ ",$ONLY," != *",$p,"* ]]; then continue; fi
    raw="$OUT/$p.raw.csv"
    printf '%s\n' "${jobs[@]}" | grep -q "^$p|" || continue
    : > "$raw"
    for j in "${jobs[@]}"; do
        IFS='|' read -r jp sizes ours peers <<< "$j"
        [ "$jp" = "$p" ] || continue
        t=$(date +%s)
        echo "== $p sizes=$sizes" >&2
        run_job "$p" "$sizes" "$ours" "$peers" 2> >(grep -v '^\[' >&2) | tee -a "$raw" | grep -v '^#' | grep -v '^size_bytes' >&2 || true
        echo "   ($(( $(date +%s) - t )) s)" >&2
    done
done

if [ $QUICK = 1 ]; then
    # data check of every contender of the quick set (private buffers, sizes that are not
    # multiples of the segments)
    echo "== check run (torus-8x8, 1000 and 70000 bytes, every byte verified)" >&2
    run_job torus-8x8 1000,70000 "$OURS_ALL,$TORUS_OURS,kbinomial+nofifo" \
        "ompi,mpich,mvapich2,binomial_tree,scatter_rdb_allgather,NTSL,NTSB" --check \
        > "$OUT/check.txt" 2>&1 || true
    grep '^# check' "$OUT/check.txt" >&2 || true
fi

# ---- analysis, provenance ----------------------------------------------------------------
/usr/bin/python3 "$HERE/analyze.py" "$OUT"
{
    echo "command: $0 $ARGS  (quick=$QUICK)"
    echo "date: $(date -Is)"
    echo "git commit: $(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "git status (perf/sim): $(git -C "$TOP" status --porcelain perf/sim 2>/dev/null | tr '\n' ' ')"
    echo "loadavg at end: $(cat /proc/loadavg)"
    echo "simgrid: $(smpirun --version 2>&1 | head -1) ($(dpkg-query -W -f '${Version}' libsimgrid-dev 2>/dev/null))"
    echo "compiler: $(cd "$BUILD" && smpicxx --compiler-version 2>/dev/null | head -1)"
    echo "host: $(uname -srm), $(nproc) cores"
    echo "smpirun cfg: ${CFG[*]}"
    echo "sim_bcast defaults: window=4 send=isend fifo=on seg=[1024,1048576] root=0 reps=1 (+1 warm-up)"
    echo "jobs:"
    for j in "${jobs[@]}"; do echo "  $j"; done
    echo "wall time: $(( $(date +%s) - T0 )) s"
} > "$OUT/provenance.txt"
echo "results in $OUT" >&2
