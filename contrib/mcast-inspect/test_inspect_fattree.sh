#!/bin/sh
# mcast-inspect --fat-tree end to end on the seed 004 examples (run by `make check`).
#
#   INSPECT   the mcast-inspect binary    (default: ./mcast-inspect/mcast-inspect)
#
# Prints one line per check and "N passed, M failed"; exits 1 on any failure.

here=$(cd "$(dirname "$0")" && pwd)
INSPECT=${INSPECT:-$here/mcast-inspect}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_inspect_fattree.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAIL: $1"; }
check() { # check NAME COMMAND...
    name=$1
    shift
    if "$@"; then ok "$name"; else bad "$name"; fi
}
same() { [ "$1" = "$2" ] || { echo "  expected: $2"; echo "  got:      $1"; return 1; }; }
status() { # status WANT ARGS...: exit status of mcast-inspect
    want=$1
    shift
    "$INSPECT" "$@" >"$tmp/out" 2>"$tmp/err"
    [ $? = "$want" ] || { echo "  exit status $? for: $*"; cat "$tmp/err"; return 1; }
}

# --- seed examples on IBFT(4,3)
check "LIDset(P(300)) = 49..52 (Fig. 4)" same "$("$INSPECT" --fat-tree 4,3 --lids 300)" "49 50 51 52"
check "IBA layout: P(300) owns 52..55" same "$("$INSPECT" --fat-tree 4,3 --lid-layout iba --lids p3-0-0)" "52 53 54 55"
"$INSPECT" --fat-tree 4,3 --path 000 200 >"$tmp/q"
check "path Q: P(000) uses DLID 33 for P(200)" same "$(sed -n 1p "$tmp/q")" "dlid 33"
check "path Q: ports as in sec 3.3.1" same "$(sed -n 2p "$tmp/q")" \
    "route P(000) SW<00,2>:1>3 SW<00,1>:1>3 SW<00,0>:1>3 SW<20,1>:3>1 SW<20,2>:3>1 P(200)"
lids=""
for s in 000 001 010 011; do lids="$lids $("$INSPECT" --fat-tree 4,3 --path $s 200 | sed -n 's/^dlid //p')"; done
check "paths Q, R, S, T use 33, 34, 35, 36 (Fig. 5)" same "$lids" " 33 34 35 36"
"$INSPECT" --fat-tree 4,3 --groups 200 >"$tmp/groups"
check "cyclic group CG(P(200), 0, 00) = {P(000), P(100), P(300)}" \
    grep -qx "  level 0 suffix 0 -> LID 33: P(000) P(100) P(300)" "$tmp/groups"
check "cyclic group CG(P(200), 2, e) = {P(201)}" grep -qx "  level 2 suffix 0 -> LID 33: P(201)" "$tmp/groups"
"$INSPECT" --fat-tree 4,3 --group 200,201,210,211 --sources 000 --scheme cyclic --picture "$tmp/fig7.dot" >"$tmp/fig7"
check "Fig. 7: SW<20,1> = {1, 2}" grep -q "^    SW<20,1> *{1, 2}$" "$tmp/fig7"
check "Fig. 7: SW<00,0> = {3}" grep -q "^    SW<00,0> *{3}$" "$tmp/fig7"
check "Fig. 7: every member reached once" grep -q "check: 4 reached, 0 missed, 0 duplicated, 0 spurious, 0 up-splits" "$tmp/fig7"
check "picture is a DOT graph with loads" grep -q 'label="1"' "$tmp/fig7.dot"
"$INSPECT" --fat-tree 4,3 --group all --sources 000,011,200,311 >"$tmp/m2m"
check "many-to-all loads: cyclic core 2, OpenSM core 4, ejection 4 each" sh -c \
    "grep -q '^  cyclic  *4  *2  *4 ' '$tmp/m2m' && grep -q '^  opensm  *4  *4  *4 ' '$tmp/m2m'"

# --- files for ibsim / OpenSM and the dump comparison
check "writers" "$INSPECT" --fat-tree 4,3 --write-ibnet "$tmp/net" --write-guid2lid "$tmp/g2l" --write-lfts "$tmp/lft"
check "net file: 20 switches, 16 CAs" same "$(grep -c '^Switch' "$tmp/net") $(grep -c '^Hca' "$tmp/net")" "20 16"
printf '0xc001 000,200,201,210,211 000\n0xc002 all\n' >"$tmp/spec"
check "MFT writer" "$INSPECT" --fat-tree 4,3 --write-mfts "$tmp/mft" --mcast-groups "$tmp/spec"
check "LFTs equal themselves" status 0 --fat-tree 4,3 --compare-fts "$tmp/lft" "$tmp/lft"
sed 's/^0x0024 003 /0x0024 004 /' "$tmp/lft" >"$tmp/lft2"
check "a changed LFT entry is found (exit 3)" status 3 --fat-tree 4,3 --compare-fts "$tmp/lft" "$tmp/lft2"
check "the count of changed entries" grep -q "^unicast: 1680 entries, .* differ" "$tmp/out"
check "MFTs equal themselves" status 0 --fat-tree 4,3 --compare-fts "$tmp/mft" "$tmp/mft"
check "unicast against multicast dump differs" status 3 --fat-tree 4,3 --compare-fts "$tmp/lft" "$tmp/mft"
cat >"$tmp/trace" <<'EOF'
From ca {0x0043410000000040} portnum 1 lid 16-19 "p0-1-1"
[1] -> switch port {0x005357000000000e}[2] lid 81-81 "sw0-1.2"
[4] -> switch port {0x0053570000000006}[2] lid 73-73 "sw0-1.1"
[4] -> switch port {0x0053570000000004}[1] lid 71-71 "sw1-1.0"
[3] -> switch port {0x005357000000000a}[4] lid 77-77 "sw2-1.1"
[1] -> switch port {0x0053570000000011}[4] lid 84-84 "sw2-0.2"
[1] -> ca port {0x0043410000000091}[1] lid 36-39 "p2-0-0"
To ca {0x0043410000000090} portnum 1 lid 36-39 "p2-0-0"
EOF
check "an ibtracert trace reads as the predicted path T" same \
    "$("$INSPECT" --fat-tree 4,3 --trace-route "$tmp/trace")" \
    "$("$INSPECT" --fat-tree 4,3 --lid-layout iba --names --path 011 200 | sed -n 2p)"

# --- other shapes, errors
check "IBFT(16,2): dotted labels, 8 LIDs" same "$("$INSPECT" --fat-tree 16,2 --lids 15.7 | wc -w | tr -d ' ')" "8"
check "unknown node (exit 2)" status 2 --fat-tree 4,3 --lids 400
check "m/2 not a power of two (exit 2)" status 2 --fat-tree 6,3 --lids 000
check "two actions (exit 2)" status 2 --fat-tree 4,3 --lids 000 --groups 000
check "seed LIDs refused for OpenSM files (exit 2)" status 2 --fat-tree 4,3 --lid-layout seed --write-lfts "$tmp/x"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
