#!/bin/bash
# libFuzzer campaign on the multicast protocol's input path (fuzz_mcproto.c), built with
# clang under AddressSanitizer + UndefinedBehaviorSanitizer (any UB aborts).
#
#   tests/fuzz/run-libfuzzer.sh [RUNS (1000000)] [more libFuzzer flags...]
#
# Needs clang and libclang-rt-dev (contrib/deps.sh test).  Builds in $WORK (default
# a new /tmp/mcproto-fuzz.XXXXXX), seeds from the committed hex corpus, runs RUNS inputs
# with -seed=1, prints libFuzzer's final statistics; exit status is libFuzzer's (0 = no
# finding).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
runs=${1:-1000000}
[ $# -gt 0 ] && shift
CLANG=${CLANG:-clang}
CLANGXX=${CLANGXX:-clang++}
work=${WORK:-$(mktemp -d /tmp/mcproto-fuzz.XXXXXX)}
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$top/mcastcore" -I"$top/mcastcore/include")
"$CLANGXX" -std=c++17 "${flags[@]}" -c "$top/mcastcore/mcproto/pm_mcproto.cpp" -o "$work/pm_mcproto.o"
"$CLANGXX" -std=c++17 "${flags[@]}" -c "$top/mcastcore/mcproto/pm_crc32c.cpp" -o "$work/pm_crc32c.o"
"$CLANG" "${flags[@]}" -c "$here/fuzz_mcproto.c" -o "$work/fuzz_mcproto.o"
"$CLANGXX" "${flags[@]}" "$work"/pm_mcproto.o "$work"/pm_crc32c.o "$work"/fuzz_mcproto.o -o "$work/fuzz_mcproto"
mkdir -p "$work/corpus"
for f in "$here"/corpus/mcproto/*.hex; do
    grep -v '^#' "$f" | tr -d ' \n' | xxd -r -p > "$work/corpus/$(basename "$f" .hex)"
done
echo "run-libfuzzer: $work/fuzz_mcproto -runs=$runs -seed=1 -max_len=16384 $* (corpus $work/corpus)"
cd "$work"
./fuzz_mcproto -runs="$runs" -seed=1 -max_len=16384 -print_final_stats=1 "$@" corpus
