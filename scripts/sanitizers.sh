#!/usr/bin/env bash
# The test suite under the sanitizers (CUDA off: the sanitizers do not see into the GPU).
#   bash scripts/sanitizers.sh asan   # ASan + UBSan: every test except the `real` ones
#   bash scripts/sanitizers.sh tsan   # TSan: the threaded parts (ring buffer and capture callback,
#                                     # simulated live source, streaming worker, sessions whose
#                                     # switches are flipped from another thread, the GUI worker)
#   bash scripts/sanitizers.sh        # both
# Leak and race reports that come from inside third-party libraries (Qt's plugin loading,
# fontconfig, ALSA/PulseAudio, OpenBLAS's threads) are suppressed by the files in
# tests/sanitizers/; Hearsay's own code has no suppressions.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
which=${1:-all}
jobs=$(nproc)
supp=$here/tests/sanitizers
export QT_QPA_PLATFORM=offscreen
export QTEST_FUNCTION_TIMEOUT=1800000  # instrumented code runs several times slower
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"

if [ "$which" = asan ] || [ "$which" = all ]; then
    cmake --preset asan >/dev/null
    cmake --build build-asan -j "$jobs"
    ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1" \
    LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0" \
        ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE real --timeout 1800
fi

if [ "$which" = tsan ] || [ "$which" = all ]; then
    threaded=(core_tst_ring_buffer core_tst_capture_device core_tst_simulated_live_source core_tst_streaming_policy
              core_tst_controlled_session core_tst_engine_sessions core_tst_engine_switches ui_tst_backend_fallback)
    cmake --preset tsan >/dev/null
    cmake --build build-tsan -j "$jobs" --target "${threaded[@]}"
    regex=$(printf '%s\n' "${threaded[@]}" | sed -E 's/^(core|ui)_tst_/\1./' | paste -sd'|')
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:die_after_fork=0:suppressions=$supp/tsan.supp" \
        ctest --test-dir build-tsan --output-on-failure -j "$jobs" -R "^($regex)\$" --timeout 1800
fi
