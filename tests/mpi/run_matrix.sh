#!/bin/bash
# MPI matrix for coll/kbinomial (and coll/pathmc): every algorithm forced with
# fallback=error, components loaded from the build tree, 1..9 ranks, pml ob1 and ucx,
# the algorithm parameters of each issue, bad input, and proof from the verbose plan
# line that our component served the bcast.  Ends with "N passed, M failed".
#
# Environment: MATRIX=quick|full|elements|ompi5 (default full; elements: section 1e alone;
# ompi5: the quick sizes of sections 1-1e, the set CI runs
# against Open MPI 5.0),
# MPIRUN, COMPONENT_DIR, BUILD_DIR; ROOTS (default 3; 0: every root): the rows that run
# bcast_check at ROOTS_FROM (default 6) ranks or more broadcast each case from ROOTS roots,
# rotating from case to case (bcast_check -R), so every root still broadcasts: its cases
# grow with the number of roots, and those rows were most of the matrix's time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD_DIR=${BUILD_DIR:-$here}
COMPONENT_DIR=${COMPONENT_DIR:-$(cd "$BUILD_DIR/../../ompi/.libs" 2>/dev/null && pwd)}
MPIRUN=${MPIRUN:-mpirun}
MATRIX=${MATRIX:-full}
QUICK=0
case $MATRIX in quick | ompi5) QUICK=1 ;; esac
OMPI_PKGLIBDIR=$(ompi_info --path pkglibdir --parsable 2>/dev/null | sed -n 's/^path:pkglibdir://p')
TIMEOUT=${TIMEOUT:-240}
ROOTS=${ROOTS:-3}
ROOTS_FROM=${ROOTS_FROM:-6}
[ "$ROOTS" -gt 0 ] || ROOTS_FROM=1000000
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
# Open MPI 5's PMIx reads mca_base_component_path too and names every file of ours there
# "bad prefix" (docs/openmpi5.md)
export PMIX_MCA_mca_base_component_show_load_errors=none
OMPI_MAJOR=$(ompi_info --parsable 2>/dev/null | sed -n 's/^ompi:version:full:\([0-9]*\).*/\1/p' | head -1)
BASE=(--oversubscribe --bind-to none
      --mca mca_base_component_path "$COMPONENT_DIR:$OMPI_PKGLIBDIR"
      --mca mca_base_component_show_load_errors 1
      --mca btl_vader_single_copy_mechanism none
      --mca coll_kbinomial_verbose 1 --mca coll_pathmc_verbose 1
      --mca coll_kbinomial_compare_previous 0)
# (the rows test our plans: under auto the planner would otherwise hand the sizes where
# Open MPI's own choice is predicted as fast to the module below; section 9 tests that)
FALLBACK_ERROR=(--mca coll_kbinomial_fallback error --mca coll_pathmc_fallback error)
PML_OB1=(--mca pml ob1 --mca btl self,vader)
PML_UCX=(--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca osc ^ucx)

# row NAME EXPECT NP PML_ARRAY_NAME ARGS...
#   EXPECT: "alg" (coll/kbinomial served with algorithm=alg), "pathmc:alg", or "-".
#   ROW_WANT (environment, optional): a regular expression some line of stderr must match
#   too (a plan line of one communicator); ROW_DENY (optional): a regular expression no
#   line of stderr may match (a plan line that must not appear).  A row fails where the ranks of a communicator
#   disagreed ("the ranks hold different ..."): the module below then served it silently.
row() {
    local name=$1 expect=$2 np=$3 pml=$4
    shift 4
    [ -n "${MATRIX_DRY:-}" ] && { echo "PASS $name"; return; }
    local -n pmlargs=$pml
    local out err rc comp=kbinomial alg=$expect kind=""
    case $expect in
    "ibcast "*) kind="ibcast "; alg=${expect#ibcast } ;;
    "bcast_init "*) kind="bcast_init "; alg=${expect#bcast_init } ;;
    esac
    case $alg in *:*) comp=${alg%%:*}; alg=${alg#*:} ;; esac
    out=$(mktemp) err=$(mktemp)
    local t0=$SECONDS roots=()
    # bcast_check at $ROOTS_FROM ranks or more: each case from $ROOTS roots, rotating
    case " $* " in *" $CHECK "*) [ "$np" -ge "$ROOTS_FROM" ] && roots=(-R "$ROOTS") ;; esac
    # ROW_TRIES: a run that hangs (ROW_TIMEOUT) is tried again, up to ROW_TRIES runs in
    # all, where Open MPI's own protocol can hang now and then whatever broadcast serves it
    local tries=${ROW_TRIES:-1} limit=${ROW_TIMEOUT:-$TIMEOUT} try=0 hung=""
    while :; do
        try=$((try + 1))
        timeout "$limit" "$MPIRUN" -np "$np" "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${pmlargs[@]}" \
            "$@" "${roots[@]}" >"$out" 2>"$err"
        rc=$?
        [ $rc -eq 124 ] && [ $try -lt "$tries" ] || break
        hung="$hung $try"
    done
    [ -n "$hung" ] && hung="hung in run(s)$hung of $try" && echo "    ($name: $hung)" >>"$LOG"
    local why=""
    if [ $rc -eq 124 ]; then
        why="timeout after ${limit}s${hung:+ ($hung)}"
    elif [ $rc -ne 0 ]; then
        why="exit $rc"
    elif [ "$np" -ge 2 ] && [ "$expect" != "-" ] &&
        ! grep -q "^coll:$comp: ${kind}comm=.* algorithm=$alg\b" "$err"; then
        why="no verbose ${kind}plan line with algorithm=$alg (coll/$comp did not serve)"
    elif grep -q "^coll:[a-z]*: .*declined" "$err"; then
        why="component declined"
    elif grep -q "^coll:[a-z]*: comm=[0-9]*: the ranks hold different" "$err"; then
        why="$(grep -m1 "^coll:[a-z]*: comm=[0-9]*: the ranks hold different" "$err" | cut -c1-100)"
    elif [ -n "${ROW_WANT:-}" ] && ! grep -q -- "$ROW_WANT" "$err"; then
        why="no line of stderr matches '$ROW_WANT'"
    elif [ -n "${ROW_DENY:-}" ] && grep -q -- "$ROW_DENY" "$err"; then
        why="a line of stderr matches '$ROW_DENY': $(grep -m1 -- "$ROW_DENY" "$err" | cut -c1-100)"
    fi
    {
        echo "=== $name: $MPIRUN -np $np ${pmlargs[*]} $* ${roots[*]}"
        cat "$out"
        grep -v '^coll:[a-z]*: \(ibcast \)\{0,1\}comm=' "$err" | head -40
    } >>"$LOG"
    if [ -z "$why" ]; then
        pass=$((pass + 1))
        printf 'PASS %s (%ds) %s%s\n' "$name" $((SECONDS - t0)) "$(grep -h 'cases\|checks' "$out" | tail -1)" \
            "${hung:+ ($hung)}"
    else
        fail=$((fail + 1))
        printf 'FAIL %s (%ds): %s\n' "$name" $((SECONDS - t0)) "$why"
        { tail -n 5 "$out"; grep -v '^coll:[a-z]*: \(ibcast \)\{0,1\}comm=' "$err" | tail -n 8; } | sed 's/^/    /'
    fi
    rm -f "$out" "$err"
}

CHECK=$BUILD_DIR/bcast_check
ERRORS=$BUILD_DIR/bcast_errors
IMULTI=$BUILD_DIR/ibcast_multi
FOLLOW=$BUILD_DIR/bcast_follow
MISMATCH=$BUILD_DIR/bcast_mismatch
INSPECT=${INSPECT:-$BUILD_DIR/../../contrib/mcast-inspect/mcast-inspect}
# The algorithm names come from the one registry (mcast-inspect --list-algorithms):
# coll/kbinomial's, except twolevel, which needs several nodes (rows below and the
# cluster test); coll/pathmc's torus family (mcast, which needs a multicast group: section
# 10 and tests/cluster/mcast.sh; edst, which needs every torus dimension >= 3: its own
# rows in section 5).
ALGS=$("$INSPECT" --list-algorithms | awk '/\[coll\/kbinomial/ && $1 != "twolevel" {print $1}' | tr '\n' ' ')
PM_ALGS=$("$INSPECT" --list-algorithms | awk '/\[coll\/(kbinomial,)?pathmc\]/ && $1 != "mcast" && $1 != "pathlg" && $1 != "edst" {print $1}' | tr '\n' ' ')
if [ -z "$ALGS" ] || [ -z "$PM_ALGS" ]; then
    echo "cannot list the algorithms with $INSPECT --list-algorithms"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "algorithms: coll/kbinomial: $ALGS; coll/pathmc: $PM_ALGS"
# auto resolves to one of the algorithms (its plan line says which).
expect_of() { [ "$1" = auto ] && echo '[a-z_]*' || echo "$1"; }

if [ $QUICK = 1 ]; then NPS="1 2 4 7"; else NPS="1 2 3 4 5 6 7 8 9"; fi

# Elements larger than a block (section 1e): bcast_check's long double complex types
# (32-byte elements in indexed, vector, padded struct and resized layouts, alone and,
# with -x, against one another: Open MPI's own bcast aborts on those) with every algorithm of the registry forced in blocks of 24 bytes
# (odd rank counts: an element spans two blocks) or 40 (even: the cuts fall at every
# offset inside an element), shm in 520-byte chunks (its smallest are 512), auto with
# the blocks and without the segment, coll/pathmc's torus algorithms on the Cartesian
# communicators (auto without kbinomial's segment); MPI_Bcast at the ranks counts of $1,
# MPI_Ibcast at those of $2.  At 4 ranks with the whole datatype matrix (-x: 12-byte struct elements cut by 40-byte
# blocks too), elsewhere with the large-element types only (-X: a third of the cases;
# every algorithm still cuts every large-element layout at every count).
cut_element_rows() {
    local np alg seg kind flag types
    # the glue's byte ranges themselves, every range of such types (one process)
    row "cut elements: dtio_check, every byte range through the convertor" - 1 PML_OB1 \
        "$BUILD_DIR/dtio_check"
    for kind in bcast ibcast; do
        local nps=$1 pre="" flag=""
        [ $kind = ibcast ] && { nps=$2; pre="ibcast "; flag=-n; }
        for np in $nps; do
            seg=$((np % 2 ? 24 : 40))
            types=-X
            [ "$np" = 4 ] && types=-x
            for alg in $ALGS; do
                local want="$alg .*segment_bytes=$seg" shm=520
                case $alg in
                shm) want="shm .*segment_bytes=520" ;;
                auto) want="[a-z_]* .*segment_bytes=$seg" shm=0 ;;
                esac
                row "cut elements $kind np=$np alg=$alg seg=$seg" "$pre$want" "$np" PML_OB1 \
                    --mca coll_kbinomial_algorithm "$alg" --mca coll_kbinomial_segment_bytes "$seg" \
                    --mca coll_kbinomial_shm_chunk_bytes "$shm" --mca coll_kbinomial_shm_max_chunk_bytes "$shm" \
                    "$CHECK" $types $flag -l 2000
            done
            for alg in $PM_ALGS; do
                local want=$alg noseg=()
                # (under auto without kbinomial's segment, which it defers to: E-CART-1)
                [ "$alg" = auto ] && { want='[a-z_]*'; noseg=(--mca coll_kbinomial_shm_chunk_bytes 0); }
                row "cut elements $kind np=$np pathmc alg=$alg seg=$seg" "${pre}pathmc:$want .*segment_bytes=$seg" \
                    "$np" PML_OB1 --mca coll_pathmc_algorithm "$alg" --mca coll_pathmc_segment_bytes "$seg" \
                    "${noseg[@]}" "$CHECK" -c $types $flag -l 2000
            done
        done
    done
}
# MATRIX=elements: that section alone, at every rank count from 3 to 9 (issue 44's check
# under the sanitizers: MATRIX=elements ASAN_SUITES=mpi tests/asan/run.sh).
if [ "$MATRIX" = elements ]; then
    cut_element_rows "3 4 5 6 7 8 9" "3 4 5 6 7 8 9"
    echo "run_matrix: details in $LOG"
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
fi

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
# 1b. MPI_Ibcast: every algorithm, the datatype matrix, completed by MPI_Wait and MPI_Test;
#     several outstanding Ibcasts, Ibcast between Bcasts, several communicators.
for np in 4 7; do
    for alg in $ALGS; do
        row "ibcast np=$np alg=$alg" "ibcast $(expect_of $alg)" "$np" PML_OB1 \
            --mca coll_kbinomial_algorithm "$alg" "$CHECK" -n -l 65536
    done
done
for alg in auto kbinomial chain linear; do
    row "ibcast_multi np=5 alg=$alg" "ibcast $(expect_of $alg)" 5 PML_OB1 \
        --mca coll_kbinomial_algorithm "$alg" --mca coll_kbinomial_segment_bytes 16384 "$IMULTI" -l 300000
done
row "ibcast ucx np=4 alg=auto" "ibcast [a-z_]*" 4 PML_UCX "$CHECK" -n -l 65536
# 1b'. A communicator's first calls under MPI_THREAD_MULTIPLE never block inside a
#     nonblocking call: MPI_Comm_dup of an intercommunicator (Open MPI's nonblocking steps
#     call MPI_Ibcast from its progress engine), an MPI_Ibcast that returns before the
#     other ranks called it, Ibcasts outstanding around a Bcast; every algorithm.
#     With -t also three threads at once, each on its own new communicator, rounds of
#     outstanding Ibcasts completed by MPI_Test loops (it found the plans' dependence on
#     a probe running on another thread: docs/architecture.md, "Threads").
SETUP=$BUILD_DIR/bcast_setup
if [ $QUICK = 1 ]; then SETUP_NPS="4"; else SETUP_NPS="4 7"; fi
for np in $SETUP_NPS; do
    for alg in $ALGS; do
        row "setup np=$np alg=$alg (THREAD_MULTIPLE, intercomm dup, local Ibcast)" \
            "ibcast $(expect_of $alg)" "$np" PML_OB1 --mca coll_kbinomial_algorithm "$alg" "$SETUP" -t
    done
done
# 1b'''. MPI_Ibcast beside MPI_Comm_idup of the same communicator (ibcast_idup.c; MPICH's
#     comm_idup_nb hung before our tags left the communicator's nonblocking counter), and
#     five idups of an intercommunicator at once (they hung before our Ibcasts on its
#     local groups started and completed in call order: E-IDUP-2).  Open MPI 4.1's own
#     agreement there still starts the local groups' broadcasts in another order on a
#     leader than on the other ranks now and then, whatever broadcast serves it (E-IDUP-4):
#     that stage is a row of its own, tried up to 3 times when it hangs.  Not on Open MPI
#     5: its agreement hangs there with its own broadcast (stock) and now and then with ours
#     (E-IDUP-3).
IDUP=$BUILD_DIR/ibcast_idup
for alg in kbinomial auto; do
    row "ibcast beside idup np=3 alg=$alg" "ibcast $(expect_of $alg)" 3 PML_OB1 \
        --mca coll_kbinomial_algorithm "$alg" "$IDUP" -I
    [ "${OMPI_MAJOR:-0}" -ge 5 ] && continue
    ROW_TRIES=3 ROW_TIMEOUT=60 row "five idups of an intercommunicator np=3 alg=$alg" \
        "ibcast $(expect_of $alg)" 3 PML_OB1 --mca coll_kbinomial_algorithm "$alg" "$IDUP" -O
done
# 1b, spawn. Communicators that join two jobs (bcast_spawn.c): the parents spawn children
#     and broadcast on the children's world, both merges and the intercommunicator.  A
#     node with a core per parent runs more ranks than cores once the children are there,
#     so only the children's Open MPI yields when idle: the ranks agree on it in their
#     exchange (mcast_locality.h) and coll/kbinomial serves the merged communicators of 4
#     ranks (before, the ranks' parameter digests differed and the module below served:
#     E-AGREE-1).
SPAWN=$BUILD_DIR/bcast_spawn
# (vader joins no two jobs in 4.1; Open MPI 5.0.7's TCP BTL finds no pairing between the
# jobs' other interfaces in the 5.0 stage's root and hangs, stock too: the loopback)
PML_OB1_TCP=(--mca pml ob1 --mca btl self,vader,tcp --mca btl_tcp_if_include lo)
for alg in auto kbinomial; do
    ROW_WANT="^coll:kbinomial: \(ibcast \)\{0,1\}comm=[0-9]* size=4 .* algorithm=$(expect_of $alg)\b" \
        row "spawn np=2 children=2 alg=$alg (merged, reversed, intercomm)" "$(expect_of $alg)" 2 PML_OB1_TCP \
        --mca coll_kbinomial_algorithm "$alg" "$SPAWN" -c 2
done
# 1b''. Persistent broadcast (MPI_Bcast_init / MPI_Start, Open MPI 5): every algorithm
#     forced, several starts of one request, three in flight, two communicators, free of
#     an inactive request (bcast_persist.c); the plan line says "bcast_init".
PERSIST=$BUILD_DIR/bcast_persist
if [ "${OMPI_MAJOR:-0}" -ge 5 ]; then
    for alg in $ALGS; do
        row "persistent np=4 alg=$alg" "bcast_init $(expect_of $alg)" 4 PML_OB1 \
            --mca coll_kbinomial_algorithm "$alg" "$PERSIST" -s 3
    done
    row "persistent np=5 auto" "bcast_init [a-z_]*" 5 PML_OB1 "$PERSIST" -s 4
fi
# 1c. Signatures that differ between ranks (erroneous programs): no hang, no success with
#     wrong data, the next broadcast correct (forced plans with several segments, and
#     auto within one size class).
for np in 3 5; do
    row "mismatch np=$np kbinomial seg=64k" kbinomial "$np" PML_OB1 \
        --mca coll_kbinomial_algorithm kbinomial --mca coll_kbinomial_segment_bytes 65536 "$MISMATCH"
    row "mismatch np=$np chain seg=8k" chain "$np" PML_OB1 \
        --mca coll_kbinomial_algorithm chain --mca coll_kbinomial_segment_bytes 8192 "$MISMATCH" -m 200000 -d 20000
    row "mismatch np=$np auto" '[a-z_]*' "$np" PML_OB1 "$MISMATCH" -m 1000000 -d 4000
done
# A stream of two blocks where the receivers expect one: their one receive is the last
# (its own tag) and matches the root's second block; the first, which they did not
# expect, only the sentinel beside it takes (mcast_pml.c, E-PROBE-1), blocking and not.
row "mismatch np=5 binomial 2 blocks for 1" binomial 5 PML_OB1 \
    --mca coll_kbinomial_algorithm binomial --mca coll_kbinomial_segment_bytes 8192 \
    "$MISMATCH" -m 16384 -d 8192
row "mismatch np=5 binomial 2 blocks for 1, MPI_Ibcast" "ibcast binomial" 5 PML_OB1 \
    --mca coll_kbinomial_algorithm binomial --mca coll_kbinomial_segment_bytes 8192 \
    "$MISMATCH" -m 16384 -d 8192 -n
# The families whose graph grows with the block count (two-tree, scatter): one block
# against two talks over the same pairs of ranks through notices (E-PAIRS-1), so a rank
# expecting a block from a peer that has none for it gets an error, not a wait; 8 bytes
# against 4 and 12 (one block or two), and two 8 KiB blocks for one.  (Not the
# circulant: its notices would cost as much as its small broadcasts.)
for alg in twotree scatter_allgather; do
    row "mismatch np=5 $alg 8 bytes" "$alg" 5 PML_OB1 \
        --mca coll_kbinomial_algorithm "$alg" "$MISMATCH" -m 8 -d 4
    row "mismatch np=5 $alg 2 blocks for 1, MPI_Ibcast" "ibcast $alg" 5 PML_OB1 \
        --mca coll_kbinomial_algorithm "$alg" --mca coll_kbinomial_segment_bytes 8192 \
        "$MISMATCH" -m 16384 -d 8192 -n
done

# 1d. The shared segment (shm, one node): chunks of 512 and 1000 bytes (a datatype's
#     element then straddles chunks; the convertor packs short), rings of 2 and 3 slots,
#     messages of hundreds of chunks, every communicator of the check (sub-communicators
#     get segments of their own); the mismatch program on it; several Ibcasts outstanding
#     between Bcasts on it; auto plans it on one node for MPI_Bcast and MPI_Ibcast;
#     shm_chunk_bytes=0 -> auto never plans shm.
for np in 2 5 8; do
    for cs in "512 2" "1000 3"; do
        set -- $cs
        row "shm np=$np chunk=$1 slots=$2" shm "$np" PML_OB1 \
            --mca coll_kbinomial_algorithm shm --mca coll_kbinomial_shm_chunk_bytes "$1" \
            --mca coll_kbinomial_shm_slots "$2" "$CHECK" -l 300000
    done
done
row "shm mismatch np=4" shm 4 PML_OB1 --mca coll_kbinomial_algorithm shm \
    --mca coll_kbinomial_shm_chunk_bytes 4096 "$MISMATCH" -m 200000 -d 20000
row "shm ibcast_multi np=5 chunk=1000 slots=2" "ibcast shm" 5 PML_OB1 --mca coll_kbinomial_algorithm shm \
    --mca coll_kbinomial_shm_chunk_bytes 1000 --mca coll_kbinomial_shm_max_chunk_bytes 1000 \
    --mca coll_kbinomial_shm_slots 2 "$IMULTI" -l 300000
if [ -z "${MATRIX_DRY:-}" ]; then
    out=$(mktemp) out_auto=$(mktemp)
    if timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" \
        "$CHECK" -n -l 100000 >"$out_auto" 2>&1 && grep -q "0 failures" "$out_auto" &&
        grep -q "^coll:kbinomial: ibcast comm=0 .*algorithm=shm" "$out_auto" &&
        timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" \
        "$CHECK" -l 100000 >"$out" 2>&1 && grep -q "0 failures" "$out" &&
        grep -q "^coll:kbinomial: comm=0 .*algorithm=shm" "$out"; then
        pass=$((pass + 1)); echo "PASS auto on one node: MPI_Bcast and MPI_Ibcast plan shm"
    else
        fail=$((fail + 1)); echo "FAIL auto on one node: shm for MPI_Bcast and MPI_Ibcast"
        tail -n 3 "$out" "$out_auto" | sed 's/^/    /'
    fi
    if timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" \
        --mca coll_kbinomial_shm_chunk_bytes 0 "$CHECK" -l 100000 >"$out" 2>&1 &&
        grep -q "0 failures" "$out" && grep -q "^coll:kbinomial: comm=0 .*algorithm=" "$out" &&
        ! grep -q "^coll:kbinomial: comm=.*algorithm=shm" "$out"; then
        pass=$((pass + 1)); echo "PASS shm_chunk_bytes=0: auto plans no shm"
    else
        fail=$((fail + 1)); echo "FAIL shm_chunk_bytes=0: auto plans no shm"; tail -n 3 "$out" | sed 's/^/    /'
    fi
    # shm_max_segments=1: world keeps its segment (the only communicator with more than a
    # first shm plan line or two: a split prints one per half), the others find their
    # ranks at the limit and go to PML plans; data right
    if timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" \
        --mca coll_kbinomial_shm_max_segments 1 "$CHECK" -l 100000 >"$out" 2>&1 &&
        grep -q "0 failures" "$out" &&
        [ "$(grep -c '^coll:kbinomial: comm=0 .*algorithm=shm' "$out")" -gt 1 ] &&
        [ "$(grep '^coll:kbinomial: comm=[0-9]* .*algorithm=shm' "$out" | awk '{ n[$2]++ }
              END { for (c in n) if (n[c] > 2) k++; print k + 0 }')" = 1 ] &&
        grep -q '^coll:kbinomial: comm=[1-9][0-9]* .*transport=pml' "$out"; then
        pass=$((pass + 1)); echo "PASS shm_max_segments=1: one communicator keeps its segment, the others PML plans; data right"
    else
        fail=$((fail + 1)); echo "FAIL shm_max_segments=1"; grep -v '^coll:kbinomial: .*comm=' "$out" | tail -n 5 | sed 's/^/    /'
    fi
    # mcast-calibrate measures the segment's copy and hand-over (two ranks on this host):
    # values in a sane range, and auto plans shm with the file it wrote.  A hand-over is
    # two cores spinning on a flag: on a machine busy with other work (CI beside SimGrid
    # runs) the ranks may share a core and wait for time slices (68.6 us measured, idle
    # 0.3 - 0.9), and then auto rightly plans no shm: up to 3 measurements
    cal=$(mktemp)
    ok=0
    for tries in 1 2 3; do
        if timeout "$TIMEOUT" "$MPIRUN" -np 2 --oversubscribe --bind-to none \
            "$BUILD_DIR/../../contrib/mcast-calibrate/mcast-calibrate" --quick --out "$cal" >"$out" 2>&1 &&
            grep -q '^# shm segment: copy and hand-over measured' "$cal" &&
            awk '$1 == "shm.copy_ns_per_byte" && $2 > 0.001 && $2 < 10 { c = 1 }
                 $1 == "shm.handover_us" && $2 > 0 && $2 < 10000 { h = 1 } END { exit !(c && h) }' "$cal" &&
            timeout "$TIMEOUT" "$MPIRUN" -np 3 "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" \
            --mca coll_kbinomial_machine_file "$cal" "$CHECK" -l 100000 >"$out_auto" 2>&1 &&
            grep -q "0 failures" "$out_auto" && ! grep -q "machine file not used" "$out_auto" &&
            grep -q "^coll:kbinomial: comm=0 .*algorithm=shm" "$out_auto"; then
            ok=1
            break
        fi
    done
    if [ $ok = 1 ]; then
        pass=$((pass + 1)); echo "PASS mcast-calibrate measures the shm segment ($(grep '^shm segment' "$out"); measurement $tries of at most 3); auto plans shm with its file"
    else
        fail=$((fail + 1)); echo "FAIL mcast-calibrate's shm segment"; tail -n 4 "$out" "$cal" "$out_auto" | sed 's/^/    /'
    fi
    # a rank that cannot map the segment (rank 1 sees a /dev/shm of its own: a mount
    # namespace; TCP between the ranks, since the BTL's shared memory needs /dev/shm too):
    # the setup after the first call's exchange fails on every rank, so that communicator
    # never plans shm (PML plans), no hang, data right (sub-communicators without rank 1
    # keep it)
    if unshare -m true 2>/dev/null; then
        if timeout "$TIMEOUT" "$MPIRUN" -np 3 "${BASE[@]}" "${FALLBACK_ERROR[@]}" --mca pml ob1 \
            --mca btl self,tcp --mca btl_tcp_if_include lo sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then exec unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs /dev/shm && exec \"\$0\" \"\$@\"" "$0" "$@"; fi; exec "$0" "$@"' \
            "$CHECK" -l 100000 >"$out" 2>&1 && grep -q "0 failures" "$out" &&
            ! grep -q '^coll:kbinomial: comm=0 .*algorithm=shm' "$out" &&
            grep -q '^coll:kbinomial: comm=0 .*algorithm=[a-z_]* .*transport=pml' "$out"; then
            pass=$((pass + 1)); echo "PASS shm segment missing on one rank: PML plans on that communicator; data right"
        else
            fail=$((fail + 1)); echo "FAIL shm segment missing on one rank"; grep -v '^coll:kbinomial: .*comm=' "$out" | tail -n 5 | sed 's/^/    /'
        fi
    else
        echo "SKIP shm segment missing on one rank: no mount namespaces here (unshare -m)"
    fi
    # a /dev/shm too small for every segment at its full size (3 MiB, every rank in one
    # mount namespace; TCP between the ranks): each segment's pages are reserved at its
    # setup (posix_fallocate), the first communicator's 2 MiB ring fits, a later one's does
    # not and that communicator plans PML plans on every rank; no SIGBUS, data right
    # (E-FIRST-4)
    if unshare -m true 2>/dev/null; then
        if timeout "$TIMEOUT" unshare -m sh -c 'mount -t tmpfs -o size=3m tmpfs /dev/shm && exec "$0" "$@"' \
            "$MPIRUN" -np 3 "${BASE[@]}" "${FALLBACK_ERROR[@]}" --mca pml ob1 \
            --mca btl self,tcp --mca btl_tcp_if_include lo "$CHECK" -l 100000 >"$out" 2>&1 &&
            grep -q "0 failures" "$out" &&
            grep -q '^coll:kbinomial: comm=0 .*algorithm=shm' "$out" &&
            grep -q '^coll:kbinomial: comm=[1-9][0-9]* .*nodes=1' "$out" &&
            grep '^coll:kbinomial: comm=[1-9][0-9]* .*nodes=1' "$out" | grep -q -v 'algorithm=shm'; then
            pass=$((pass + 1)); echo "PASS /dev/shm too small for every segment: reserved at setup, a communicator without room plans PML plans; data right"
        else
            fail=$((fail + 1)); echo "FAIL /dev/shm too small for every segment"; grep -v '^coll:kbinomial: .*comm=' "$out" | tail -n 5 | sed 's/^/    /'
        fi
    else
        echo "SKIP /dev/shm too small for every segment: no mount namespaces here (unshare -m)"
    fi
    rm -f "$out" "$out_auto" "$cal"
else
    echo "PASS shm auto"; echo "PASS shm off"; echo "PASS shm limit"; echo "PASS shm calibrate"
    echo "PASS shm missing"
fi
# 1e. Elements larger than a block (cut_element_rows above): quick (and the ompi5 set),
#     MPI_Bcast at 4 and 7 ranks and MPI_Ibcast at 3; full, MPI_Bcast at 3, 4, 5, 7, 8 and 9
#     ranks and MPI_Ibcast (the same plans, another completion) at 3, 4 and 9 (both block
#     sizes, odd and even counts; 6 left to MATRIX=elements, which runs both at every
#     count from 3 to 9, to keep CI's time).
if [ $QUICK = 1 ]; then
    cut_element_rows "4 7" "3"
else
    cut_element_rows "3 4 5 7 8 9" "3 4 9"
fi

# 1e. A local failure on one rank (issue 44): libfailalloc.so preloaded makes rank 3's
#     allocations of at least FB bytes fail while bcast_fault's faulty broadcast runs, those
#     the components make themselves (MCAST_FAILALLOC_CALLER: the component directory; Open
#     MPI's own code under them crashes or fails alone on NULL, with or without us).  The
#     broadcast: 16 MiB of a strided vector (MPI_Type_vector: the convertor path), or of
#     bytes in place (-t bytes).  bcast_fault asserts: no rank returns MPI_SUCCESS with data
#     that is not the root's, the failing rank returns an error class or the root's data,
#     allocations did fail (-0: a path that allocates nothing at all), and the next
#     broadcast is right on every rank; the timeout catches a hang.
#       - the issue's reproduction, 2 KiB and more from the first call on (its largest
#         allocations, the decisions' table among them: E-FIRST-3): the first call's
#         state is allocated (and agreed on in the exchange) in smaller pieces, the shared
#         segment's calls allocate nothing: every rank returns the root's data
#       - the shared segment: a blocking call allocates nothing; an Ibcast without memory for
#         its request does its part before it returns (rank 3 also as the root)
#       - the PML engine: stage buffers (4 KiB), then slots, engine and request (256 B: the
#         schedule without data), rank 3 also as the root
#     The zero-byte receiver (fault 5): bcast_mismatch -z on the segment (count 1 of a
#     zero-size datatype on one rank, on the root, on every rank), each followed by a
#     correct call.  Skipped under the sanitizers (their allocator is preloaded already).
FAILALLOC=$BUILD_DIR/.libs/libfailalloc.so
FAULT=$BUILD_DIR/bcast_fault
FAILALLOC_ARGS=(-x MCAST_FAILALLOC_RANK=3 -x MCAST_FAILALLOC_CALLER="$COMPONENT_DIR/")
fault_row() {  # NAME EXPECT FB ARGS... (EXPECT as for row; FB: the smallest size refused)
    local name=$1 expect=$2 fb=$3
    shift 3
    row "fault $name" "$expect" 4 PML_OB1 -x LD_PRELOAD="$FAILALLOC" "${FAILALLOC_ARGS[@]}" \
        -x MCAST_FAILALLOC_BYTES="$fb" "$@"
}
if [ $QUICK = 1 ]; then FAULT_ALGS="kbinomial"; else FAULT_ALGS="kbinomial chain scatter_allgather"; fi
if grep -qs libasan "$MPIRUN"; then
    echo "SKIP local failure rows: the sanitizers' allocator is preloaded"
else
    for nb in "" "-n"; do
        kind=${nb:+ibcast }
        if [ -n "${MATRIX_DRY:-}" ]; then
            echo "PASS fault ${kind}first call"
        else
            out=$(mktemp)
            if timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" \
                -x LD_PRELOAD="$FAILALLOC" "${FAILALLOC_ARGS[@]}" -x MCAST_FAILALLOC_BYTES=2048 \
                --mca coll_kbinomial_algorithm shm "$FAULT" -f $nb >"$out" 2>&1 &&
                grep -q "np=4 .* 0 failures" "$out"; then
                pass=$((pass + 1)); echo "PASS fault ${kind}first call: rank 3 without 2 KiB from its first call, no hang, no wrong data ($(grep -o '[0-9]* injected, [0-9]* error returns' "$out"))"
            else
                fail=$((fail + 1)); echo "FAIL fault ${kind}first call"; grep -v '^coll:kbinomial: .*comm=[0-9]* size' "$out" | tail -n 6 | sed 's/^/    /'
            fi
            rm -f "$out"
        fi
        fault_row "shm ${kind}FB=1" "${kind}shm" 1 --mca coll_kbinomial_algorithm shm "$FAULT" $nb \
            $([ -z "$nb" ] && echo -0)
        fault_row "shm ${kind}FB=1 root=3 bytes" "${kind}shm" 1 --mca coll_kbinomial_algorithm shm \
            "$FAULT" $nb -r 3 -t bytes $([ -z "$nb" ] && echo -0)
        for alg in $FAULT_ALGS; do
            for fb in 4096 256; do
                fault_row "$alg ${kind}FB=$fb" "${kind}$alg" "$fb" --mca coll_kbinomial_algorithm "$alg" \
                    "$FAULT" $nb
            done
        done
        fault_row "kbinomial ${kind}FB=256 root=3 bytes" "${kind}kbinomial" 256 \
            --mca coll_kbinomial_algorithm kbinomial "$FAULT" $nb -r 3 -t bytes
        row "shm ${kind}zero-byte signatures np=4" "${kind}shm" 4 PML_OB1 --mca coll_kbinomial_algorithm shm \
            --mca coll_kbinomial_shm_chunk_bytes 4096 "$MISMATCH" -z -m 200000 $nb
    done
    # Below the first call's exchange records and a call's plan (512 B and more refused
    # from the first call on, the first N refusals let through: every allocation of the
    # first call in turn): the exchange's records from fresh pages (every rank then passes
    # the communicator down), a lost plan abandons the segment (every later call on it an
    # error, docs/local-failures.md).  Every run: no rank MPI_SUCCESS with wrong data, no
    # hang (bcast_fault -A; a run past the last allocation injects nothing).  At least one
    # run abandoned the segment.
    if [ -n "${MATRIX_DRY:-}" ]; then
        echo "PASS fault shm first call, every allocation in turn"
    else
        out=$(mktemp)
        bad="" abandoned=0 runs=0
        for skip in $(seq 0 20); do
            timeout 60 "$MPIRUN" -np 4 "${BASE[@]}" "${PML_OB1[@]}" -x LD_PRELOAD="$FAILALLOC" \
                "${FAILALLOC_ARGS[@]}" -x MCAST_FAILALLOC_BYTES=512 -x MCAST_FAILALLOC_AFTER="$skip" \
                --mca coll_kbinomial_algorithm shm "$FAULT" -f -A -r $((skip % 4)) >"$out" 2>&1
            rc=$?
            if grep -q "np=4 .* (0 injected" "$out"; then
                break # (past the first call's last allocation)
            fi
            runs=$((runs + 1))
            if [ $rc -ne 0 ] || ! grep -q "np=4 .* 0 failures" "$out"; then
                bad="$bad $skip(exit $rc)"
            fi
            grep -q "error returns, [1-9][0-9]* after it" "$out" && abandoned=$((abandoned + 1))
        done
        if [ -z "$bad" ] && [ "$runs" -ge 3 ] && [ "$abandoned" -ge 1 ]; then
            pass=$((pass + 1)); echo "PASS fault shm first call, every allocation in turn: $runs runs, $abandoned abandoned the segment, no wrong data, no hang"
        else
            fail=$((fail + 1)); echo "FAIL fault shm first call, every allocation in turn (runs $runs, abandoned $abandoned, failed:$bad)"
            grep -E 'FAIL|np=4' "$out" | tail -n 4 | sed 's/^/    /'
        fi
        rm -f "$out"
    fi
fi

if [ "$MATRIX" = ompi5 ]; then
    echo "run_matrix: details in $LOG"
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
fi
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
        row "kbinomial np=4 window=$w $disc seg=1" kbinomial 4 PML_OB1 \
            --mca coll_kbinomial_algorithm kbinomial --mca coll_kbinomial_window "$w" \
            --mca coll_kbinomial_discipline "$disc" --mca coll_kbinomial_segment_bytes 1 \
            "$CHECK" -l 64 -m 2048
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
# 4b. the schedule families: both allgathers of scatter_allgather (n a power of two and
#     not), forced segments with more blocks than ranks, windows and sends in flight.
for np in 5 8; do
    for ag in ring recursive_doubling; do
        row "scatter_allgather np=$np allgather=$ag seg=1000" "scatter_allgather allgather=$ag" \
            "$np" PML_OB1 --mca coll_kbinomial_algorithm scatter_allgather \
            --mca coll_kbinomial_allgather "$ag" --mca coll_kbinomial_segment_bytes 1000 \
            "$CHECK" -l 20000
    done
done
for alg in twotree circulant; do
    for w in 1 3; do
        row "$alg np=7 window=$w max_sends=$((w - 1)) seg=700" "$alg" 7 PML_OB1 \
            --mca coll_kbinomial_algorithm "$alg" --mca coll_kbinomial_window "$w" \
            --mca coll_kbinomial_max_sends $((w - 1)) --mca coll_kbinomial_segment_bytes 700 \
            "$CHECK" -l 20000
    done
done
# the two-tree with n even (its second tree shifted, fam_twotree.cpp "Locality"): 8 ranks
row "twotree np=8 seg=700" twotree 8 PML_OB1 --mca coll_kbinomial_algorithm twotree \
    --mca coll_kbinomial_segment_bytes 700 "$CHECK" -l 20000
row "ibcast twotree np=8 seg=700" "ibcast twotree" 8 PML_OB1 --mca coll_kbinomial_algorithm twotree \
    --mca coll_kbinomial_segment_bytes 700 "$CHECK" -n -l 20000
# window 0 (auto, the default): the circulant keeps one receive posted, a tree 4
row "circulant np=6 window=auto -> 1" "circulant .*window=1" 6 PML_OB1 \
    --mca coll_kbinomial_algorithm circulant --mca coll_kbinomial_segment_bytes 700 "$CHECK" -l 20000
row "kbinomial np=6 window=auto -> 4" "kbinomial .*window=4" 6 PML_OB1 \
    --mca coll_kbinomial_algorithm kbinomial --mca coll_kbinomial_segment_bytes 700 "$CHECK" -l 20000
# 5. coll/pathmc on periodic Cartesian communicators (2-D torus and ring): every
#    torus algorithm, every root, the datatype matrix; Mu-torus with several r.
#    Under auto without kbinomial's segment (pathmc's plans against kbinomial's over the
#    PML); with it (the default), kbinomial's segment serves those communicators on one
#    node and pathmc serves none (E-CART-1).
for np in 4 6 8 9; do
    for alg in $PM_ALGS; do
        noseg=()
        [ "$alg" = auto ] && noseg=(--mca coll_kbinomial_shm_chunk_bytes 0)
        row "pathmc np=$np alg=$alg${noseg:+ without the segment}" \
            "pathmc:$([ $alg = auto ] && echo '[a-z_]*' || echo $alg)" \
            "$np" PML_OB1 --mca coll_pathmc_algorithm "$alg" "${noseg[@]}" "$CHECK" -c -l 20000
    done
done
for np in 4 9; do
    ROW_DENY="^coll:pathmc: \(ibcast \)\{0,1\}comm=[0-9]* size=[0-9]* root=" row "pathmc np=$np alg=auto one node: the segment" \
        shm "$np" PML_OB1 "$CHECK" -c -l 20000
    ROW_DENY="^coll:pathmc: \(ibcast \)\{0,1\}comm=[0-9]* size=[0-9]* root=" row "pathmc ibcast np=$np alg=auto one node: the segment" \
        "ibcast shm" "$np" PML_OB1 "$CHECK" -c -n -l 20000
done
for r in 1 2 3 9; do
    row "pathmc np=9 mutorus r=$r segmented" "pathmc:mutorus" 9 PML_OB1 \
        --mca coll_pathmc_algorithm mutorus --mca coll_pathmc_mu_r "$r" \
        --mca coll_pathmc_segment_bytes 4096 "$CHECK" -c -l 20000
done
# edst (four arc-disjoint spanning trees): a 3x3 and a 4x3 torus (every dimension >= 3,
# one rank per coordinate), whole and in 2 KiB blocks (many blocks down every tree)
for np in 9 12; do
    row "pathmc np=$np alg=edst" "pathmc:edst" "$np" PML_OB1 \
        --mca coll_pathmc_algorithm edst "$CHECK" -c -t -l 20000
done
row "pathmc np=9 edst segmented" "pathmc:edst" 9 PML_OB1 \
    --mca coll_pathmc_algorithm edst --mca coll_pathmc_segment_bytes 2048 "$CHECK" -c -t -l 20000
row "pathmc ibcast np=9 alg=edst" "ibcast pathmc:edst" 9 PML_OB1 \
    --mca coll_pathmc_algorithm edst --mca coll_pathmc_segment_bytes 2048 "$CHECK" -c -t -n -l 20000
row "pathmc ucx np=6 alg=mdtorus" "pathmc:mdtorus" 6 PML_UCX \
    --mca coll_pathmc_algorithm mdtorus "$CHECK" -c -l 20000
for alg in utorus mutorus; do
    row "pathmc ibcast np=6 alg=$alg" "ibcast pathmc:$alg" 6 PML_OB1 \
        --mca coll_pathmc_algorithm "$alg" "$CHECK" -c -n -l 20000
done
# coordinates file (without the segment, as above): every rank's host is on the torus, so pathmc serves
# MPI_COMM_WORLD and its permuted/split communicators too (all ranks share a router).
coords=$(mktemp)
printf 'torus 2x2\nhost %s 1 0\n' "$(hostname)" >"$coords"
for alg in auto separate mdtorus mutorus; do
    row "pathmc coords_file np=5 alg=$alg" "pathmc:$([ $alg = auto ] && echo '[a-z_]*' || echo $alg)" \
        5 PML_OB1 --mca coll_pathmc_algorithm "$alg" --mca coll_pathmc_coords_file "$coords" \
        --mca coll_kbinomial_shm_chunk_bytes 0 "$CHECK" -l 20000
done
# the same file as coll_pathmc_topology_file (which comes before the Cartesian topology)
row "pathmc topology_file np=4 alg=auto" "pathmc:[a-z_]*.*source=topology_file" \
    4 PML_OB1 --mca coll_pathmc_topology_file "$coords" --mca coll_kbinomial_shm_chunk_bytes 0 \
    "$CHECK" -l 20000
rm -f "$coords"
# Topology files are read and parsed once per process, not once per communicator
# (bcast_check broadcasts on 4 communicators): np opens of the file under strace.  A file
# that cannot be used is reported once per process (at most np lines): here an
# ibnetdiscover Ca block without a link, which the parser rejects at its line (issue 18:
# it used to reach the POC ordering and read sw_rank[-1]).
topo_once=$(mktemp) unlinked=$(mktemp)
printf 'torus 2x2\nhost %s 1 0\n' "$(hostname)" >"$topo_once"
printf 'Switch 4 "S-1" # "sw0"\n[1] "H-a"[1]\nCa 1 "H-a" # "a HCA-1"\n[1] "S-1"[1]\nCa 1 "H-b" # "b HCA-1"\n' >"$unlinked"
out=$(mktemp)
timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" \
    --mca coll_kbinomial_topology_file "$unlinked" "$CHECK" -l 20000 >"$out" 2>&1
nwarn=$(grep -c "topology_file $unlinked not used: $unlinked:5: host \"H-b\" has no link" "$out")
if grep -q "np=4 .* 0 failures" "$out" && [ "$nwarn" -ge 1 ] && [ "$nwarn" -le 4 ]; then
    pass=$((pass + 1)); echo "PASS topology_file with an unlinked Ca: rejected at its line, $nwarn warnings for 4 processes"
else
    fail=$((fail + 1)); echo "FAIL topology_file with an unlinked Ca ($nwarn warnings)"; tail -n 5 "$out" | sed 's/^/    /'
fi
if command -v strace >/dev/null; then
    trace=$(mktemp)
    strace -f -qq -e trace=openat -o "$trace" timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" \
        "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" --mca coll_kbinomial_topology_file "$topo_once" \
        "$CHECK" -l 20000 >"$out" 2>&1
    nopen=$(grep -c "\"$topo_once\"" "$trace")
    if grep -q "np=4 .* 0 failures" "$out" && [ "$nopen" = 4 ]; then
        pass=$((pass + 1)); echo "PASS topology_file parsed once per process (4 opens for 4 processes)"
    else
        fail=$((fail + 1)); echo "FAIL topology_file parsed once per process: $nopen opens for 4 processes"
    fi
    rm -f "$trace"
else
    echo "SKIP topology_file parsed once per process: strace not installed (contrib/deps.sh test)"
fi
rm -f "$out" "$topo_once" "$unlinked"
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
# 9. auto compared with the module below (the default): 2 ranks run the same tree whatever
#    the algorithm, so every class is handed to Open MPI's own bcast; 4 ranks keep ours at
#    some sizes. Data checked, the verbose line says why.  (Without the shared segment: on
#    one node its plans beat the module below's at every size.)  MPI_Ibcast before any
#    MPI_Bcast on a communicator runs the nonblocking decision, which never hands a call
#    down (the module below's collective would start after its call: mcast_module.h):
#    there every class runs our plan, none is handed down.
BASE_PREV=("${BASE[@]}") # BASE with the comparison on (a parameter may be given once)
for i in "${!BASE_PREV[@]}"; do
    [ "${BASE_PREV[$i]}" = coll_kbinomial_compare_previous ] && BASE_PREV[$((i + 1))]=1
done
for spec in "2 -l 65536" "4 -l 100000" "4 -n -l 100000"; do
    set -- $spec
    np=$1; shift
    out=$(mktemp)
    timeout "$TIMEOUT" "$MPIRUN" -np "$np" "${BASE_PREV[@]}" "${PML_OB1[@]}" \
        --mca coll_kbinomial_shm_chunk_bytes 0 "$CHECK" "$@" >"$out" 2>&1
    if [ "$1" = -n ]; then
        want_prev=0
    else
        want_prev=1
    fi
    if grep -q "np=$np .* 0 failures" "$out" &&
        [ "$(grep -c "^coll:kbinomial: comm=0 size=$np class_bytes=.*selected_by=previous;" "$out")" -ge $want_prev ] &&
        { [ $want_prev = 1 ] || ! grep -q "selected_by=previous;" "$out"; } &&
        { [ "$np" = 2 ] || grep -q "^coll:kbinomial: .*comm=0 size=$np .*selected_by=model" "$out"; }; then
        pass=$((pass + 1)); echo "PASS auto compare_previous np=$np $*: $(grep -c 'selected_by=previous;' "$out") classes to the module below"
    else
        fail=$((fail + 1)); echo "FAIL auto compare_previous np=$np $*"; tail -n 5 "$out" | sed 's/^/    /'
    fi
    rm -f "$out"
done
set --
# 9b. Verification on live calls (coll_kbinomial_verify_trials, off by default): with the
#     module below made slow (tuned's chain in 64-byte segments) every class from 32 KiB
#     that the model handed to it is measured and taken back (the verdict line says "ours
#     runs"), the data checked after every call (osu_style_bcast -c); and the datatype
#     matrix (every root, type, communicator) right while the trials alternate.  From 32 KiB,
#     the median of 3 calls: below, the slowed chain is too close to ours for a verdict
#     that one descheduled rank cannot flip.
OSU=${OSU:-$BUILD_DIR/../../perf/osu_style_bcast}
if [ -n "${MATRIX_DRY:-}" ]; then
    echo "PASS verify takes a class back"; echo "PASS verify datatype matrix"
    echo "PASS verify with a runner-up, datatype matrix"
    echo "PASS verify verdicts followed by MPI_Ibcast and MPI_Bcast_init"
    echo "PASS verify re-checks classes settled on the module below"
else
    out=$(mktemp)
    timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE_PREV[@]}" "${PML_OB1[@]}" \
        --mca coll_kbinomial_shm_chunk_bytes 0 --mca coll_kbinomial_verify_trials 3 \
        --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_bcast_algorithm 2 \
        --mca coll_tuned_bcast_algorithm_segmentsize 64 \
        "$OSU" -c -M osu -m 32768:131072 -i 10 -I 10 -x 4 -X 4 >"$out" 2>&1
    rc=$?
    nv=$(grep -c '^coll:kbinomial: comm=0 size=4 class_bytes=[0-9]*: verified (round 1, 3 calls' "$out")
    if [ $rc -eq 0 ] && [ "$nv" -ge 3 ] && ! grep 'verified (round' "$out" | grep -Eqv '(ours|our runner-up) runs'; then
        pass=$((pass + 1)); echo "PASS verify takes a class back: $nv classes measured, ours kept in each"
    else
        fail=$((fail + 1)); echo "FAIL verify takes a class back (exit $rc, $nv verdicts)"
        grep -E 'verified|rror' "$out" | tail -n 6 | sed 's/^/    /'
    fi
    timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE_PREV[@]}" "${PML_OB1[@]}" \
        --mca coll_kbinomial_verify_trials 3 "$CHECK" -l 100000 >"$out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q "np=4 .* 0 failures" "$out" && grep -q 'verified (round 1, 3 calls' "$out"; then
        pass=$((pass + 1)); echo "PASS verify datatype matrix: $(grep -c 'verified (round' "$out") verdicts, data right"
    else
        fail=$((fail + 1)); echo "FAIL verify datatype matrix (exit $rc)"; tail -n 5 "$out" | sed 's/^/    /'
    fi
    # with every class's runner-up a third candidate (verify_runner_up 10: any our plan of
    # another algorithm within 11x): its plans run in the trials, and where it wins, every
    # later call of the class; the data checked throughout
    timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE_PREV[@]}" "${PML_OB1[@]}" \
        --mca coll_kbinomial_verify_trials 2 --mca coll_kbinomial_verify_runner_up 10 \
        "$CHECK" -l 100000 >"$out" 2>&1
    rc=$?
    nr=$(grep -c 'verified (round 1, 2 calls each.*, runner-up (ours, [a-z_]*) [0-9.]* us: ' "$out")
    if [ $rc -eq 0 ] && grep -q "np=4 .* 0 failures" "$out" && [ "$nr" -ge 1 ]; then
        pass=$((pass + 1)); echo "PASS verify with a runner-up, datatype matrix: $nr verdicts of three, $(grep -c 'our runner-up runs' "$out") for the runner-up, data right"
    else
        fail=$((fail + 1)); echo "FAIL verify with a runner-up, datatype matrix (exit $rc, $nr verdicts of three)"
        grep -E 'FAIL|rror|verified' "$out" | tail -n 5 | sed 's/^/    /'
    fi
    # each class's verdict (margin 0: any faster candidate wins, the runner-up too) followed
    # by its MPI_Ibcast and persistent calls from every root, a vector type's too
    timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE_PREV[@]}" "${PML_OB1[@]}" \
        --mca coll_kbinomial_verify_trials 2 --mca coll_kbinomial_verify_runner_up 10 \
        --mca coll_kbinomial_verify_margin 0 "$FOLLOW" >"$out" 2>&1
    rc=$?
    nv=$(grep -c 'verified (round 1, 2 calls' "$out")
    if [ $rc -eq 0 ] && grep -q "np=4 .* 0 failures" "$out" && [ "$nv" -ge 3 ]; then
        pass=$((pass + 1)); echo "PASS verify verdicts followed by MPI_Ibcast and MPI_Bcast_init: $nv verdicts ($(grep -c 'our runner-up runs' "$out") the runner-up's, $(grep -c 'module below runs' "$out") the module below's), data right"
    else
        fail=$((fail + 1)); echo "FAIL verify verdicts followed by MPI_Ibcast and MPI_Bcast_init (exit $rc, $nv verdicts)"
        grep -E 'FAIL|rror|bcast_follow' "$out" | tail -n 5 | sed 's/^/    /'
    fi
    # re-checks (every 4, 8, ... settled calls) of classes settled on the module below,
    # whose calls are handed on at the module's entry (E-CALL-2) and still counted there:
    # later rounds come on every rank at the same call (no hang), the data checked after
    # every call (margin 0.99: every verdict the model's choice; the segment off, so that
    # the model hands classes to the module below)
    timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE_PREV[@]}" "${PML_OB1[@]}" \
        --mca coll_kbinomial_shm_chunk_bytes 0 --mca coll_kbinomial_verify_trials 2 \
        --mca coll_kbinomial_verify_recheck 4 --mca coll_kbinomial_verify_margin 0.99 \
        "$OSU" -c -M osu -m 1:65536 -i 40 -I 40 -x 2 -X 2 >"$out" 2>&1
    rc=$?
    nb=$(grep 'verified (round [2-9]' "$out" | grep -c 'module below runs')
    if [ $rc -eq 0 ] && [ "$nb" -ge 1 ] && grep -q 'verified (round 3' "$out"; then
        pass=$((pass + 1)); echo "PASS verify re-checks classes settled on the module below: $nb later rounds of theirs, $(grep -c 'verified (round' "$out") verdicts, data right"
    else
        fail=$((fail + 1)); echo "FAIL verify re-checks classes settled on the module below (exit $rc, $nb later rounds of theirs)"
        grep -E 'rror|verified' "$out" | tail -n 5 | sed 's/^/    /'
    fi
    rm -f "$out"
fi
# 9c. Verification by default (coll_kbinomial_verify_trials -1, E-VERIFY-3): 2 ranks, each
#     bound to a core of one node, verify the classes the model decided, with the data
#     checked after every call (osu_style_bcast -c) and in the datatype matrix (every root,
#     type, communicator); where Open MPI yields when idle (what it does with more ranks than
#     cores, set here by hand) no class is verified.  MPI_Ibcast's classes above 4 KiB too
#     (E-DATA-1, E-VERIFY-4, mcast_module.c "nbv"; 8 KiB - 256 KiB here): the data checked after every call (osu_style_ibcast -c), with
#     up to 4 calls outstanding in the datatype matrix (bcast_check -n -k 4), and behind
#     windows of 40 outstanding calls (ibcast_multi: the calls after the trials wait for
#     every rank's times while the earlier ones are in flight).
IOSU=${IOSU:-$BUILD_DIR/../../perf/osu_style_ibcast}
if [ -n "${MATRIX_DRY:-}" ]; then
    echo "PASS verify by default on one node"; echo "PASS verify by default datatype matrix"
    echo "PASS verify by default off when yielding"; echo "PASS verify MPI_Ibcast by default on one node"
    echo "PASS verify MPI_Ibcast datatype matrix, 4 outstanding"; echo "PASS verify MPI_Ibcast behind windows"
elif [ "$(nproc)" -ge 2 ]; then
    VERIFY_BASE=(--bind-to core --mca mca_base_component_path "$COMPONENT_DIR:$OMPI_PKGLIBDIR"
                 --mca coll_kbinomial_verbose 1)
    out=$(mktemp)
    # verify_run YIELD PROGRAM ARGS...: 2 bound ranks, mpi_yield_when_idle YIELD; the output
    # in $out, the exit status in rc
    verify_run() {
        local y=$1
        shift
        timeout "$TIMEOUT" "$MPIRUN" -np 2 "${VERIFY_BASE[@]}" "${PML_OB1[@]}" \
            --mca mpi_yield_when_idle "$y" "$@" >"$out" 2>&1
        rc=$?
    }
    # verify_verdict STATUS NAME DETAIL: PASS (with DETAIL) where STATUS is 0, else FAIL and
    # the lines of the output that say why
    verify_verdict() {
        if [ "$1" -eq 0 ]; then
            pass=$((pass + 1)); echo "PASS $2: $3"
        else
            fail=$((fail + 1)); echo "FAIL $2 (exit $rc): $3"
            grep -E 'verified|rror|rong|failures' "$out" | tail -n 6 | sed 's/^/    /'
        fi
    }
    verify_run 0 "$OSU" -c -M osu -m 1:262144 -i 12 -I 12 -x 2 -X 2
    nv=$(grep -c '^coll:kbinomial: comm=0 size=2 class_bytes=[0-9]*: verified (round 1, 4 calls' "$out")
    [ $rc -eq 0 ] && [ "$nv" -ge 10 ] && ! grep -qi 'wrong\|error' "$out"
    verify_verdict $? "verify by default on one node" "$nv classes verified, data right"
    verify_run 0 "$CHECK" -l 100000
    nv=$(grep -c 'verified (round 1, 4 calls' "$out")
    [ $rc -eq 0 ] && grep -q "np=2 .* 0 failures" "$out" && [ "$nv" -ge 1 ]
    verify_verdict $? "verify by default datatype matrix" "$nv verdicts, data right"
    verify_run 1 "$OSU" -c -M osu -m 1:262144 -i 12 -I 12 -x 2 -X 2
    [ $rc -eq 0 ] && grep -q '^coll:kbinomial: comm=0 size=2 .*selected_by=' "$out" &&
        ! grep -q 'verified (round' "$out"
    verify_verdict $? "verify by default off when yielding" "no class verified"
    verify_run 0 "$IOSU" -c -m 1:262144 -i 12 -x 2
    nv=$(grep -c '^coll:kbinomial: comm=0 size=2 class_bytes=[0-9]*: MPI_Ibcast verified (4 calls' "$out")
    [ $rc -eq 0 ] && [ "$nv" -ge 6 ] && grep -q '^# data check: 0 wrong bytes' "$out"
    verify_verdict $? "verify MPI_Ibcast by default on one node" "$nv classes verified, data right"
    verify_run 0 "$CHECK" -n -k 4 -l 100000
    nv=$(grep -c 'MPI_Ibcast verified (4 calls' "$out")
    [ $rc -eq 0 ] && grep -q "np=2 .* 0 failures" "$out" && [ "$nv" -ge 1 ]
    verify_verdict $? "verify MPI_Ibcast datatype matrix, 4 outstanding" "$nv verdicts, data right"
    verify_run 0 "$IMULTI"
    nv=$(grep -c 'MPI_Ibcast verified (4 calls' "$out")
    [ $rc -eq 0 ] && grep -q "np=2 .* 0 failures" "$out" && [ "$nv" -ge 2 ]
    verify_verdict $? "verify MPI_Ibcast behind windows" "$nv verdicts, data right"
    rm -f "$out"
else
    echo "SKIP verify by default: one core"
fi
# 10a. pathlg (worms rendered in software) on an irregular switch network: a native graph
#      file naming this host (the ranks share it, so the tree is the host's fan-out; the
#      cluster test runs it across hosts); without the file it fails loudly.
graph=$(mktemp)
printf 'switch s0\nswitch s1\nswitch s2\nlink s0 s1\nlink s1 s2\nlink s2 s0\nhost %s\nhost far\nlink s1 %s\nlink s2 far\n' \
    "$(hostname)" "$(hostname)" >"$graph"
for np in 4 7; do
    row "pathmc np=$np alg=pathlg topology_file=graph" "pathmc:pathlg" "$np" PML_OB1 \
        --mca coll_pathmc_algorithm pathlg --mca coll_pathmc_topology_file "$graph" "$CHECK" -l 20000
done
row "pathmc ibcast np=5 alg=pathlg topology_file=graph" "ibcast pathmc:pathlg" 5 PML_OB1 \
    --mca coll_pathmc_algorithm pathlg --mca coll_pathmc_topology_file "$graph" "$CHECK" -n -l 20000
rm -f "$graph"
# refused ALG REASON WHAT: forced ALG under fallback=error fails (not a timeout) with REASON
refused() {
    local alg=$1 reason=$2 what=$3 out rc
    [ -n "${MATRIX_DRY:-}" ] && { echo "PASS refused $alg"; return; }
    out=$(mktemp)
    timeout "$TIMEOUT" "$MPIRUN" -np 3 "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" \
        --mca coll_pathmc_algorithm "$alg" "$CHECK" -l 1000 >"$out" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "declined ($reason" "$out"; then
        pass=$((pass + 1)); echo "PASS pathmc $alg forced without $what: fails loudly (exit $rc) with the reason"
    else
        fail=$((fail + 1)); echo "FAIL pathmc $alg forced without $what (exit $rc)"; tail -n 5 "$out" | sed 's/^/    /'
    fi
    rm -f "$out"
}
refused pathlg "pathlg needs an irregular switch network" "a switch network"
# 10. hardware multicast forced (coll_pathmc_algorithm mcast): without a group
#     (coll_pathmc_mcast_transport none, the default) the call fails loudly under
#     fallback=error with the planner's reason; with transport ip on this host (the group's
#     datagrams loop back to the other ranks) the datatype matrix runs on it, unless the
#     host has no multicast route (then the open's reason is printed and the row skipped).
refused mcast "mcast: no multicast group on this communicator" "a group"
out=$(mktemp)
timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" \
    --mca coll_pathmc_algorithm mcast --mca coll_pathmc_mcast_transport ip "$CHECK" -l 100000 >"$out" 2>&1
rc=$?
if grep -q "^coll:pathmc: comm=0 multicast not used" "$out"; then
    echo "SKIP pathmc mcast over IP on this host: $(grep -m1 '^coll:pathmc: comm=0 multicast not used' "$out")"
elif [ $rc -eq 0 ] && grep -q "np=4 .* 0 failures" "$out" &&
    grep -q "^coll:pathmc: comm=0 size=4 .*algorithm=mcast .*transport=ip" "$out"; then
    pass=$((pass + 1)); echo "PASS pathmc mcast over IP on one host, np=4: $(grep -m1 -o '[0-9]* cases, 0 failures' "$out")"
else
    fail=$((fail + 1)); echo "FAIL pathmc mcast over IP on one host (exit $rc)"; grep -v '^coll:pathmc: comm=[0-9]* size' "$out" | tail -n 8 | sed 's/^/    /'
fi
rm -f "$out"
# 10b. MPI_Ibcast over the same group (the communicator's first call an Ibcast: the group
#      opens from the progress engine): the datatype matrix with 4 Ibcasts outstanding,
#      completed out of order; bcast_setup's first calls, Ibcasts around a Bcast and three
#      threads at once (MPI_THREAD_MULTIPLE); rank 3 without memory for a strided
#      Ibcast's packed bytes (bcast_fault with libfailalloc, rank 3 a receiver and the
#      root: every rank ends with an error, the next call is right); the plan lines say
#      "ibcast ... algorithm=mcast".
for spec in "bcast_check|np=4 MPI_Ibcast(4 outstanding) .* 0 failures|-n -k 4 -l 100000" \
            "bcast_setup|np=4 provided=multiple .* 0 failures|-t" \
            "bcast_fault|np=4 .* 0 failures ([1-9][0-9]* injected|-t vector -n" \
            "bcast_fault|np=4 .* 0 failures ([1-9][0-9]* injected|-t vector -n -r 3"; do
    IFS='|' read -r prog want args <<<"$spec"
    [ -n "${MATRIX_DRY:-}" ] && { echo "PASS pathmc mcast ibcast $prog"; continue; }
    if [ "$prog" = bcast_fault ] && grep -qs libasan "$MPIRUN"; then
        echo "SKIP pathmc mcast ibcast bcast_fault $args: under the sanitizers (their allocator is preloaded already)"
        continue
    fi
    pre=()
    [ "$prog" = bcast_fault ] && pre=(-x LD_PRELOAD="$BUILD_DIR/.libs/libfailalloc.so"
                                      -x MCAST_FAILALLOC_RANK=3 -x MCAST_FAILALLOC_CALLER="$COMPONENT_DIR/"
                                      -x MCAST_FAILALLOC_BYTES=4096)
    out=$(mktemp)
    timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" "${pre[@]}" \
        --mca coll_pathmc_algorithm mcast --mca coll_pathmc_mcast_transport ip \
        "$BUILD_DIR/$prog" $args >"$out" 2>&1
    rc=$?
    if grep -q "^coll:pathmc: comm=[0-9]* multicast not used" "$out"; then
        echo "SKIP pathmc mcast ibcast $prog on this host: $(grep -m1 '^coll:pathmc: comm=[0-9]* multicast not used' "$out")"
    elif [ $rc -eq 0 ] && grep -q "$want" "$out" &&
        grep -q "^coll:pathmc: ibcast comm=[0-9]* size=4 .*algorithm=mcast .*transport=ip" "$out" &&
        ! grep -q "^coll:pathmc: ibcast .*algorithm=[^m]" "$out"; then
        pass=$((pass + 1)); echo "PASS pathmc mcast ibcast over IP on one host, $prog $args: $(grep -m1 -o '[0-9]* \(cases\|checks\), 0 failures' "$out")"
    else
        fail=$((fail + 1)); echo "FAIL pathmc mcast ibcast over IP on one host, $prog $args (exit $rc)"; grep -v '^coll:pathmc: \(ibcast \)\{0,1\}comm=[0-9]* size' "$out" | tail -n 8 | sed 's/^/    /'
    fi
    rm -f "$out"
done
# Decision rules (coll_kbinomial_rules_file): a matching line replaces the model under
# auto; ranks that hold different tables, or a table that does not parse, leave the
# choice to the model on every rank of the communicator (no hang, same data; in the
# first case sub-communicators without the odd rank agree and use the rules).
rules=$(mktemp) rules_b=$(mktemp) rules_bad=$(mktemp) rules_prev=$(mktemp)
printf '# test table\n* 0-1023 linear\n* 1k-64k kbinomial k=2 segment_bytes=4k\n2-3 * postal where=node segment_bytes=16k\n* * auto\n' >"$rules"
sed 's/k=2/k=3/' "$rules" >"$rules_b"
printf '* 1k- broadcast\n* * linear\n' >"$rules_bad"
row "rules np=4" "kbinomial:kbinomial k=2 segment_bytes=4096 .*selected_by=rules:3" 4 PML_OB1 \
    --mca coll_kbinomial_rules_file "$rules" "$CHECK" -l 20000
row "rules np=3 postal line" "kbinomial:postal .*segment_bytes=16384 .*selected_by=rules:4" 3 PML_OB1 \
    --mca coll_kbinomial_rules_file "$rules" "$CHECK" -l 100000
rules_check() {  # NAME WANT_STDERR_PATTERN WANT_SELECTED_BY MPIRUN_ARGS...
    local name=$1 want=$2 want_by=$3 out
    shift 3
    out=$(mktemp)
    if timeout "$TIMEOUT" "$MPIRUN" -np 3 "${BASE[@]}" "${PML_OB1[@]}" "$@" >"$out" 2>&1 &&
        grep -q "0 failures" "$out" && grep -q "$want" "$out" &&
        grep -q "^coll:kbinomial: comm=0 .*selected_by=$want_by" "$out" &&
        { [ "$want_by" != model ] || ! grep -q "^coll:kbinomial: comm=0 .*selected_by=rules" "$out"; }; then
        pass=$((pass + 1)); echo "PASS $name"
    else
        fail=$((fail + 1)); echo "FAIL $name"; tail -n 5 "$out" | sed 's/^/    /'
    fi
    rm -f "$out"
}
rules_check "rules differ between ranks -> model everywhere" "ranks hold different rules" model \
    --mca coll_kbinomial_rules_file "$rules" \
    sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then export OMPI_MCA_coll_kbinomial_rules_file="$0"; fi; exec "$@"' \
    "$rules_b" "$CHECK" -l 20000
rules_check "rules file with an unknown algorithm -> that line skipped" ":1: unknown algorithm 'broadcast': line skipped" \
    "rules:2" --mca coll_kbinomial_rules_file "$rules_bad" "$CHECK" -l 20000
printf '* 1k-64k previous\n* * auto\n' >"$rules_prev"
rules_check "rules 'previous' -> the module below serves 1k-64k, data checked" \
    "the module below serves this size class" "previous:rules:1" \
    --mca coll_kbinomial_rules_file "$rules_prev" "$CHECK" -l 100000
rules_check "rules file set on one rank only -> model everywhere" "ranks hold different rules" model \
    sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 2 ]; then export OMPI_MCA_coll_kbinomial_rules_file="$0"; fi; exec "$@"' \
    "$rules" "$CHECK" -l 20000
rm -f "$rules" "$rules_b" "$rules_bad" "$rules_prev"
# 6. bad input
for np in 2 4; do
    for alg in $ALGS; do
        row "errors np=$np alg=$alg" "-" "$np" PML_OB1 \
            --mca coll_kbinomial_algorithm "$alg" "$ERRORS"
    done
done

# 7. fallback policy: a forced algorithm that does not apply (twolevel needs several
#    nodes).  silent/warn: the previous module (tuned) serves, data correct, no plan line;
#    error: the call fails with an MPI error, no hang.
for policy in silent warn; do
    out=$(mktemp) err=$(mktemp)
    if timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${PML_OB1[@]}" --mca coll_kbinomial_algorithm twolevel \
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
    --mca coll_kbinomial_algorithm twolevel "$CHECK" -l 4096 >"$out" 2>&1; then
    fail=$((fail + 1)); echo "FAIL fallback=error: the bcast succeeded although no plan exists"
elif grep -q 'declined (twolevel needs several nodes.*) and coll_kbinomial_fallback=error' "$out"; then
    pass=$((pass + 1)); echo "PASS fallback=error: the call fails with an MPI error, no hang"
else
    fail=$((fail + 1)); echo "FAIL fallback=error: unexpected output"; tail -n 5 "$out" | sed 's/^/    /'
fi
rm -f "$out"
# 7a. The same refusal where the first calls are nonblocking (bcast_setup -t: first
#     MPI_Ibcasts, Ibcasts around a Bcast, three threads at once): every MPI_Ibcast or
#     MPI_Wait that fails says MPI_ERR_UNSUPPORTED_OPERATION, a start that failed leaves
#     MPI_REQUEST_NULL (the program waits on it), no crash, no hang.
out=$(mktemp)
timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" \
    --mca coll_kbinomial_algorithm twolevel "$SETUP" -t -l 4 >"$out" 2>&1
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "MPI_Ibcast(after): MPI_ERR_UNSUPPORTED_OPERATION" "$out" &&
    grep -q "MPI_Wait(first): MPI_ERR_UNSUPPORTED_OPERATION" "$out" &&
    ! grep -qi "signal\|segmentation\|MPI_ERR_INTERN\|MPI_ERR_REQUEST" "$out"; then
    pass=$((pass + 1)); echo "PASS fallback=error, nonblocking first calls and threads: MPI_ERR_UNSUPPORTED_OPERATION, no crash, no hang"
else
    fail=$((fail + 1)); echo "FAIL fallback=error, nonblocking first calls and threads (exit $rc)"
    grep -v 'declined\|MPI_ERR_UNSUPPORTED_OPERATION\|wrong$' "$out" | tail -n 8 | sed 's/^/    /'
fi
rm -f "$out"
# 7b. Intercommunicators under the same forced twolevel (bcast_intercomm): our components
#     do not serve them; Open MPI's coll/inter does, over each group's local communicator
#     (ours), and MPI_Intercomm_create broadcasts on the local communicator it is given.
#     silent/warn: the module below serves, MPI_Intercomm_create succeeds and every
#     MPI_Bcast and MPI_Ibcast on the intercommunicators (even/odd ranks; rank 0 and the
#     others) delivers the root's data, no plan line; error: MPI_Bcast on the even/odd
#     communicator fails with MPI_ERR_UNSUPPORTED_OPERATION, and MPI_Intercomm_create,
#     whose own broadcast there is refused alike, fails on every rank instead of returning
#     a communicator (Open MPI reports any failure inside it as MPI_ERR_INTERN), no hang.
INTERCOMM=$BUILD_DIR/bcast_intercomm
for policy in silent warn; do
    for np in 4 5; do
        out=$(mktemp)
        if timeout "$TIMEOUT" "$MPIRUN" -np "$np" "${BASE[@]}" "${PML_OB1[@]}" \
            --mca coll_kbinomial_algorithm twolevel --mca coll_kbinomial_fallback "$policy" \
            "$INTERCOMM" >"$out" 2>&1 && grep -q "np=$np served .* 0 failures" "$out" &&
            ! grep -q '^coll:kbinomial: comm=.* algorithm=' "$out" &&
            { [ "$policy" = silent ] || grep -q 'declined (twolevel needs several nodes' "$out"; }; then
            pass=$((pass + 1)); echo "PASS intercommunicators, twolevel forced, fallback=$policy np=$np: $(grep -o '[0-9]* checks, 0 failures' "$out")"
        else
            fail=$((fail + 1)); echo "FAIL intercommunicators, twolevel forced, fallback=$policy np=$np"
            grep -v '^coll:kbinomial: comm=[0-9]*: declined' "$out" | tail -n 5 | sed 's/^/    /'
        fi
        rm -f "$out"
    done
done
out=$(mktemp)
if timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${FALLBACK_ERROR[@]}" "${PML_OB1[@]}" \
    --mca coll_kbinomial_algorithm twolevel "$INTERCOMM" -e >"$out" 2>&1 &&
    grep -q "np=4 refused .* 0 failures" "$out" &&
    grep -q 'declined (twolevel needs several nodes.*) and coll_kbinomial_fallback=error' "$out"; then
    pass=$((pass + 1)); echo "PASS intercommunicators, twolevel forced, fallback=error: MPI_ERR_UNSUPPORTED_OPERATION, MPI_Intercomm_create fails, no hang"
else
    fail=$((fail + 1)); echo "FAIL intercommunicators, twolevel forced, fallback=error"; tail -n 5 "$out" | sed 's/^/    /'
fi
rm -f "$out"

# 8. Parameters: out of range -> the default with a message (every rank alike); set
#    differently on one rank, or to a value that does not parse on one rank -> the module
#    below serves on every rank (one warning), no hang, data correct.  (Per-rank values
#    through the environment of one rank.)
param_check() {  # NAME WANT_STDERR_PATTERN PLAN_LINE(yes|no) MPIRUN_ARGS...
    local name=$1 want=$2 plan=$3 out
    shift 3
    out=$(mktemp)
    local planned=no
    if timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${PML_OB1[@]}" "$@" >"$out" 2>&1 &&
        grep -q "0 failures" "$out" && grep -q "$want" "$out"; then
        grep -q '^coll:kbinomial: comm=0 .* algorithm=' "$out" && planned=yes
    else
        planned=error
    fi
    if [ "$planned" = "$plan" ]; then
        pass=$((pass + 1)); echo "PASS $name"
    else
        fail=$((fail + 1)); echo "FAIL $name"; grep -v '^coll:kbinomial: .*comm=' "$out" | tail -n 5 | sed 's/^/    /'
    fi
    rm -f "$out"
}
param_check "window=-1 -> default with a message" "coll_kbinomial_window=-1 is outside \[0, 1024\]; using 0" yes \
    --mca coll_kbinomial_window -1 "$CHECK" -l 4096
param_check "window=2147483647 -> default with a message" "coll_kbinomial_window=2147483647 is outside" yes \
    --mca coll_kbinomial_window 2147483647 "$CHECK" -l 4096
param_check "k=-1 -> default with a message" "coll_kbinomial_k=-1 is outside" yes \
    --mca coll_kbinomial_k -1 "$CHECK" -l 4096
for p in "window 2" "algorithm linear" "segment_bytes 4096" "k 2" "lambda 3" "max_sends 1" "fallback warn"; do
    set -- $p
    param_check "coll_kbinomial_$1=$2 on rank 1 only -> module below everywhere" \
        "ranks hold different coll_kbinomial_\* parameters" no \
        sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then export OMPI_MCA_coll_kbinomial_'"$1"'="$0"; fi; exec "$@"' \
        "$2" "$CHECK" -l 4096
done
coords=$(mktemp)
printf 'torus 2x2\nhost %s 1 0\n' "$(hostname)" >"$coords"
param_check "pathmc coords_file on rank 1 only -> not used, no hang" "different topology/coordinates files" yes \
    sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then export OMPI_MCA_coll_pathmc_coords_file="$0"; fi; exec "$@"' \
    "$coords" "$CHECK" -l 4096
rm -f "$coords"
# A value this process cannot read: one Open MPI refuses (an unknown enum name, an int
# beyond int: its registration fails, which used to drop the component on that rank
# alone, so that rank ran tuned's bcast while the others waited in our first call's
# agreement) or reads leniently (trailing garbage, a negative size, a double that is no
# number).  The process keeps the default, says so in one line, and still takes part in
# the agreement: on rank 3 only, the module below serves every rank (one warning from
# rank 0, no plan of the component on comm 0); on every rank, each says so and the
# default runs (our plan line, no warning).  A LOCAL parameter (verbose) on one rank
# needs no agreement: our plans run.  No hang, data correct in every case.
unparsed_check() {  # COMPONENT PARAM VALUE one|all|one-local
    local comp=$1 param=$2 value=$3 where=$4 out rc why=""
    local name="coll_${comp}_$param=$value on rank 3 only"
    [ "$where" = all ] && name="coll_${comp}_$param=$value on every rank"
    out=$(mktemp)
    if [ "$where" = all ]; then
        timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${PML_OB1[@]}" \
            --mca "coll_${comp}_$param" "$value" "$CHECK" -l 4096 >"$out" 2>&1
    else
        timeout "$TIMEOUT" "$MPIRUN" -np 4 "${BASE[@]}" "${PML_OB1[@]}" \
            sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 3 ]; then export "OMPI_MCA_$0=$1"; fi; shift; exec "$@"' \
            "coll_${comp}_$param" "$value" "$CHECK" -l 4096 >"$out" 2>&1
    fi
    rc=$?
    local said warned planned own
    said=$(grep -cF "coll:$comp: coll_${comp}_$param=\"$value\" is not " "$out")
    warned=$(grep -c "^coll:$comp: comm=0: the ranks hold different coll_${comp}_\* parameters" "$out")
    planned=$(grep -c '^coll:kbinomial: comm=0 .* algorithm=' "$out")
    own=$planned
    [ "$comp" = pathmc ] && own=0 # (no torus here: pathmc hands every call to kbinomial)
    if [ $rc -eq 124 ]; then
        why="timeout after ${TIMEOUT}s (hang)"
    elif [ $rc -ne 0 ]; then
        why="exit $rc"
    elif ! grep -q "0 failures" "$out"; then
        why="wrong data"
    elif [ "$where" = all ]; then
        [ "$said" -eq 4 ] || why="$said lines about the value, want one per process (4)"
        [ "$warned" -eq 0 ] || why="$why; the ranks were found to disagree"
        [ "$planned" -gt 0 ] || why="$why; no plan line on comm 0 (the default did not run)"
    else
        [ "$said" -eq 1 ] || why="$said lines about the value, want 1 (from rank 3)"
        if [ "$where" = one-local ]; then
            [ "$warned" -eq 0 ] || why="$why; a local parameter made the ranks disagree"
            [ "$planned" -gt 0 ] || why="$why; no plan line on comm 0"
        else
            [ "$warned" -eq 1 ] || why="$why; $warned disagreement warnings on comm 0, want 1"
            [ "$own" -eq 0 ] || why="$why; coll/$comp still planned comm 0"
        fi
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1)); echo "PASS $name"
    else
        fail=$((fail + 1)); echo "FAIL $name: ${why#; }"
        grep -v '^coll:[a-z]*: .*comm=.*algorithm=' "$out" | tail -n 6 | sed 's/^/    /'
    fi
    rm -f "$out"
}
for p in "kbinomial algorithm bogus" "kbinomial window 2147483648" "kbinomial segment_bytes garbage" \
         "kbinomial shm_chunk_bytes -1" "kbinomial lambda bogus" "kbinomial k 12abc" \
         "kbinomial priority 2147483648" "kbinomial fallback eror" \
         "kbinomial postal_pipelining maybe" "pathmc mcast_transport bogus" \
         "pathmc window 2147483648" "pathmc segment_bytes -1" "pathmc mu_r 4x"; do
    set -- $p
    unparsed_check "$1" "$2" "$3" one
done
for p in "kbinomial algorithm bogus" "kbinomial window 2147483648" "kbinomial segment_bytes garbage" \
         "kbinomial shm_chunk_bytes -1" "pathmc mcast_transport bogus" "pathmc segment_bytes -1"; do
    set -- $p
    unparsed_check "$1" "$2" "$3" all
done
unparsed_check kbinomial verbose 2147483648 one-local

echo "run_matrix: details in $LOG"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
