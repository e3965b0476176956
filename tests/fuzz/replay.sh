#!/bin/sh
# make check: every committed fuzz input (corpus/TARGET, regressions/TARGET) through its
# target in fuzz_replay (the targets' invariants, without sanitizers unless the build
# has them: tests/asan/run.sh).  Environment: FUZZ_TARGETS, REPLAY, FUZZ_DIR.
status=0
total=0
for t in $FUZZ_TARGETS; do
    set --
    for f in "$FUZZ_DIR/corpus/$t"/* "$FUZZ_DIR/regressions/$t"/*; do
        [ -f "$f" ] && set -- "$@" "$f"
    done
    if [ $# -eq 0 ]; then
        echo "FAIL $t: no committed inputs"
        status=1
        continue
    fi
    if "$REPLAY" "$t" "$@"; then total=$((total + $#)); else echo "FAIL $t"; status=1; fi
done
echo "replay: $total committed inputs"
exit $status
