#!/bin/sh
# perf/sim's platform generator (gen_platforms.py): test_gen_platforms.py checks the files
# it writes (same seed identical, seeds differ, host counts, a route for every host pair,
# the machine file's latency the mean over all pairs).  Exit 77 (skipped) without python3.
# SPDX-License-Identifier: BSD-3-Clause
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
exec python3 "$here/test_gen_platforms.py" "$@"
