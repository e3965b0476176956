#!/bin/sh
# make check: every corpus input of the multicast-protocol fuzz target, plus 3000
# deterministic mutations of each (fuzz_smoke.c).  A finding aborts the driver.
CORPUS=${CORPUS:-$(dirname "$0")/corpus/mcproto}
exec ./fuzz_smoke --mutations 3000 "$CORPUS"/*.hex
