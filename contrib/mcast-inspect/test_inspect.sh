#!/bin/sh
# mcast-inspect end to end on the shipped examples (run by `make check`).
#
#   INSPECT   the mcast-inspect binary    (default: ./mcast-inspect/mcast-inspect)
#   EXAMPLES  contrib/examples            (default: next to this script)
#
# Prints one line per check and "N passed, M failed"; exits 1 on any failure.

here=$(cd "$(dirname "$0")" && pwd)
INSPECT=${INSPECT:-$here/mcast-inspect}
EXAMPLES=${EXAMPLES:-$here/../examples}
TORUS=$EXAMPLES/torus-4x4.topo
IRREG=$EXAMPLES/irregular-8sw-16h.ibnet
SLURM=$EXAMPLES/slurm-topology.conf

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_inspect.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAIL: $1"; }
check() { # check NAME COMMAND...: pass when COMMAND succeeds
    name=$1
    shift
    if "$@"; then ok "$name"; else bad "$name"; fi
}

# Lines of one "== NAME ==" section of a report.
section() { sed -n "/^== $1 ==\$/,/^\$/p" "$2"; }

# run NAME ARGS...: output in $tmp/NAME.out/.err, status in $tmp/NAME.rc
run() {
    name=$1
    shift
    "$INSPECT" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    echo $? >"$tmp/$name.rc"
}
status_is() { [ "$(cat "$tmp/$1.rc")" = "$2" ]; }

# 1. k-binomial on the 4x4 torus (DOR chain, DOR routes): no link conflicts.
run torus --topology "$TORUS" --algorithm kbinomial --bytes 64K
check "torus kbinomial exits 0" status_is torus 0
check "torus kbinomial: total conflicts 0" grep -qx 'total conflicts: 0' "$tmp/torus.out"
steps=$(section conflicts "$tmp/torus.out" | grep -c '^step [0-9]*: ')
clean=$(section conflicts "$tmp/torus.out" | grep -c '^step [0-9]*: conflicts 0,')
check "torus kbinomial: every step has 0 conflicts" test "$steps" -gt 0 -a "$steps" = "$clean"
check "torus kbinomial: predicted time printed" grep -q '^predicted_us: [0-9]' "$tmp/torus.out"

# 2. The ordering section lists every rank exactly once (torus: 16, irregular: 16,
#    Slurm with repeated hosts: 5).
ranks_once() { # ranks_once REPORT N
    section ordering "$1" | sed -n 's/^ *[0-9][0-9]*: \([0-9][0-9]*\):.*/\1/p' | sort -n >"$tmp/ranks"
    seq 0 $(($2 - 1)) >"$tmp/expect"
    cmp -s "$tmp/ranks" "$tmp/expect"
}
check "torus ordering lists ranks 0..15 once" ranks_once "$tmp/torus.out" 16
run irreg --topology "$IRREG" --algorithm kbinomial --root 3 --bytes 64K
check "irregular kbinomial exits 0" status_is irreg 0
check "irregular ordering lists ranks 0..15 once" ranks_once "$tmp/irreg.out" 16
check "irregular: chain starts at the root" grep -qx '  0: 3:host3' "$tmp/irreg.out"
run slurm --topology "$SLURM" --hosts node01,node01,node05,node09,node12 --algorithm binomial
check "slurm with repeated hosts exits 0" status_is slurm 0
check "slurm ordering lists ranks 0..4 once" ranks_once "$tmp/slurm.out" 5

# 3. Every algorithm of the torus family runs on the torus, and each report has
#    its sections.
for alg in binomial linear postal chain separate utorus storus mdtorus mutorus; do
    run "alg_$alg" --topology "$TORUS" --algorithm "$alg" --root 5
    check "torus $alg exits 0" status_is "alg_$alg" 0
    for s in input ordering tree conflicts model; do
        grep -qx "== $s ==" "$tmp/alg_$alg.out" || bad "torus $alg: section $s missing"
    done
done

# 3b. The registry: one algorithm a line with a description and its component; names
#     unique; auto, the k-binomial family and the torus family are there; the auto plan
#     says which algorithm the planner chose and why.
run list --list-algorithms
check "--list-algorithms exits 0" status_is list 0
check "--list-algorithms: names unique" test "$(awk '{print $1}' "$tmp/list.out" | sort | uniq -d | wc -l)" = 0
for a in auto kbinomial postal chain twolevel utorus mutorus; do
    grep -q "^$a  *[a-z].*\[coll/" "$tmp/list.out" || bad "--list-algorithms: $a missing"
done
check "--list-algorithms: every line names its component" \
    test "$(grep -vc '\[coll/\(kbinomial\|pathmc\|kbinomial,pathmc\)\]$' "$tmp/list.out")" = 0
run auto --topology "$TORUS" --bytes 1M
check "auto exits 0" status_is auto 0
check "auto: the plan line says selected_by=model" grep -q '^plan: algorithm=[a-z]* .*selected_by=model' "$tmp/auto.out"
# the runner-up verification would try: another algorithm, predicted no faster; none where
# an algorithm is forced
auto_alg=$(sed -n 's/^plan: algorithm=\([a-z_]*\) .*/\1/p' "$tmp/auto.out")
ru_alg=$(sed -n 's/^runner_up: algorithm=\([a-z_]*\) predicted_us=\([0-9.]*\) (\([0-9.]*\) % over.*/\1/p' "$tmp/auto.out")
ru_pct=$(sed -n 's/^runner_up: algorithm=[a-z_]* predicted_us=[0-9.]* (\([0-9.]*\) % over.*/\1/p' "$tmp/auto.out")
check "auto: a runner-up of another algorithm, no faster" \
    test -n "$ru_alg" -a "$ru_alg" != "$auto_alg" -a -n "$ru_pct"
run forced_ru --topology "$TORUS" --bytes 1M --algorithm kbinomial
check "forced: no runner-up" test "$(grep -c '^runner_up:' "$tmp/forced_ru.out")" = 0

# 3c. The schedule families: no tree, every rank's schedule checked together in exactly the
#     family's rounds, the conflicts of all their messages, a picture of the first block.
for alg in scatter_allgather twotree circulant; do
    run "fam_$alg" --topology "$IRREG" --algorithm "$alg" --bytes 100000 --segment-bytes 8192
    check "$alg exits 0" status_is "fam_$alg" 0
    formula=$(sed -n 's/^rounds: \([0-9]*\) (the family.s formula.*/\1/p' "$tmp/fam_$alg.out")
    checked=$(sed -n 's/^rounds_checked: \([0-9]*\) .*/\1/p' "$tmp/fam_$alg.out")
    check "$alg: the checker's rounds ($checked) equal the formula's ($formula)" \
        test -n "$formula" -a "$formula" = "$checked"
    check "$alg: no tree, a schedule family" grep -q "^none: $alg is a schedule family" "$tmp/fam_$alg.out"
done
check "circulant: 13 blocks in 13 - 1 + ceil(log2 16) = 16 rounds" \
    grep -qx 'rounds: 16 (the family.s formula, unit steps)' "$tmp/fam_circulant.out"
# across hosts the circulant sends synchronously, over TCP (--tcp, as the components see
# Open MPI's TCP BTL) standard (E-SYNC-3; the model of each: test_mc_planner's test_sync_sends)
run fam_tcp --topology "$IRREG" --algorithm circulant --bytes 100000 --segment-bytes 8192 --tcp
check "circulant: sends=sync across hosts" grep -q '^plan: algorithm=circulant .* sends=sync ' "$tmp/fam_circulant.out"
check "circulant --tcp: standard sends" test "$(grep -c '^plan: algorithm=circulant .*predicted_us' "$tmp/fam_tcp.out")" = 1 -a \
    "$(grep -c '^plan: .*sends=sync' "$tmp/fam_tcp.out")" = 0
run fam_pic --topology "$IRREG" --algorithm circulant --bytes 100000 --picture "$tmp/fam.dot"
check "circulant picture: the first block reaches 15 ranks" \
    test "$(grep -c 'label="s' "$tmp/fam.dot")" = 15

# 3d. Several ranks per host: as the component, auto hands every block on through each
#     host's shared segment (twolevel intra=shm, transport pml+shm); without a segment
#     (--shm-chunk-bytes 0) it plans over the PML.
printf 'switch s0\nhost a\nhost b\nhost c\nlink s0 a\nlink s0 b\nlink s0 c\n' >"$tmp/three.topo"
run segs --topology "$tmp/three.topo" --hosts a,a,b,b,c,c --bytes 1M
check "hosts with 2 ranks: exits 0" status_is segs 0
check "hosts with 2 ranks: twolevel intra=shm over pml+shm" \
    grep -q '^plan: algorithm=twolevel .*intra=shm .*transport=pml+shm' "$tmp/segs.out"
run nosegs --topology "$tmp/three.topo" --hosts a,a,b,b,c,c --bytes 1M --shm-chunk-bytes 0
check "no segment: exits 0" status_is nosegs 0
check "no segment: no pml+shm plan" test "$(grep -c 'pml+shm' "$tmp/nosegs.out")" = 0

# 4. A malformed topology: exit 2, "file:line: message" on stderr.
printf 'torus 4x4\nhost a 0 0\nhost b 0 9\n' >"$tmp/bad.topo"
run malformed --topology "$tmp/bad.topo"
check "malformed file exits 2" status_is malformed 2
check "malformed file reports file:line" grep -q "^$tmp/bad.topo:3: " "$tmp/malformed.err"
run missing --topology "$tmp/does-not-exist.topo"
check "missing file exits 2" status_is missing 2

# 5. Unknown host, algorithm, torus algorithm off a torus: exit 2 with a message.
run unknown_host --topology "$TORUS" --hosts node00,nosuchhost
check "unknown host exits 2" status_is unknown_host 2
check "unknown host is named" grep -q "nosuchhost" "$tmp/unknown_host.err"
run unknown_alg --topology "$TORUS" --algorithm quantum
check "unknown algorithm exits 2" status_is unknown_alg 2
check "unknown algorithm is named" grep -q "unknown algorithm 'quantum'" "$tmp/unknown_alg.err"
run not_torus --topology "$IRREG" --algorithm utorus
check "torus algorithm on a graph exits 2" status_is not_torus 2
run bad_root --topology "$TORUS" --root 16
check "root out of range exits 2" status_is bad_root 2
run help --help
check "--help exits 0 and prints usage" sh -c "[ \$(cat '$tmp/help.rc') = 0 ] && grep -q '^Usage: mcast-inspect' '$tmp/help.out'"

# 6. --picture: a DOT file with the fabric and the tree's edges.
run picture --topology "$IRREG" --bytes 64K --picture "$tmp/tree.dot"
check "picture run exits 0" status_is picture 0
check "DOT file produced" test -s "$tmp/tree.dot"
check "DOT file is a digraph" grep -q '^digraph mcast_inspect {' "$tmp/tree.dot"
check "DOT has switches as boxes" grep -q 'shape=box' "$tmp/tree.dot"
check "DOT has 15 tree edges" sh -c "[ \$(grep -c 'label=\"s[0-9]' '$tmp/tree.dot') = 15 ]"
if command -v dot >/dev/null 2>&1; then
    run svg --topology "$TORUS" --picture "$tmp/tree.svg"
    check "SVG rendered through dot" sh -c "[ \$(cat '$tmp/svg.rc') = 0 ] && grep -q '<svg' '$tmp/tree.svg'"
fi

# 7. The report is stable: the same command prints the same bytes.
run torus_again --topology "$TORUS" --algorithm kbinomial --bytes 64K
check "report is deterministic" cmp -s "$tmp/torus.out" "$tmp/torus_again.out"

# 8. Deep trees (issue 18: print_tree_ascii recursed once per level and indented 4
#    bytes per level, so an S-torus chain's picture grew quadratically until SIGSEGV):
#    the picture lists every rank once, in lines of bounded width.
printf 'torus 8x8x8\n' >"$tmp/t512.topo"
run deep --topology "$tmp/t512.topo" --algorithm storus
check "storus on 512 hosts exits 0" status_is deep 0
check "storus on 512 hosts: tree depth 511" grep -qx 'depth: 511' "$tmp/deep.out"
sed -n '/^tree:$/,/^$/p' "$tmp/deep.out" | sed '1d;$d' >"$tmp/deep.tree"
tree_ranks_once() { # tree_ranks_once PICTURE N: "<drawing> RANK HOST [(step S)]" lines
    sed 's/ (step [0-9]*)$//' "$1" | awk '{ print $(NF - 1) }' | sort -n >"$tmp/ranks"
    seq 0 $(($2 - 1)) >"$tmp/expect"
    cmp -s "$tmp/ranks" "$tmp/expect"
}
check "deep tree picture lists ranks 0..511 once" tree_ranks_once "$tmp/deep.tree" 512
width=$(awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$tmp/deep.tree")
check "deep tree picture lines are at most 200 bytes (widest $width)" test "$width" -le 200
check "deep tree picture marks levels below 32" grep -q '\[depth 511\] `-- ' "$tmp/deep.tree"

# 9. Every rank on one host: auto plans the shared segment as the component does (no
#    messages to check); without a segment (--shm-chunk-bytes 0) a tree over the PML.
printf 'switch s0\nhost a\nlink s0 a\nhost b\nlink s0 b\n' >"$tmp/one.topo"
run onehost --topology "$tmp/one.topo" --hosts a,a,a,a --bytes 1M
check "one host: auto plans shm" grep -q '^plan: algorithm=shm .*transport=shm' "$tmp/onehost.out"
check "one host: shm's chunks (32 x 32 KiB: a core per rank)" grep -qx 'segments: 32' "$tmp/onehost.out"
run onehost_pml --topology "$tmp/one.topo" --hosts a,a,a,a --bytes 1M --shm-chunk-bytes 0
check "one host, no segment: a PML plan" grep -q '^plan: algorithm=[a-z_]* .*transport=pml' "$tmp/onehost_pml.out"
run twohosts --topology "$tmp/one.topo" --hosts a,a,b,b --bytes 1M --algorithm shm
check "two hosts: shm forced is refused (exit 2)" status_is twohosts 2

# 10. The machine file's keys: docs/machine-model.md's table is the core's table
DOC=${MACHINE_DOC:-$here/../../docs/machine-model.md}
"$INSPECT" --machine-keys >"$tmp/keys.md" 2>&1
sed -n '/^<!-- machine-keys: begin -->$/,/^<!-- machine-keys: end -->$/p' "$DOC" | sed '1d;$d' >"$tmp/keys.doc"
check "docs/machine-model.md lists the machine keys of mcast-inspect --machine-keys ($(($(wc -l <"$tmp/keys.md") - 2)) keys)" \
    cmp -s "$tmp/keys.md" "$tmp/keys.doc"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
