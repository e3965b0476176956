#!/bin/bash
# perf/sim/compare-models.sh: the component's (k, S) choice across nodes
# (kb_choose_k_segment_ov: per-message overheads decide whether to segment at all)
# against the paper's (k, S) alone (kb_choose_k_segment), both with serial sends
# (max_sends = 1, the component's across-node default), on the run.sh platforms.
#
#   perf/sim/compare-models.sh [--out DIR] [--platforms DIR] [p1 p2 ...]
#
# Default platforms: those of perf/results/2026-11-22-simgrid (make_platforms.py);
# default DIR perf/results/<today>-simgrid-overhead.  Writes raw.csv, table.txt,
# provenance.txt.  Needs simgrid (smpicxx, smpirun).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
TOP="$(cd "$HERE/../.." && pwd)"
OUT="$TOP/perf/results/$(date +%Y-%m-%d)-simgrid-overhead"
P="$TOP/perf/results/2026-11-22-simgrid/platforms"
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT="$2"; shift ;;
        --platforms) P="$2"; shift ;;
        -h|--help) sed -n 2,12p "$0"; exit 0 ;;
        *) break ;;
    esac
    shift
done
PLATS=("$@")
[ ${#PLATS[@]} -gt 0 ] || PLATS=(torus-8x8 fattree-128 irregular-64 flat-1024)
B="${TMPDIR:-/tmp}/compare-models-build"
mkdir -p "$OUT" "$B/obj"
INC="-I$TOP/coll_kbinomial/include -I$TOP/coll_pathmc/include -I$TOP/coll_kbinomial/src"
for f in "$TOP"/coll_kbinomial/src/*.cpp "$TOP"/coll_pathmc/src/*.cpp; do
    smpicxx -O2 -std=c++17 $INC -c "$f" -o "$B/obj/$(basename "$f" .cpp).o" 2>/dev/null
done
smpicxx -O2 -std=c++17 $INC "$HERE/sim_bcast.cpp" "$B"/obj/*.o -o "$B/sim_bcast" 2>/dev/null
CFG=(--cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1
     --cfg=smpi/os:0:0.5e-6:0 --cfg=smpi/ois:0:0.5e-6:0 --cfg=smpi/or:0:0.5e-6:0
     --cfg=network/crosstraffic:0 --cfg=network/weight-S:0 --cfg=maxmin/precision:1e-4
     --log=root.thr:warning --log=xbt_cfg.thr:warning --log=smpi_config.thr:error)
SIZES=4K,16K,64K,256K,1M,4M
: >"$OUT/raw.csv"
for plat in "${PLATS[@]}"; do
    ( set -a; . "$P/$plat.env"; set +a
      extra=()
      [ -n "${TORUS:-}" ] && extra+=(--torus "$TORUS")
      sizes=$SIZES
      [ "$NP" -gt 512 ] && sizes=16K,64K,256K,1M   # 1024 ranks: 4 MiB costs minutes of CPU
      smpirun -platform "$P/$plat.xml" -hostfile "$P/$plat.hosts" -np "$NP" "${CFG[@]}" \
          "$B/sim_bcast" --sizes "$sizes" --ours kbinomial+serial,kbinomial-plain+serial --peers none \
          --alpha-us "$ALPHA_US" --beta-ns "$BETA_NS" --o-send-us "$O_SEND_US" --o-recv-us "$O_RECV_US" \
          --wire-us "$WIRE_US" "${extra[@]}" 2>/dev/null | grep '^[0-9]' | sed "s/^/$plat,/" ) >>"$OUT/raw.csv"
done
{
    echo "# simulated us (SimGrid), serial sends; ratio = with overheads / paper's (k,S): < 1 means the component's choice is faster"
    printf '%-13s %8s %12s %12s %7s  %-22s %-22s\n' platform size with_ov paper ratio plan_with_ov plan_paper
    awk -F, '{ key=$1","$2; if ($3 ~ /plain/) { p[key]=$4; pp[key]=$5 } else { o[key]=$4; op[key]=$5; order[++n]=key } }
        END { for (i=1;i<=n;i++) { k=order[i]; split(k,a,",");
              split(op[k],x," "); split(pp[k],y," ");
              printf "%-13s %8s %12.1f %12.1f %7.3f  %-22s %-22s\n", a[1], a[2], o[k], p[k], o[k]/p[k], x[1]" "x[2], y[1]" "y[2] } }' "$OUT/raw.csv"
} >"$OUT/table.txt"
{
    echo "command: $0 ${PLATS[*]}"
    echo "date: $(date -Is)"
    echo "git commit: $(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo unknown) (status: $(git -C "$TOP" status --porcelain coll_kbinomial perf/sim | tr '\n' ' '))"
    echo "simgrid: $(dpkg-query -W -f '${Version}' libsimgrid-dev 2>/dev/null)"
    echo "platforms: $P"
    echo "smpirun cfg: ${CFG[*]}"
} >"$OUT/provenance.txt"
cat "$OUT/table.txt"
