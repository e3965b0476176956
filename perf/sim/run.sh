#!/bin/bash
# perf/sim/run.sh: build the SimGrid broadcast simulator, generate the platforms, run our
# plans (the core's planner and engine, as the components run them) and SMPI's own
# broadcast algorithms side by side, write per-platform CSV + PNG + summary and provenance.
#
#   perf/sim/run.sh [--quick] [--out DIR] [--only p1,p2] [--sizes BYTES,...]
#                   [--ours LIST] [--peers LIST] [--eager BYTES] [--machine KIND]
#                   [--build-dir DIR] [--generate SEED[,SEED...]]
#
#   --quick   torus-8x8 and irregular-64 at 1 KiB, 64 KiB, 1 MiB, fewer contenders (minutes)
#   --out     result directory (default perf/results/<today>-simgrid[-quick])
#   --only    platforms (torus-8x8 fattree-128 flat-1024 irregular-64 torus-16x16, or a
#             generated gen-FAMILY-SEED: written for that seed without --generate)
#   --generate SEED[,SEED...]: platforms nobody tuned on (gen_platforms.py): every family
#             (dragonfly torus3d fattree flat mixed torus2d) per seed, written into DIR/platforms
#             as gen-FAMILY-SEED; without --only only these run
#   --sizes   sizes for every chosen platform (bytes; K/M suffixes), one job per platform
#   --ours    our contenders (auto, registry names, NAME:k=K:seg=BYTES:sync=-1|0|1:lambda=L:window=W:ms=N;
#             default: auto and
#             every registry algorithm that applies)
#   --peers   SMPI algorithms (default: a set that finishes at the chosen sizes)
#   --eager   BYTES: SMPI's eager limit (smpi/send-is-detached-thresh) and the machine
#             files' eager_bytes (default 65536, SMPI's default)
#   --machine derived (default): the planner reads platforms/<p>.machine, written from the
#             platform's description (make_platforms.py); calibrated: platforms/<p>.calibrated.
#             machine, measured on the platform by mcast-calibrate running inside SMPI (16 ranks);
#             none: no machine file, the built-in defaults (what a user gets who calibrated
#             nothing: the components' model without a coll_kbinomial_machine_file);
#             probe: what the components' self-calibration measures on the whole platform
#             (mcast-calibrate --probe inside SMPI, every rank: the same core code and pairs
#             as coll_kbinomial_self_calibrate, with the platform's topology file as the
#             components take it), the other keys built in, for every plan at every size;
#             user: what a user without a machine file gets: the probe's model for the size
#             classes from 64 KiB (coll_kbinomial_self_calibrate_from), the built-in model
#             below (sim_bcast --measured-from)
# Writes DIR/<platform>.csv: size_bytes,contender,time_us,model_us,predicted_us,check,
# lower_bound_us,ratio_to_lower_bound (contender ours-auto, ours-<name>, smpi-<name>,
# smpi-<name>@<ordering>); DIR/summary.md; DIR/provenance.txt.
# Needs: libsimgrid-dev simgrid (smpicxx, smpirun), g++, python3-matplotlib.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
TOP="$(cd "$HERE/../.." && pwd)"
ARGS="$*"
QUICK=0
OUT=""
ONLY=""
SIZES=""
OURS_ARG=""
PEERS_ARG=""
MACHINE_KIND=derived
GENERATE=""
EAGER=65536
BUILD="${TMPDIR:-/tmp}/perf-sim-build"
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --out) OUT="$2"; shift ;;
        --only) ONLY="$2"; shift ;;
        --sizes) SIZES="$2"; shift ;;
        --ours) OURS_ARG="$2"; shift ;;
        --peers) PEERS_ARG="$2"; shift ;;
        --machine) MACHINE_KIND="$2"; shift ;;
        --eager) EAGER="$2"; shift ;;
        --build-dir) BUILD="$2"; shift ;;
        --generate) GENERATE="$2"; shift ;;
        -h|--help) sed -n 2,36p "$0"; exit 0 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
case "$MACHINE_KIND" in calibrated|derived|none|probe|user) ;; *) echo "--machine calibrated|derived|none|probe|user" >&2; exit 2 ;; esac
SELF_CALIBRATE_FROM=65536 # coll_kbinomial_self_calibrate_from's default (--machine user)
DATE="$(date +%Y-%m-%d)"
[ -n "$OUT" ] || OUT="$TOP/perf/results/$DATE-simgrid$([ $QUICK = 1 ] && echo -quick || true)"
mkdir -p "$OUT" "$BUILD/obj"
OUT="$(cd "$OUT" && pwd)"
T0=$(date +%s)

# ---- build (core objects compiled once with smpicxx; helper with g++) -----------------
# Compiler errors are shown; a failed build stops the run.
INC="-I$TOP/mcastcore -I$TOP/mcastcore/include"
CORE_SRC=("$TOP"/mcastcore/*/*.cpp)
for f in "${CORE_SRC[@]}"; do
    o="$BUILD/obj/$(basename "$f" .cpp).o"
    if [ ! "$o" -nt "$f" ] || [ "$TOP/mcastcore/include/mcast_planner.h" -nt "$o" ]; then
        smpicxx -O2 -std=c++17 $INC -c "$f" -o "$o"
    fi
done
smpicxx -O2 -std=c++17 $INC "$HERE/sim_bcast.cpp" "$BUILD"/obj/*.o -lcrypto -o "$BUILD/sim_bcast"
smpicc -O2 -std=c11 $INC -c "$TOP/contrib/mcast-calibrate/mcast_calibrate.c" -o "$BUILD/mcast_calibrate.o"
smpicxx "$BUILD/mcast_calibrate.o" "$BUILD"/obj/*.o -lcrypto -o "$BUILD/mcast-calibrate"
[ "$BUILD/topo_routes" -nt "$HERE/topo_routes.cpp" ] ||
    g++ -O2 -std=c++17 $INC "${CORE_SRC[@]}" "$HERE/topo_routes.cpp" -lcrypto -o "$BUILD/topo_routes"

# ---- platforms -------------------------------------------------------------------------
PLAT="$OUT/platforms"
mkdir -p "$PLAT"
/usr/bin/python3 "$HERE/make_platforms.py" --out "$PLAT" --topo-routes "$BUILD/topo_routes" --eager "$EAGER" >/dev/null
# generated platforms (--generate, or named by --only): written here, never in perf/sim/platforms
GEN_ONLY="$(tr , '\n' <<< "$ONLY" | grep '^gen-' | paste -sd, || true)"
GENERATED=""
if [ -n "$GENERATE" ] || [ -n "$GEN_ONLY" ]; then
    GENERATED="$(/usr/bin/python3 "$HERE/make_platforms.py" --out "$PLAT" --eager "$EAGER" \
        --generate "$GENERATE" --only "$GEN_ONLY" | sed -n 's|^wrote .*/\(gen-[^/]*\)\.xml$|\1|p' | tr '\n' ' ')"
    [ -n "$ONLY" ] || ONLY="$(echo $GENERATED | tr ' ' ,)"
fi

# ---- network model (the same for every platform; see README.md) ------------------------
O_US=0.5 # sender and receiver overhead per message (make_platforms.py's O_US)
CFG=(--cfg=smpi/simulate-computation:no --cfg=smpi/privatization:0
     --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1
     --cfg=smpi/os:0:${O_US}e-6:0 --cfg=smpi/ois:0:${O_US}e-6:0 --cfg=smpi/or:0:${O_US}e-6:0
     --cfg=network/crosstraffic:0 --cfg=network/weight-S:0
     --cfg=maxmin/precision:1e-4 --cfg=smpi/send-is-detached-thresh:$EAGER
     --log=root.thr:warning --log=xbt_cfg.thr:warning --log=smpi_config.thr:error)

# Our contenders: auto (what users get) and every registry algorithm forced (sim_bcast's
# "all", from the registry), each with the model's own k and segment.  Inapplicable ones
# (a torus algorithm off a torus, pathlg without a switch graph, shm, twolevel, mcast) are
# skipped by sim_bcast with a '#' line.
PEERS_SMALL="ompi,mpich,mvapich2,binomial_tree,scatter_LR_allgather,scatter_rdb_allgather,NTSL,NTSL_Isend,NTSB,flattree_pipeline,ompi_pipeline"
# flattree_pipeline (the root sends every segment to every rank) and NTSB at 4 MiB cost
# minutes of simulation CPU each: small sizes only.
PEERS_BIG="ompi,mpich,mvapich2,binomial_tree,scatter_LR_allgather,scatter_rdb_allgather,NTSL,NTSL_Isend,ompi_pipeline"
ours_for() {  # platform
    case "$1" in
        flat-1024) echo "all,-chain" ;; # 1023 hops of a chain: simulation CPU for the slowest plan
        *) echo "all" ;;
    esac
}

# jobs: platform|sizes|ours|peers   (several jobs per platform keep 1024 ranks bounded)
PLATFORMS="torus-8x8 fattree-128 flat-1024 irregular-64 torus-16x16"
# flat-64 (one switch, 64 hosts: the flat-1024 network at a size that simulates in seconds)
# runs only when named: --only flat-64 --sizes ...
[[ ",$ONLY," == *",flat-64,"* ]] && [ -n "$SIZES" ] && PLATFORMS="$PLATFORMS flat-64"
PLATFORMS="$PLATFORMS $GENERATED"
jobs=()
if [ -n "$SIZES" ]; then
    for p in $PLATFORMS; do
        big=0
        for s in ${SIZES//,/ }; do
            case "$s" in *M|*MiB) big=1 ;; *K|*k|*KiB) ;; *) [ "${s%%[!0-9]*}" -gt 262144 ] 2>/dev/null && big=1 ;; esac
        done
        peers="$PEERS_SMALL"; [ $big = 1 ] && peers="$PEERS_BIG"
        jobs+=("$p|$SIZES|${OURS_ARG:-$(ours_for "$p")}|${PEERS_ARG:-$peers}")
    done
elif [ $QUICK = 1 ]; then
    jobs+=("torus-8x8|1K,64K,1M|${OURS_ARG:-auto,kbinomial,postal,utorus,mutorus,scatter_allgather}|${PEERS_ARG:-ompi,mpich,mvapich2,binomial_tree,scatter_rdb_allgather,NTSL}")
    jobs+=("irregular-64|1K,64K,1M|${OURS_ARG:-auto,kbinomial,pathlg,twotree}|${PEERS_ARG:-ompi,mpich,binomial_tree,scatter_rdb_allgather,NTSL}")
else
    for p in torus-8x8 fattree-128 irregular-64; do
        jobs+=("$p|1K,64K|${OURS_ARG:-$(ours_for $p)}|${PEERS_ARG:-$PEERS_SMALL}")
        jobs+=("$p|1M,4M|${OURS_ARG:-$(ours_for $p)}|${PEERS_ARG:-$PEERS_BIG}")
    done
    # 1024 ranks: scatter_LR_allgather, flattree_pipeline, chain and the mvapich2 selector
    # (scatter-allgather at large sizes) cost minutes of CPU per broadcast: small sizes only.
    jobs+=("flat-1024|1K,64K|${OURS_ARG:-$(ours_for flat-1024)}|${PEERS_ARG:-$PEERS_SMALL}")
    jobs+=("flat-1024|1M|${OURS_ARG:-$(ours_for flat-1024)}|${PEERS_ARG:-ompi,mpich,binomial_tree,scatter_rdb_allgather,NTSL,NTSB}")
    jobs+=("torus-16x16|1K,64K,1M|${OURS_ARG:-$(ours_for torus-16x16)}|${PEERS_ARG:-ompi,mpich,mvapich2,binomial_tree,scatter_rdb_allgather,NTSL,ompi_pipeline}")
fi
if [ -z "$SIZES" ]; then  # generated platforms (at most 144 hosts): as the 64-128 host ones
    for p in $GENERATED; do
        if [ $QUICK = 1 ]; then
            jobs+=("$p|1K,64K,1M|${OURS_ARG:-auto,kbinomial,postal,twotree,scatter_allgather}|${PEERS_ARG:-ompi,mpich,binomial_tree,scatter_rdb_allgather,NTSL}")
        else
            jobs+=("$p|1K,64K|${OURS_ARG:-$(ours_for $p)}|${PEERS_ARG:-$PEERS_SMALL}")
            jobs+=("$p|1M,4M|${OURS_ARG:-$(ours_for $p)}|${PEERS_ARG:-$PEERS_BIG}")
        fi
    done
fi

# the machine model of every platform, measured inside SMPI as on a real machine
calibrate() {  # platform
    local p="$1"
    [ "$PLAT/$p.calibrated.machine" -nt "$BUILD/mcast-calibrate" ] && return 0  # (this run's: the tool is relinked above)
    ( set -a; . "$PLAT/$p.env"; set +a
      smpirun -platform "$PLAT/$p.xml" -hostfile "$PLAT/$p.hosts" -np 16 "${CFG[@]}" \
          "$BUILD/mcast-calibrate" --out "$PLAT/$p.calibrated.machine" 2>&1 | grep -v '^\[' |
          grep -E '^net: ' | sed "s/^/   $p calibrated: /" >&2 )
}

# what self-calibration measures on the whole platform (every rank, as the component on the
# communicator of the broadcast)
probe() {  # platform
    local p="$1"
    [ "$PLAT/$p.probe.machine" -nt "$BUILD/mcast-calibrate" ] && return 0  # (this run's: the tool is relinked above)
    ( set -a; . "$PLAT/$p.env"; set +a
      smpirun -platform "$PLAT/$p.xml" -hostfile "$PLAT/$p.hosts" -np "$NP" "${CFG[@]}" \
          "$BUILD/mcast-calibrate" --probe --topology "$PLAT/$TOPOLOGY" \
          --out "$PLAT/$p.probe.machine" 2>&1 | grep -v '^\[' |
          grep -E '^net: ' | sed "s/^/   $p probe: /" >&2 )
}

run_job() {  # platform sizes ours peers [extra sim_bcast args...]
    local p="$1" sizes="$2" ours="$3" peers="$4"
    shift 4
    local mfile="$p.machine"
    if [ "$MACHINE_KIND" = calibrated ]; then
        calibrate "$p"
        mfile="$p.calibrated.machine"
    elif [ "$MACHINE_KIND" = probe ] || [ "$MACHINE_KIND" = user ]; then
        probe "$p"
        mfile="$p.probe.machine"
    fi
    local measured=()
    [ "$MACHINE_KIND" = user ] && measured=(--measured-from "$SELF_CALIBRATE_FROM")
    ( set -a; . "$PLAT/$p.env"; set +a
      MACHINE="$PLAT/$mfile"
      [ "$MACHINE_KIND" = none ] && MACHINE=none
      smpirun -platform "$PLAT/$p.xml" -hostfile "$PLAT/$p.hosts" -np "$NP" "${CFG[@]}" \
          "$BUILD/sim_bcast" --sizes "$sizes" --ours "$ours" --peers "$peers" \
          --machine "$MACHINE" --topology "$PLAT/$TOPOLOGY" --tag "platform=$p" "${measured[@]}" "$@" )
}

for p in $PLATFORMS; do
    if [ -n "$ONLY" ] && [[ ",$ONLY," != *",$p,"* ]]; then continue; fi
    raw="$OUT/$p.raw.csv"
    printf '%s\n' "${jobs[@]}" | grep -q "^$p|" || continue
    : > "$raw"
    for j in "${jobs[@]}"; do
        IFS='|' read -r jp sizes ours peers <<< "$j"
        [ "$jp" = "$p" ] || continue
        t=$(date +%s)
        echo "== $p sizes=$sizes" >&2
        run_job "$p" "$sizes" "$ours" "$peers" 2> >(grep -v '^\[' >&2) | tee -a "$raw" |
            grep -v '^size_bytes' | cut -c1-160 >&2 || echo "   (sim_bcast failed: see $raw)" >&2
        echo "   ($(( $(date +%s) - t )) s)" >&2
    done
done

# ---- analysis, provenance ----------------------------------------------------------------
RC=0
/usr/bin/python3 "$HERE/analyze.py" "$OUT" || RC=$?
{
    echo "command: $0 $ARGS  (quick=$QUICK)"
    echo "date: $(date -Is)"
    echo "git commit: $(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "git status (cores, perf/sim): $(git -C "$TOP" status --porcelain perf/sim mcastcore 2>/dev/null | tr '\n' ' ')"
    echo "loadavg at end: $(cat /proc/loadavg)"
    echo "simgrid: $(smpirun --version 2>&1 | head -1) ($(dpkg-query -W -f '${Version}' libsimgrid-dev 2>/dev/null))"
    echo "compiler: $(cd "$BUILD" && smpicxx --compiler-version 2>/dev/null | head -1)"
    echo "host: $(uname -srm), $(nproc) cores"
    echo "smpirun cfg: ${CFG[*]}"
    if [ "$MACHINE_KIND" = calibrated ]; then
        echo "machine files: platforms/<platform>.calibrated.machine (mcast-calibrate in SMPI, 16 ranks)"
    elif [ "$MACHINE_KIND" = probe ]; then
        echo "machine files: platforms/<platform>.probe.machine (self-calibration's probe in SMPI, every rank)"
    elif [ "$MACHINE_KIND" = user ]; then
        echo "machine files: platforms/<platform>.probe.machine from $SELF_CALIBRATE_FROM bytes, else the built-in model (as a user without a machine file)"
    elif [ "$MACHINE_KIND" = none ]; then
        echo "machine files: none (the built-in model, as a user without a machine file)"
    else
        echo "machine files: platforms/<platform>.machine (derived from the platform description)"
    fi
    if [ -n "$GENERATED" ]; then
        echo "generated platforms (perf/sim/make_platforms.py --generate '$GENERATE' --only '$GEN_ONLY', gen_platforms.py; files in platforms/):"
        for p in $GENERATED; do
            echo "  $p: $(sed -n 's/^DESCRIPTION="\(.*\)"$/\1/p' "$PLAT/$p.env")"
        done
    fi
    echo "jobs:"
    for j in "${jobs[@]}"; do echo "  $j"; done
    echo "wall time: $(( $(date +%s) - T0 )) s"
} > "$OUT/provenance.txt"
echo "results in $OUT" >&2
[ $RC = 0 ] || echo "analyze.py: a data check failed (summary.md)" >&2
exit $RC
