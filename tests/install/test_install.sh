#!/bin/bash
# What `make install` puts on the machine, and that `make uninstall` removes all of it:
#  1. the configured install (components into Open MPI's component directory, tools under
#     the prefix), staged with DESTDIR: the expected files are there, uninstall leaves none;
#  2. an install under a temporary prefix: the installed bcast-compare, run from another
#     directory, finds its installed benchmark and components, writes its results into a
#     new time-stamped directory there (a second run gets another one, an existing --out is
#     refused); a stock run never loads our components, ours loads the installed copy and
#     not an older copy that sits in a later component directory; uninstall leaves nothing.
# Ends with "N passed, M failed".
set -u
: "${TOP_BUILDDIR:?}" "${MCAST_COMPONENTDIR:?}" "${MCAST_OMPI_PKGLIBDIR:?}"
MPIRUN=${MCAST_MPIRUN:-mpirun}
MAKE_PROG=${MAKE_PROG:-make}
# a make of our own, not a job of the `make check` that runs us
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE_PROG -s -C "$TOP_BUILDDIR" "$@"; }
work=$(mktemp -d /tmp/mcast-install-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
files_under() { [ -d "$1" ] && (cd "$1" && find . \( -type f -o -type l \) | sed 's|^\.||' | sort); }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

# ---- 1. the configured install, staged
dest=$work/dest
if mk install DESTDIR="$dest" >"$work/install.log" 2>&1; then
    ok "make install DESTDIR=... ($(files_under "$dest" | wc -l) files)"
else
    bad "make install DESTDIR=..."; tail -20 "$work/install.log"; finish
fi
echo "installed (configured locations):"; files_under "$dest" | sed 's/^/    /'
comp=$MCAST_COMPONENTDIR   # (make expanded it: ${libdir}/openmpi under an explicit --prefix)
for f in "$comp/mca_coll_kbinomial.so" "$comp/mca_coll_pathmc.so"; do
    [ -f "$dest$f" ] && ok "component $f" || bad "component $f missing"
done
for f in bcast-compare mcast-inspect mcast-rules; do
    files_under "$dest" | grep -q "/bin/$f\$" && ok "bin/$f" || bad "bin/$f missing"
done
files_under "$dest" | grep -q "/libexec/ompi-coll-mcast/osu_style_bcast\$" &&
    ok "libexec/ompi-coll-mcast/osu_style_bcast" || bad "the benchmark bcast-compare runs is not installed"
if mk uninstall DESTDIR="$dest" >"$work/uninstall.log" 2>&1; then
    left=$(files_under "$dest")
    [ -z "$left" ] && ok "make uninstall DESTDIR=...: no file left" ||
        bad "make uninstall left: $(echo $left)"
else
    bad "make uninstall DESTDIR=..."; tail -20 "$work/uninstall.log"
fi

# ---- 2. a temporary prefix, everything of ours in it
p=$work/prefix
pc=$p/lib/openmpi
if ! mk install prefix="$p" mcast_componentdir="$pc" >"$work/install2.log" 2>&1; then
    bad "make install prefix=..."; tail -20 "$work/install2.log"; finish
fi
ok "make install prefix=$p"
mkdir -p "$work/elsewhere" "$work/old"
cd "$work/elsewhere" || finish
bc=$p/bin/bcast-compare
args=(--np 2 --sizes 1,4096 --repeats 1 --iterations 20 --warmup 2 --timeout 120
      --contenders default,ours-auto --mpirun "$MPIRUN")
if "$bc" "${args[@]}" --label t >"$work/run1.out" 2>&1; then
    ok "installed bcast-compare runs from another directory"
else
    bad "installed bcast-compare from another directory"; tail -15 "$work/run1.out"
fi
d1=$(ls -d bcast-compare-*-t 2>/dev/null)
[ "$(echo "$d1" | grep -c .)" = 1 ] && [ -f "$d1/table.txt" ] &&
    ok "results in ./$d1 (time-stamped, in the current directory)" || bad "no results directory here: '$d1'"
grep -q "^benchmark: $p/libexec/ompi-coll-mcast/osu_style_bcast " "$d1/provenance.txt" 2>/dev/null &&
    ok "it ran the installed benchmark" || bad "benchmark: $(grep '^benchmark:' "$d1/provenance.txt" 2>/dev/null)"
grep -q "^components: .*'dir': '$pc'" "$d1/provenance.txt" 2>/dev/null &&
    ok "it found the installed components" || bad "components: $(grep '^components:' "$d1/provenance.txt" 2>/dev/null)"
sum1=$(cat "$d1"/table.txt | md5sum)
"$bc" "${args[@]}" --label t >"$work/run2.out" 2>&1
n=$(ls -d bcast-compare-*-t 2>/dev/null | wc -l)
[ "$n" = 2 ] && [ "$(cat "$d1"/table.txt | md5sum)" = "$sum1" ] &&
    ok "a second run gets a new directory, the first is untouched" || bad "second run: $n directories"
if "$bc" "${args[@]}" --out "$d1" >"$work/run3.out" 2>&1; then
    bad "--out onto an existing result directory was accepted"
else
    grep -q "never overwritten" "$work/run3.out" && [ "$(cat "$d1"/table.txt | md5sum)" = "$sum1" ] &&
        ok "--out onto existing results is refused" || bad "--out onto existing results: $(tail -2 "$work/run3.out")"
fi
# The stock and our command lines exactly as bcast-compare runs them (--dry-run), each run
# once with the loader's trace.  An "older copy" of ours sits in a directory after ours.
cp "$pc"/mca_coll_kbinomial.so "$pc"/mca_coll_pathmc.so "$work/old/"
mapfile -t cmds < <("$bc" "${args[@]}" --dry-run)
[ "${#cmds[@]}" = 2 ] || bad "--dry-run printed ${#cmds[@]} commands"
loaded() {  # COMMAND (shell-quoted) ; prints the paths of our .so files the ranks opened
    env LD_DEBUG=files OMPI_MCA_mca_base_component_path="$work/old:$MCAST_OMPI_PKGLIBDIR" \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        bash -c "$1" 2>&1 | sed -n 's/.*file=\([^ ]*mca_coll_\(kbinomial\|pathmc\)\.so\).*/\1/p' | sort -u
}
stock=${cmds[0]}
ours=${cmds[1]//":$MCAST_OMPI_PKGLIBDIR"/":$work/old:$MCAST_OMPI_PKGLIBDIR"}
got=$(loaded "$stock")
[ -z "$got" ] && ok "stock run (our copy in the component path) loads none of ours" ||
    bad "stock run loaded: $(echo $got)"
got=$(loaded "$ours")
if echo "$got" | grep -q "^$pc/mca_coll_kbinomial.so\$" && ! echo "$got" | grep -q "^$work/old/"; then
    ok "our run loads the installed copy, never the older one behind it"
else
    bad "our run loaded: $(echo $got)"
fi
cd "$work" || finish
if mk uninstall prefix="$p" mcast_componentdir="$pc" >"$work/uninstall2.log" 2>&1; then
    left=$(files_under "$p")
    [ -z "$left" ] && ok "make uninstall prefix=...: no file left" || bad "make uninstall left: $(echo $left)"
else
    bad "make uninstall prefix=..."; tail -20 "$work/uninstall2.log"
fi
finish
