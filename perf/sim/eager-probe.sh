#!/bin/bash
# perf/sim/eager-probe.sh [BYTES ...]: eager_probe.c on three hosts of torus-8x8 with
# run.sh's network configuration, m = 4 blocks per size (default sizes 40960 and 65536:
# under and at SMPI's 64 KiB eager limit), rank 1 forwarding and (a second table per size)
# not forwarding.  Needs libsimgrid-dev simgrid.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
smpicc -O2 -std=c11 "$HERE/eager_probe.c" -o "$W/eager_probe"
/usr/bin/python3 -c "import sys; sys.path.insert(0, '$HERE'); import make_platforms as m; m.torus('$W', (8, 8))" >/dev/null
head -3 "$W/torus-8x8.hosts" > "$W/hosts"
O_US=0.5
probe() {  # BYTES FORWARD
    smpirun -platform "$W/torus-8x8.xml" -hostfile "$W/hosts" -np 3 \
        --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
        --cfg=smpi/os:0:${O_US}e-6:0 --cfg=smpi/ois:0:${O_US}e-6:0 --cfg=smpi/or:0:${O_US}e-6:0 \
        --cfg=network/crosstraffic:0 --cfg=network/weight-S:0 --cfg=maxmin/precision:1e-4 \
        --cfg=smpi/send-is-detached-thresh:65536 \
        --log=root.thr:warning --log=xbt_cfg.thr:warning --log=smpi_config.thr:error \
        "$W/eager_probe" "$1" 4 "$2" 2>&1 | grep -v '^\['
}
for s in "${@:-40960 65536}"; do
    for S in $s; do
        probe "$S" 1
        probe "$S" 0 | tail -n +2
    done
done
