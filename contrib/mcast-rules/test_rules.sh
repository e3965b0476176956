#!/bin/sh
# Test of mcast-rules on fixture results (run by `make check` in contrib/).
# RULES: the tool; KBRULES_CHECK (optional): a program that parses a rules file.
here=$(cd "$(dirname "$0")" && pwd)
RULES=${RULES:-$here/mcast-rules}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
out=$(python3 "$RULES" "$here/fixture-np4" "$here/fixture-np2") || bad "exit status"
expect_line() {  # REGEX WHAT
    if printf '%s\n' "$out" | grep -Eq "$1"; then ok "$2"; else bad "$2 (no line /$1/)"; printf '%s\n' "$out" | sed 's/^/    /'; fi
}
# np 4: 1024 auto, 4096 + 16384 linear (merged; the custom ours-binomial-sameseg is
# ignored), 65536 kbinomial (ours-linear's nan ignored); boundaries at geometric middles
expect_line '^4 +0-2048 +auto +where=node' "first range up to sqrt(1024*4096)"
expect_line '^4 +2049-32768 +linear +where=node +# best at 4096,16384 B' "neighbours with one winner merge"
expect_line '^4 +32769- +kbinomial +where=node' "last range is open"
expect_line '^2 +0- +postal +where=net' "cluster launcher gives where=net"
expect_line '^\* +\* +auto$' "table ends with * * auto"
n4=$(printf '%s\n' "$out" | grep -c '^4 ')
[ "$n4" = 3 ] && ok "three np-4 lines" || bad "three np-4 lines (got $n4)"
# stock Open MPI's default faster than all of ours -> previous (the module below serves it)
out=$(python3 "$RULES" "$here/fixture-np8")
expect_line '^8 +0-90 +previous +where=node +# best at 8 B' "default fastest -> previous"
expect_line '^8 +91-8192 +auto ' "ours faster than default -> ours"
expect_line '^8 +8193- +circulant ' "a family wins where it is measured fastest"
out=$(python3 "$RULES" "$here/fixture-np8" --no-previous)
expect_line '^8 +0-8192 +auto ' "--no-previous: only ours compete"
# --ranks and --where
out=$(python3 "$RULES" "$here/fixture-np4" --ranks 3-6 --where any)
expect_line '^3-6 +0-2048 +auto +# ' "--ranks/--where any"
# errors: no results, no ours-*, --ranks with two directories
if python3 "$RULES" /nonexistent >/dev/null 2>&1; then bad "missing directory accepted"; else ok "missing directory refused"; fi
tmp=$(mktemp -d)
printf 'size_bytes,contender,median_us\n8,default,1.0\n' > "$tmp/results.csv"
printf 'np: 2\n' > "$tmp/provenance.txt"
msg=$(python3 "$RULES" "$tmp" 2>&1) && bad "no ours results accepted" || {
    case "$msg" in *"no ours-<algorithm> results"*) ok "no ours results refused" ;; *) bad "message: $msg" ;; esac; }
if python3 "$RULES" "$here/fixture-np4" "$here/fixture-np2" --ranks 4 >/dev/null 2>&1; then
    bad "--ranks with two directories accepted"; else ok "--ranks with two directories refused"; fi
# the component's parser accepts what the tool writes
if [ -n "${KBRULES_CHECK:-}" ]; then
    python3 "$RULES" "$here/fixture-np4" "$here/fixture-np2" --out "$tmp/rules"
    if "$KBRULES_CHECK" "$tmp/rules" 4 65536 1 | grep -q '^line 7 kbinomial$'; then
        ok "the core parses the table (4 ranks, 64 KiB, one node -> line 7 kbinomial)"
    else bad "core parse: $("$KBRULES_CHECK" "$tmp/rules" 4 65536 1 2>&1)"; fi
fi
rm -rf "$tmp"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
