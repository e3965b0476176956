#!/bin/bash
# An unmodified prebuilt MPI application from Debian (hpcc, the HPC Challenge
# benchmark, which broadcasts its parameters and HPL panels with MPI_Bcast) runs with
# our component serving MPI_Bcast, and its deterministic output (problem sizes,
# HPL residual, error counts, pass/fail lines) equals a run on stock Open MPI.
# ("Scaled residual" of the single-process runs varies from run to run, stock too.)
# Exit 0 pass, 1 fail, 77 skip (hpcc not installed).
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD_DIR=${BUILD_DIR:-$here}
COMPONENT_DIR=${COMPONENT_DIR:-$(cd "$BUILD_DIR/../../ompi/.libs" && pwd)}
MPIRUN=${MPIRUN:-mpirun}
HPCC=${HPCC:-$(command -v hpcc)}
if [ -z "$HPCC" ] || [ ! -x "$HPCC" ]; then
    echo "SKIP: hpcc not installed (apt-get install hpcc)"
    exit 77
fi
OMPI_PKGLIBDIR=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
input=/usr/share/doc/hpcc/examples/_hpccinf.txt
[ -f "$input" ] || { echo "FAIL: $input missing"; exit 1; }

run() { # dir, extra args...
    local dir=$work/$1
    shift
    mkdir -p "$dir"
    sed 's/^1000  /400   /' "$input" >"$dir/hpccinf.txt"
    (cd "$dir" && timeout 600 "$MPIRUN" -np 4 --oversubscribe --bind-to none \
        --mca pml ob1 --mca btl self,vader "$@" "$HPCC" >stdout.txt 2>stderr.txt)
}
deterministic() {
    grep -E '^(HPL_N|DGEMM_N|PTRANS_residual|PTRANS_n|MPIRandomAccess(_LCG)?_(N|Errors|ErrorsFraction)|RandomAccess(_LCG)?_N|FFT_N|MPIFFT_N)=|\|\|Ax-b\|\||tests completed and' \
        "$1/hpccoutf.txt"
}

run stock || { echo "FAIL: stock run failed"; cat "$work/stock/stderr.txt"; exit 1; }
run ours --mca mca_base_component_path "$COMPONENT_DIR:$OMPI_PKGLIBDIR" \
    --mca coll_kbinomial_verbose 1 --mca coll_kbinomial_fallback error \
    --mca coll_kbinomial_algorithm kbinomial --mca coll_kbinomial_segment_bytes 4096 ||
    { echo "FAIL: run with coll/kbinomial failed"; tail -20 "$work/ours/stderr.txt"; exit 1; }
served=$(grep -c '^coll:kbinomial: comm=' "$work/ours/stderr.txt")
deterministic "$work/stock" >"$work/stock.det"
deterministic "$work/ours" >"$work/ours.det"
lines=$(wc -l <"$work/stock.det")
if [ "$served" -lt 1 ]; then
    echo "FAIL: coll/kbinomial did not serve any bcast"
    exit 1
fi
if [ "$lines" -lt 10 ] || ! diff -u "$work/stock.det" "$work/ours.det"; then
    echo "FAIL: hpcc output differs from stock Open MPI ($lines deterministic lines)"
    exit 1
fi
echo "PASS: hpcc output identical to stock ($lines deterministic lines, $served plans served by coll/kbinomial)"
