#!/bin/sh
# run-fuzz.sh BUILD_DIR SRC_DIR RUNS TARGET...: libFuzzer on each target, RUNS inputs
# (0: only the committed inputs), starting from corpus/TARGET and regressions/TARGET;
# new inputs go to BUILD_DIR/corpus-TARGET, findings to BUILD_DIR/artifacts/.  Prints
# one line per target with libFuzzer's count of executed inputs; exits 1 on a finding.
set -u
build=$1 src=$2 runs=$3
shift 3
mkdir -p "$build/artifacts"
status=0
for t in "$@"; do
    mkdir -p "$build/corpus-$t"
    log="$build/fuzz_$t.log"
    dirs="$src/corpus/$t $src/regressions/$t"
    [ "$runs" = 0 ] || dirs="$build/corpus-$t $dirs"   # new inputs go to the first directory
    # shellcheck disable=SC2086
    "$build/fuzz_$t" -runs="$runs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        -dict="$src/parsers.dict" -artifact_prefix="$build/artifacts/$t-" $dirs >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    if [ $rc -eq 0 ]; then
        echo "fuzz $t: ${execs:-?} inputs, no finding (log $log)"
    else
        echo "fuzz $t: FINDING after ${execs:-?} inputs (exit $rc): $(ls "$build/artifacts/$t-"* 2>/dev/null)"
        grep -m3 -E 'ERROR|SUMMARY|invariant' "$log" | sed 's/^/    /'
        status=1
    fi
done
exit $status
