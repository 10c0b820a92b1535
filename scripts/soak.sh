#!/usr/bin/env bash
# The 60-minute soak (core.streaming_soak with HEARSAY_SOAK_MINUTES=60): real tiny.en on the CPU,
# speech and pauses at real-time pace, the cache switches flipped every minute. Writes
# build/soak/soak.csv (one row per step: RSS, lag, step time, switches) and soak.csv.latency.csv
# (commit latency per word); tests/reference/plot_soak.py turns them into a plot and a table.
#   bash scripts/soak.sh [MINUTES]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
minutes=${1:-60}
mkdir -p build/soak
cmake --build build --target core_tst_streaming_soak >/dev/null
HEARSAY_SOAK_MINUTES=$minutes HEARSAY_SOAK_CSV=build/soak/soak.csv QTEST_FUNCTION_TIMEOUT=$(( (minutes * 60 + 1200) * 1000 )) \
    build/tests/core_tst_streaming_soak
echo "soak.sh: build/soak/soak.csv"
