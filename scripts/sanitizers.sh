#!/usr/bin/env bash
# The test suite under the sanitizers (CUDA off: the sanitizers do not see into the GPU).
#   bash scripts/sanitizers.sh asan   # ASan + UBSan: every test except the `real` ones
#   bash scripts/sanitizers.sh tsan   # TSan: the threaded parts (ring buffer and capture callback,
#                                     # simulated live source, streaming worker, sessions whose
#                                     # switches are flipped from another thread, the GUI worker)
#   bash scripts/sanitizers.sh        # both
#   bash scripts/sanitizers.sh ci     # what CI runs (scripts/test.sh), trimmed to fit its budget:
#                                     # the suites that read untrusted bytes or run threads under
#                                     # ASan + UBSan in the clang build the fuzz targets already
#                                     # need (build-fuzz); the two checks that start hearsay-cli
#                                     # start the main build's (build/bin) where it exists. TSan
#                                     # has its own tree and runs with `tsan` and in
#                                     # scripts/test.sh --full (its six core suites took about 3
#                                     # minutes with their build on 2 cores; the GUI worker's
#                                     # suite alone takes over 10).
#   bash scripts/sanitizers.sh ci-build  # only the build of `ci`, with the fuzz targets, in one
#                                     # go (scripts/test.sh starts it beside the soak)
# Leak and race reports that come from inside third-party libraries (Qt's plugin loading,
# fontconfig, ALSA/PulseAudio, OpenBLAS's threads) are suppressed by the files in
# tests/sanitizers/; Hearsay's own code has no suppressions.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
which=${1:-all}
jobs=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}  # CMake's own variable for a build's parallel jobs
supp=$here/tests/sanitizers
export QT_QPA_PLATFORM=offscreen
export QTEST_FUNCTION_TIMEOUT=3600000  # instrumented code runs several times slower
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"

asan_options="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
lsan_options="suppressions=$supp/lsan.supp:print_suppressions=0"
tsan_options="halt_on_error=1:second_deadlock_stack=1:die_after_fork=0:suppressions=$supp/tsan.supp"
# A CTest regex matching exactly the given targets (core_tst_x -> core.x).
test_regex() { printf '%s\n' "$@" | sed -E 's/^(core|ui)_tst_/\1./' | paste -sd'|'; }

if [ "$which" = ci ] || [ "$which" = ci-build ]; then
    checked=(core_tst_json core_tst_model_files core_tst_ctranslate2_model core_tst_tokenizer core_tst_audio_file
             core_tst_audio_block_decoder core_tst_audio_edge_formats core_tst_audio_hostile_files core_tst_voice_activity
             core_tst_ring_buffer core_tst_journal_file core_tst_journal_store core_tst_kv_cache core_tst_cpu_kernels
             core_tst_engine_ops core_tst_log_mel core_tst_transcript_export core_tst_simulated_live_source
             core_tst_streaming_policy)
    cli=
    if [ -x build/bin/hearsay-cli ]; then cli=$here/build/bin/hearsay-cli; fi
    cmake --preset fuzz -DHEARSAY_TEST_CLI="$cli" >/dev/null
    cmake --build build-fuzz -j "$jobs" --target fuzz_targets "${checked[@]}"
    if [ "$which" = ci-build ]; then exit 0; fi
    ASAN_OPTIONS=$asan_options LSAN_OPTIONS=$lsan_options \
        ctest --test-dir build-fuzz --output-on-failure -j "$jobs" -R "^($(test_regex "${checked[@]}"))\$" --timeout 1800
    exit 0
fi

if [ "$which" = asan ] || [ "$which" = all ]; then
    cmake --preset asan >/dev/null
    cmake --build build-asan -j "$jobs"
    ASAN_OPTIONS=$asan_options LSAN_OPTIONS=$lsan_options \
        ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE real --timeout 1800
fi

if [ "$which" = tsan ] || [ "$which" = all ]; then
    threaded=(core_tst_ring_buffer core_tst_capture_device core_tst_simulated_live_source core_tst_streaming_policy
              core_tst_controlled_session core_tst_engine_sessions core_tst_engine_switches ui_tst_backend_fallback)
    cmake --preset tsan >/dev/null
    cmake --build build-tsan -j "$jobs" --target "${threaded[@]}"
    TSAN_OPTIONS=$tsan_options \
        ctest --test-dir build-tsan --output-on-failure -j "$jobs" -R "^($(test_regex "${threaded[@]}"))\$" --timeout 1800
fi
