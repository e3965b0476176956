#!/bin/sh
# Install the Debian 12 / Debian 13 packages this project needs (run as root).
#   contrib/deps.sh          build + run the comparison
#   contrib/deps.sh test     also what the tests need (make check; configure builds the
#                            tests when CMocka is there)
#   contrib/deps.sh fuzz     also clang + libFuzzer (make -C tests/fuzz fuzz, tests/asan/run.sh)
#   contrib/deps.sh ci5      the least the Open MPI 5.0 stage of the tests needs
#                            (contrib/ompi5-stage: build, unit tests, MPI matrix, install)
set -e
BUILD="build-essential autoconf automake libtool pkg-config openmpi-bin libopenmpi-dev
       libhwloc-dev libpmix-dev libucx-dev python3 python3-matplotlib gnuplot-nox graphviz
       libibverbs-dev librdmacm-dev libssl-dev"
TEST="libcmocka-dev hpcc iproute2 procps strace ibsim-utils opensm infiniband-diags libibumad-dev
      libopensm-dev clang libclang-rt-dev xxd"
FUZZ="clang libclang-rt-dev"
pkgs=$BUILD
[ "${1:-}" = test ] && pkgs="$BUILD $TEST"
[ "${1:-}" = fuzz ] && pkgs="$BUILD $TEST $FUZZ"
[ "${1:-}" = ci5 ] && pkgs="build-essential autoconf automake libtool pkg-config openmpi-bin
      libopenmpi-dev libhwloc-dev libpmix-dev libssl-dev libcmocka-dev python3 iproute2 procps
      util-linux"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "deps.sh: installing$missing (and what they need; a few minutes on a new machine)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing
fi
# A packaged Open MPI whose devel headers lack headers its own opal_config.h names (Debian
# 13's 5.0.7): complete them from Debian's source package of the installed version.
if ! "$(dirname "$0")/ompi-devel-headers" --check >/dev/null 2>&1; then
    "$(dirname "$0")/ompi-devel-headers"
fi
