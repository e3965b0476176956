#!/bin/sh
# ASan + UBSan build of the components and the cores, and the tests that run them:
# unit tests, fuzz replay, tool tests and the MPI matrix (MATRIX=quick by default), with
# the sanitizer runtimes preloaded into the MPI processes (Open MPI itself is not
# instrumented, so its own leaks are not reported: detect_leaks=0).  `make check-asan`
# runs this script.  Documented in tests/asan/README.md.
#
#   ASAN_BUILD   build directory (default /tmp/mcast-asan-build; a copy of the
#                sources is built in place there, the source tree is not touched)
#   MATRIX       quick|full|elements (default quick; see tests/mpi/run_matrix.sh)
#   ASAN_SUITES  what to run (default "unit fuzz contrib mpi")
#
# Prints one line per suite and the number of sanitizer reports (from log_path
# files); exits 1 when a suite fails or any report was written.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${ASAN_BUILD:-/tmp/mcast-asan-build}
MATRIX=${MATRIX:-quick}
export MATRIX
suites=${ASAN_SUITES:-unit fuzz contrib mpi}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
logs=$build/sanitizer-logs

libasan=$(gcc -print-file-name=libasan.so)
libubsan=$(gcc -print-file-name=libubsan.so)
if [ ! -e "$libasan" ] || [ ! -e "$libubsan" ]; then
    echo "SKIP: gcc has no libasan/libubsan ($libasan, $libubsan)"
    exit 77
fi

echo "asan: copying the sources to $build"
mkdir -p "$build"
(cd "$src" && git ls-files -z --cached --others --exclude-standard | tar cf - --null -T -) | (cd "$build" && tar xf -) ||
    exit 1
cd "$build" || exit 1
if [ ! -f Makefile ]; then
    (autoreconf -fi && ./configure CFLAGS="-g -O1 $san" CXXFLAGS="-g -O1 $san" LDFLAGS="$san") \
        >asan-configure.log 2>&1 || { echo "asan: configure failed (asan-configure.log)"; exit 1; }
fi
make -j2 >asan-build.log 2>&1 || { echo "asan: build failed ($build/asan-build.log)"; exit 1; }

rm -rf "$logs"
mkdir -p "$logs"
# Reports go to files (one per process) so that none is lost in a test's output.
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan"
# mpirun itself runs without the runtimes; the MPI processes get them preloaded.
cat >"$build/mpirun-asan" <<EOF
#!/bin/sh
exec mpirun -x LD_PRELOAD="$libasan:$libubsan" -x ASAN_OPTIONS -x UBSAN_OPTIONS "\$@"
EOF
chmod +x "$build/mpirun-asan"

status=0
for s in $suites; do
    case $s in
    unit) make -C tests/unit check >asan-unit.log 2>&1 ;;
    fuzz) make -C tests/fuzz check >asan-fuzz.log 2>&1 ;;
    contrib) make -C contrib check >asan-contrib.log 2>&1 ;;
    mpi) # every program the matrix runs, rebuilt from this copy of the sources (make
         # check with no TESTS builds check_PROGRAMS and runs nothing)
        make -C tests/mpi check TESTS= >asan-mpi.log 2>&1 &&
        BUILD_DIR="$build/tests/mpi" COMPONENT_DIR="$build/ompi/.libs" MPIRUN="$build/mpirun-asan" \
            tests/mpi/run_matrix.sh >>asan-mpi.log 2>&1 ;;
    *) echo "asan: unknown suite $s"; status=1; continue ;;
    esac
    rc=$?
    summary=$(grep -h -E '^# (PASS|FAIL|ERROR):|^[0-9]+ passed, [0-9]+ failed' "asan-$s.log" | tr '\n' ' ')
    if [ $rc -eq 0 ]; then echo "asan: $s passed: $summary"; else echo "asan: $s FAILED: $summary (asan-$s.log)"; status=1; fi
done
nrep=$(find "$logs" -type f | wc -l)
echo "asan: $nrep sanitizer reports in $logs"
if [ "$nrep" -gt 0 ]; then
    status=1
    for f in $(find "$logs" -type f | head -3); do sed -n '1,12p' "$f" | sed 's/^/    /'; done
fi
exit $status
