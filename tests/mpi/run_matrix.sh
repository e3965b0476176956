#!/bin/bash
# MPI matrix for coll/kbinomial (and coll/pathmc): every algorithm forced with
# fallback=error, components loaded from the build tree, 1..9 ranks, pml ob1 and ucx,
# the algorithm parameters of each issue, bad input, and proof from the verbose plan
# line that our component served the bcast.  Ends with "N passed, M failed".
#
# Environment: MATRIX=quick|full (default full), MPIRUN, COMPONENT_DIR, BUILD_DIR.
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD_DIR=${BUILD_DIR:-$here}
COMPONENT_DIR=${COMPONENT_DIR:-$(cd "$BUILD_DIR/../../ompi/.libs" 2>/dev/null && pwd)}
MPIRUN=${MPIRUN:-mpirun}
MATRIX=${MATRIX:-full}
OMPI_PKGLIBDIR=$(ompi_info --path pkglibdir --parsable 2>/dev/null | sed -n 's/^path:pkglibdir://p')
TIMEOUT=${TIMEOUT:-240}
LOG=${LOG:-$BUILD_DIR/run_matrix.detail.log}
: >"$LOG"
pass=0
fail=0
# Progress for contrib/run-tests ("[mpi/run_matrix n/N] PASS ..."): the number of checks,
# counted by a dry pass of this very script in which every launch is `true` and row()
# only names itself (each row and check still prints its one PASS or FAIL line).
if [ -z "${MATRIX_DRY:-}" ]; then
    echo "plan: $(MATRIX_DRY=1 MPIRUN=true LOG=/dev/null TIMEOUT=10 bash "$0" 2>/dev/null |
        grep -cE '^(PASS|FAIL)[: ]') checks"
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BASE=(--oversubscribe --bind-to none
      --mca mca_base_component_path "$COMPONENT_DIR:$OMPI_PKGLIBDIR"
      --mca mca_base_component_show_load_errors 1
      --mca btl_vader_single_copy_mechanism none
      --mca coll_kbinomial_verbose 1 --mca coll_pathmc_verbose 1)
FALLBACK_ERROR=(--mca coll_kbinomial_fallback error --mca coll_pathmc_fallback error)
PML_OB1=(--mca pml ob1 --mca btl self,vader)
PML_UCX=(--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca osc ^ucx)

# row NAME EXPECT NP PML_ARRAY_NAME ARGS...
#   EXPECT: "alg" (coll/kbinomial served with algorithm=alg), "pathmc:alg", or "-".
row() {
    local name=$1 expect=$2 np=$3 pml=$4
    shift 4
    [ -n "${MATRIX_DRY:-}" ] && { echo "PASS $name"; return; }
    local -n pmlargs=$pml
    local out err rc comp=kbinomial alg=$expect
    case $expect in *:*) comp=${expect%%:*}; alg=${expect#*:} ;; esac
    out=$(mktemp) err=$(mktemp)
    local t0=$SECONDS
    timeout "$TIMEOUT" "$MPIRUN" -np "$np" "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${pmlargs[@]}" "$@" \
        >"$out" 2>"$err"
    rc=$?
    local why=""
    if [ $rc -eq 124 ]; then
        why="timeout after ${TIMEOUT}s"
    elif [ $rc -ne 0 ]; then
        why="exit $rc"
    elif [ "$np" -ge 2 ] && [ "$expect" != "-" ] &&
        ! grep -q "^coll:$comp: comm=.* algorithm=$alg\b" "$err"; then
        why="no verbose plan line with algorithm=$alg (coll/$comp did not serve)"
    elif grep -q "^coll:[a-z]*: .*declined" "$err"; then
        why="component declined"
    fi
    {
        echo "=== $name: $MPIRUN -np $np ${pmlargs[*]} $*"
        cat "$out"
        grep -v '^coll:[a-z]*: comm=' "$err" | head -40
    } >>"$LOG"
    if [ -z "$why" ]; then
        pass=$((pass + 1))
        printf 'PASS %s (%ds) %s\n' "$name" $((SECONDS - t0)) "$(grep -h 'cases\|checks' "$out" | head -1)"
    else
        fail=$((fail + 1))
        printf 'FAIL %s (%ds): %s\n' "$name" $((SECONDS - t0)) "$why"
        { tail -n 5 "$out"; grep -v '^coll:[a-z]*: comm=' "$err" | tail -n 8; } | sed 's/^/    /'
    fi
    rm -f "$out" "$err"
}

CHECK=$BUILD_DIR/bcast_check
ERRORS=$BUILD_DIR/bcast_errors
ALGS="auto kbinomial postal binomial linear"
# auto resolves to one of the algorithms (its plan line says which).
expect_of() { [ "$1" = auto ] && echo '[a-z]*' || echo "$1"; }

if [ "$MATRIX" = quick ]; then NPS="1 2 4 7"; else NPS="1 2 3 4 5 6 7 8 9"; fi

# 1. every algorithm, 1..9 ranks, pml ob1 (binomial/linear also segmented)
for np in $NPS; do
    for alg in $ALGS; do
        row "ob1 np=$np alg=$alg" "$(expect_of $alg)" "$np" PML_OB1 \
            --mca coll_kbinomial_algorithm "$alg" "$CHECK" -l 65536
    done
    for alg in binomial linear; do
        row "ob1 np=$np alg=$alg segmented" "$alg" "$np" PML_OB1 \
            --mca coll_kbinomial_algorithm "$alg" --mca coll_kbinomial_segment_bytes 4096 \
            "$CHECK" -l 65536
    done
done
# 2. pml ucx
for np in 2 5 9; do
    for alg in $ALGS; do
        row "ucx np=$np alg=$alg" "$(expect_of $alg)" "$np" PML_UCX \
            --mca coll_kbinomial_algorithm "$alg" --mca coll_kbinomial_segment_bytes 8192 \
            "$CHECK" -l 65536
    done
done
# 3. k-binomial parameters: every k, windows 1/2/8, both disciplines, segments 1 B,
#    1000 B and larger than the message.
for np in 7 9; do
    for k in 1 2 3 4; do
        for disc in fpfs fcfs; do
            row "kbinomial np=$np k=$k $disc seg=1000 window=2" kbinomial "$np" PML_OB1 \
                --mca coll_kbinomial_algorithm kbinomial --mca coll_kbinomial_k "$k" \
                --mca coll_kbinomial_discipline "$disc" --mca coll_kbinomial_window 2 \
                --mca coll_kbinomial_segment_bytes 1000 "$CHECK" -l 20000
        done
    done
done
for w in 1 2 8; do
    for disc in fpfs fcfs; do
        row "kbinomial np=6 window=$w $disc seg=1" kbinomial 6 PML_OB1 \
            --mca coll_kbinomial_algorithm kbinomial --mca coll_kbinomial_window "$w" \
            --mca coll_kbinomial_discipline "$disc" --mca coll_kbinomial_segment_bytes 1 \
            "$CHECK" -l 1500
        row "kbinomial np=5 window=$w $disc seg>msg" kbinomial 5 PML_OB1 \
            --mca coll_kbinomial_algorithm kbinomial --mca coll_kbinomial_window "$w" \
            --mca coll_kbinomial_discipline "$disc" --mca coll_kbinomial_segment_bytes 10000000 \
            "$CHECK" -l 65536
    done
done
for ms in 1 2; do
    row "kbinomial np=7 max_sends=$ms seg=1000" kbinomial 7 PML_OB1 \
        --mca coll_kbinomial_algorithm kbinomial --mca coll_kbinomial_max_sends "$ms" \
        --mca coll_kbinomial_segment_bytes 1000 "$CHECK" -l 20000
done
# 4. postal: several lambda, pipelining on and off
for lambda in 1 1.5 2 3.5 8; do
    for pipe in true false; do
        row "postal np=8 lambda=$lambda pipelining=$pipe" postal 8 PML_OB1 \
            --mca coll_kbinomial_algorithm postal --mca coll_kbinomial_lambda "$lambda" \
            --mca coll_kbinomial_postal_pipelining "$pipe" \
            --mca coll_kbinomial_segment_bytes 4096 "$CHECK" -l 65536
    done
done
# 5. coll/pathmc on periodic Cartesian communicators (2-D torus and ring): every
#    torus algorithm, every root, the datatype matrix; Mu-torus with several r.
for np in 4 6 8 9; do
    for alg in auto separate utorus storus mdtorus mutorus; do
        row "pathmc np=$np alg=$alg" "pathmc:$([ $alg = auto ] && echo '[a-z]*' || echo $alg)" \
            "$np" PML_OB1 --mca coll_pathmc_algorithm "$alg" "$CHECK" -c -l 20000
    done
done
for r in 1 2 3 9; do
    row "pathmc np=9 mutorus r=$r segmented" "pathmc:mutorus" 9 PML_OB1 \
        --mca coll_pathmc_algorithm mutorus --mca coll_pathmc_mu_r "$r" \
        --mca coll_pathmc_segment_bytes 4096 "$CHECK" -c -l 20000
done
row "pathmc ucx np=6 alg=mdtorus" "pathmc:mdtorus" 6 PML_UCX \
    --mca coll_pathmc_algorithm mdtorus "$CHECK" -c -l 20000
# coordinates file: every rank's host is on the torus, so pathmc serves
# MPI_COMM_WORLD and its permuted/split communicators too (all ranks share a router).
coords=$(mktemp)
printf 'torus 2x2\nhost %s 1 0\n' "$(hostname)" >"$coords"
for alg in auto separate mdtorus mutorus; do
    row "pathmc coords_file np=5 alg=$alg" "pathmc:$([ $alg = auto ] && echo '[a-z]*' || echo $alg)" \
        5 PML_OB1 --mca coll_pathmc_algorithm "$alg" --mca coll_pathmc_coords_file "$coords" \
        "$CHECK" -l 20000
done
# the same file as coll_pathmc_topology_file (which comes before the Cartesian topology)
row "pathmc topology_file np=4 alg=auto" "pathmc:[a-z]*.*source=topology_file" \
    4 PML_OB1 --mca coll_pathmc_topology_file "$coords" "$CHECK" -l 20000
rm -f "$coords"
# Single-node discovery reads every rank's place from the node's locality strings (no
# allgather): with ranks bound to cores the chain is the hierarchy (package, NUMA, core),
# and dup'ed / split communicators get it too.
if [ "$(nproc)" -ge 2 ]; then
    # (BASE sets --bind-to and the verbosity: mpirun refuses an option given twice)
    BASE_CORE=(--oversubscribe --bind-to core --mca mca_base_component_path "$COMPONENT_DIR:$OMPI_PKGLIBDIR"
               --mca coll_kbinomial_verbose 2)
    out=$(mktemp)
    if timeout "$TIMEOUT" "$MPIRUN" -np 2 "${BASE_CORE[@]}" "${PML_OB1[@]}" "$CHECK" -l 20000 >"$out" 2>&1 &&
        grep -q "^coll:kbinomial: comm=0 size=2 nodes=1 ordering=hierarchy " "$out" &&
        grep -q "^coll:kbinomial: comm=[1-9][0-9]* size=2 nodes=1 ordering=hierarchy " "$out"; then
        pass=$((pass + 1)); echo "PASS single-node discovery: ordering=hierarchy with ranks bound to cores"
    else
        fail=$((fail + 1)); echo "FAIL single-node discovery: no ordering=hierarchy line"
        grep "^coll:kbinomial: comm=.*chain=" "$out" | head -3 | sed 's/^/    /'
    fi
    rm -f "$out"
fi
# Decision rules (coll_kbinomial_rules_file): a matching line replaces the model under
# auto; ranks that hold different tables, or a table that does not parse, leave the
# choice to the model on every rank of the communicator (no hang, same data; in the
# first case sub-communicators without the odd rank agree and use the rules).
rules=$(mktemp) rules_b=$(mktemp) rules_bad=$(mktemp)
printf '# test table\n* 0-1023 linear\n* 1k-64k kbinomial k=2 segment_bytes=4k\n2-3 * postal where=node segment_bytes=16k\n* * auto\n' >"$rules"
sed 's/k=2/k=3/' "$rules" >"$rules_b"
printf '* * linear\n* 1k- broadcast\n' >"$rules_bad"
row "rules np=4" "kbinomial:kbinomial k=2 segment_bytes=4096 .*selected_by=rules:3" 4 PML_OB1 \
    --mca coll_kbinomial_rules_file "$rules" "$CHECK" -l 20000
row "rules np=3 postal line" "kbinomial:postal .*segment_bytes=16384 .*selected_by=rules:4" 3 PML_OB1 \
    --mca coll_kbinomial_rules_file "$rules" "$CHECK" -l 100000
rules_check() {  # NAME WANT_STDERR_PATTERN MPIRUN_ARGS...
    local name=$1 want=$2 out
    shift 2
    out=$(mktemp)
    if timeout "$TIMEOUT" "$MPIRUN" -np 3 "${BASE[@]}" "${PML_OB1[@]}" "$@" >"$out" 2>&1 &&
        grep -q "0 failures" "$out" && grep -q "$want" "$out" &&
        grep -q "^coll:kbinomial: comm=0 .*selected_by=auto" "$out" &&
        ! grep -q "^coll:kbinomial: comm=0 .*selected_by=rules" "$out"; then
        pass=$((pass + 1)); echo "PASS $name"
    else
        fail=$((fail + 1)); echo "FAIL $name"; tail -n 5 "$out" | sed 's/^/    /'
    fi
    rm -f "$out"
}
rules_check "rules differ between ranks -> model everywhere" "ranks hold different rules" \
    --mca coll_kbinomial_rules_file "$rules" \
    sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then export OMPI_MCA_coll_kbinomial_rules_file="$0"; fi; exec "$@"' \
    "$rules_b" "$CHECK" -l 20000
rules_check "rules file with an unknown algorithm -> model" "rules file not used: .*:2: unknown algorithm 'broadcast'" \
    --mca coll_kbinomial_rules_file "$rules_bad" "$CHECK" -l 20000
rm -f "$rules" "$rules_b" "$rules_bad"
# 6. bad input
for np in 2 4; do
    for alg in $ALGS; do
        row "errors np=$np alg=$alg" "-" "$np" PML_OB1 \
            --mca coll_kbinomial_algorithm "$alg" "$ERRORS"
    done
done

# 7. fallback policy: an invalid window makes every plan fail.  silent/warn: the
#    previous module (tuned) serves, data correct, no plan line; error: the call fails.
for policy in silent warn; do
    out=$(mktemp) err=$(mktemp)
    if timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${PML_OB1[@]}" --mca coll_kbinomial_window 0 \
        --mca coll_kbinomial_fallback "$policy" "$CHECK" -l 4096 >"$out" 2>"$err" &&
        ! grep -q '^coll:kbinomial: comm=.* algorithm=' "$err" &&
        { [ "$policy" = silent ] || grep -q 'declined' "$err"; }; then
        pass=$((pass + 1)); echo "PASS fallback=$policy: previous bcast served, data correct"
    else
        fail=$((fail + 1)); echo "FAIL fallback=$policy"; tail -n 5 "$out" "$err" | sed 's/^/    /'
    fi
    rm -f "$out" "$err"
done
out=$(mktemp)
if timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" \
    --mca coll_kbinomial_window 0 "$CHECK" -l 4096 >"$out" 2>&1; then
    fail=$((fail + 1)); echo "FAIL fallback=error: the bcast succeeded although no plan exists"
elif grep -q 'declined (no plan for these parameters) and coll_kbinomial_fallback=error' "$out"; then
    pass=$((pass + 1)); echo "PASS fallback=error: the call fails with an MPI error, no hang"
else
    fail=$((fail + 1)); echo "FAIL fallback=error: unexpected output"; tail -n 5 "$out" | sed 's/^/    /'
fi
rm -f "$out"

echo "run_matrix: details in $LOG"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
